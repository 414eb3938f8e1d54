// tpa fund approve | run | history: the irreversible fund release (docs/api-routes.md "POST /v1/funding/approve/"),
// of one encounter or a payment run, and the approvals made from this machine.
import type { Entry } from '../../verb.js';
import { approve } from './approve.js';
import { history } from './history.js';
import { run } from './run.js';

export const verbs: readonly Entry[] = [approve, run, history];
