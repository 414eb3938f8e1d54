// A dependent patient resolved to the member enrolled under their subscriber (docs/x12.md "A
// dependent patient"): the claim is then paid under the dependent's own member id, deductible and
// benefits. None matching, or several, and the claim is refused naming them; a claim that names a
// member id as well is refused when that member is not the dependent found.
import { describeSent, matchDependent } from '../../domain/dependent.js';
import type { FieldError } from '../../domain/errors.js';
import type { ParsedClaim } from '../../domain/fhir-claim.js';
import { clip } from '../../domain/validation.js';
import { HttpError } from '../exchange.js';
import type { Db } from '../store/db.js';
import { dependentsOf, memberExists } from '../store/members.js';

/** The field of a refusal: the patient, as the claim names them. */
const FIELD = 'patient';

/** The claim with its patient's member id: the dependent's, when the claim names a dependent. */
export function resolvePatient(db: Db, claim: ParsedClaim): ParsedClaim {
  const sent = claim.dependent;
  if (!sent) return claim;
  const who = describeSent(sent);
  const refuse = (message: string): never => {
    const errors: FieldError[] = [{ field: FIELD, message }];
    throw new HttpError(400, { errors });
  };
  if (!memberExists(db, sent.subscriberId))
    refuse(
      `names the dependent ${clip(who, 80)} of subscriber "${clip(sent.subscriberId)}", and no member "${clip(sent.subscriberId)}" is enrolled with the plan`,
    );
  const match = matchDependent(sent, dependentsOf(db, sent.subscriberId));
  if (match.kind === 'none')
    return refuse(
      `is ${clip(who, 80)}, a dependent of subscriber ${clip(sent.subscriberId)}, and no dependent enrolled under ${clip(sent.subscriberId)} has that name and date of birth: the claim is not paid as anyone's`,
    );
  if (match.kind === 'several')
    return refuse(
      `is ${clip(who, 80)}, a dependent of subscriber ${clip(sent.subscriberId)}, and several dependents enrolled under ${clip(sent.subscriberId)} have that name and date of birth (${match.members.map((m) => m.member_id).join(', ')}): which one is not for tpa to guess`,
    );
  const found = match.member.member_id;
  // One member, one reading: a member id named beside the dependent must be the dependent found.
  if (claim.memberId !== '' && claim.memberId !== found)
    return refuse(
      `names member "${clip(claim.memberId)}", but the dependent it names (${clip(who, 80)}, of subscriber ${clip(sent.subscriberId)}) is member ${found}: which member the claim is for is not for tpa to guess`,
    );
  return { ...claim, memberId: found };
}
