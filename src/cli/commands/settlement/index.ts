// tpa settlement show | report | remit: an encounter's transfer, payouts and reconciliation; a
// period's report; the 835 remittance advice of a transfer or a period.
import type { Entry } from '../../verb.js';
import { remit } from './remit.js';
import { report } from './report.js';
import { show } from './show.js';

export const verbs: readonly Entry[] = [show, report, remit];
