// An X12 claim's identity in a batch (docs/x12.md "837 in", its Journal): its interchange, group, transaction
// set and CLM01. One identity is one claim; what `claim submit`, `claim validate` and `claim convert`
// say of a second claim of one identity, and of a correction sent under it.

/** What to do to send a corrected claim: a new identity (tpa refuses replacements). */
export const X12_CORRECTION = 'Send a corrected claim in a new interchange (another ISA13) or under a new CLM01 (tpa refuses replacements, CLM05-3 7)';

/** Why the second claim of an X12 identity in one run is not taken: `firstOf` is the first claim's source. */
export function sameIdentityMessage(identity: string, firstOf: string): string {
  return `the same interchange, group, transaction set and CLM01 as ${firstOf} (${identity}): one identity is one claim, so neither is taken for the other; not sent. ${X12_CORRECTION}`;
}
