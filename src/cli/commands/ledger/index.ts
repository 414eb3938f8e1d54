// tpa ledger list | show | eob: the encounter ledger (docs/api-resources.md "Ledger entry") and a member's
// explanation of benefits (docs/api-resources.md "Explanation of benefits").
import type { Entry } from '../../verb.js';
import { eob } from './eob.js';
import { list } from './list.js';
import { show } from './show.js';

export const verbs: readonly Entry[] = [list, show, eob];
