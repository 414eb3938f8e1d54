// tpa activity: a root command, one verb.
import type { Entry } from '../../verb.js';
import { activity } from './activity.js';

export const verbs: readonly Entry[] = [activity];
