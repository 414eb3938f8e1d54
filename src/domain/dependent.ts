// A dependent patient (an 837's loop 2000C; a FHIR Claim whose Coverage names the subscriber and
// whose Patient is named by name and birth date) resolved to the member enrolled under that
// subscriber (docs/x12.md "A dependent patient"). Pure: the engine gives the subscriber's dependents.

/** The patient as the claim names them, under their subscriber's member id. */
export interface DependentSent {
  /** The subscriber's member id (NM1*IL NM109; Coverage.subscriberId). */
  subscriberId: string;
  /** Last name (NM1*QC NM103; Patient.name[0].family). */
  family: string;
  /** First name, then middle names or initials (NM104, NM105; Patient.name[0].given). */
  given: string[];
  /** YYYY-MM-DD (DMG*D8 DMG02; Patient.birthDate). */
  birthDate: string;
  /** The patient's relationship to the subscriber as sent (PAT01; Coverage.relationship), when sent. */
  relationship?: string;
}

export interface EnrolledDependent {
  member_id: string;
  name: string;
  dob: string;
}

export type DependentMatch = { kind: 'one'; member: EnrolledDependent } | { kind: 'none' } | { kind: 'several'; members: EnrolledDependent[] };

/** Generational suffixes: not part of the name compared. */
const SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'v']);

/**
 * A name's words as compared: letters without accents, in lower case, the punctuation of initials and
 * suffixes (. , ') dropped, hyphens kept, words split on spaces, a generational suffix at the end left out.
 */
export function nameWords(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[.,'’]/g, '')
    .split(/\s+/)
    .filter((w) => w !== '');
  while (words.length > 1 && SUFFIXES.has(words.at(-1)!)) words.pop();
  return words;
}

/**
 * Whether an enrolled member's name (one text, first name first) is the name sent: the first word is
 * the first name sent, and the last words are the last name sent (one word or several), compared as
 * nameWords compares them. Middle names and initials, on either side, are not compared.
 */
export function sameName(enrolled: string, family: string, given: readonly string[]): boolean {
  const words = nameWords(enrolled);
  const last = nameWords(family);
  const first = nameWords(given[0] ?? '')[0];
  if (first === undefined || last.length === 0 || words.length < last.length + 1) return false;
  if (words[0] !== first) return false;
  const tail = words.slice(words.length - last.length);
  return tail.every((w, i) => w === last[i]);
}

/** Whether an enrolled member is the dependent as sent: the same date of birth and name (sameName). */
export function isTheDependent(sent: DependentSent, enrolled: { name: string; dob: string | null }): boolean {
  return enrolled.dob === sent.birthDate && sameName(enrolled.name, sent.family, sent.given);
}

/** The dependents of the subscriber whose name and date of birth are the patient's: one, none or several. */
export function matchDependent(sent: DependentSent, dependents: readonly EnrolledDependent[]): DependentMatch {
  const members = dependents.filter((d) => isTheDependent(sent, d));
  if (members.length === 1) return { kind: 'one', member: members[0]! };
  if (members.length === 0) return { kind: 'none' };
  return { kind: 'several', members };
}

/** The member a claim names, as a person reads it: the member id, or the dependent as sent under their subscriber. */
export function patientSaid(claim: { memberId: string; dependent?: DependentSent }): string {
  if (!claim.dependent) return claim.memberId;
  const who = `${describeSent(claim.dependent)}, dependent of ${claim.dependent.subscriberId}`;
  return claim.memberId === '' ? who : `${claim.memberId} (${who})`;
}

/** The patient as sent, for a message: "SMITH, TED, born 1973-05-01". */
export function describeSent(sent: DependentSent): string {
  return `${[sent.family, ...sent.given].filter((w) => w !== '').join(', ')}, born ${sent.birthDate}`;
}
