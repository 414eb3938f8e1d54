// tpa settlement show | report: an encounter's transfer, payouts and reconciliation; a period's report.
import type { Entry } from '../../verb.js';
import { report } from './report.js';
import { show } from './show.js';

export const verbs: readonly Entry[] = [show, report];
