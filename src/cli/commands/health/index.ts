// tpa health: a root command, one verb.
import type { Entry } from '../../verb.js';
import { health } from './health.js';

export const verbs: readonly Entry[] = [health];
