// A claim checked before anything is sent, with the engine's own rules: `claim validate` and
// `claim submit` (one claim) refuse a bad one alike, exit 2 naming every bad field.
import { ValidationError } from '../../../domain/errors.js';
import { parseClaimText, type ParsedClaim } from '../../../domain/fhir-claim.js';
import { ValidationFailed } from '../../../errors.js';

/** Local validation with the engine's own rules; exits 2 naming every bad field, nothing sent. */
export function validateClaim(text: string, source: string): ParsedClaim {
  try {
    return parseClaimText(text);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const where = source === '-' ? 'stdin' : source;
    const lines = err.errors.map((e) => `  ${e.field || '(file)'}: ${e.message}`).join('\n');
    throw new ValidationFailed(`${where} is not a valid claim:\n${lines}`, { details: err.errors });
  }
}
