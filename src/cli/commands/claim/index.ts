// tpa claim template | validate | submit | poll: FHIR R4 claims end to end (docs/api.md "Claim submission").
import type { Entry } from '../../verb.js';
import { poll } from './poll.js';
import { submit } from './submit.js';
import { template } from './template.js';
import { validate } from './validate.js';

export const verbs: readonly Entry[] = [template, validate, submit, poll];
