// tpa claim template | validate | convert | submit | poll: FHIR R4 claims end to end (docs/api-resources.md "Claim submission"),
// and X12 837 files converted to them (docs/x12.md "837 in").
import type { Entry } from '../../verb.js';
import { convert } from './convert.js';
import { poll } from './poll.js';
import { submit } from './submit.js';
import { template } from './template.js';
import { validate } from './validate.js';

export const verbs: readonly Entry[] = [template, validate, convert, submit, poll];
