// tpa completion: a root command, one verb.
import type { Entry } from '../../verb.js';
import { completion } from './completion.js';

export const verbs: readonly Entry[] = [completion];
