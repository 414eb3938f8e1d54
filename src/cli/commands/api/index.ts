// tpa api: a root command, one verb.
import type { Entry } from '../../verb.js';
import { api } from './api.js';

export const verbs: readonly Entry[] = [api];
