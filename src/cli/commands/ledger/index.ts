// tpa ledger list | show: the encounter ledger (docs/api.md "Ledger entry").
import type { Entry } from '../../verb.js';
import { list } from './list.js';
import { show } from './show.js';

export const verbs: readonly Entry[] = [list, show];
