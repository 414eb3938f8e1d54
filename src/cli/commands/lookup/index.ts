// tpa lookup blind | full | rates: contract discovery in two stages (docs/api-routes.md "POST /v1/contract-lookup/blind/" and "POST /v1/contract-lookup/full/").
import type { Entry } from '../../verb.js';
import { blind } from './blind.js';
import { full } from './full.js';
import { rates } from './rates.js';

export const verbs: readonly Entry[] = [blind, full, rates];
