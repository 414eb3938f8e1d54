// An X12 claim's identity in a batch (docs/x12.md "837 in", its Journal): its interchange, group, transaction
// set and CLM01. One identity is one claim; what `claim submit`, `claim validate` and `claim convert`
// say of a second claim of one identity, and of a correction sent under it.

/** What to do to send a corrected claim: a new identity (tpa refuses replacements). */
export const X12_CORRECTION = 'Send a corrected claim in a new interchange (another ISA13) or under a new CLM01 (tpa refuses replacements, CLM05-3 7)';

/** Why the second claim of an X12 identity in one run is not taken: `firstOf` is the first claim's source. */
export function sameIdentityMessage(identity: string, firstOf: string): string {
  return `the same interchange, group, transaction set and CLM01 as ${firstOf} (${identity}): one identity is one claim, so neither is taken for the other; not sent. ${X12_CORRECTION}`;
}

/**
 * One part of an X12 identity, with the characters that have meaning in the identity escaped as in a
 * URL (`%` `%25`, `:` `%3A`, `#` `%23`): with ISA16 `>` a `:` is ordinary data, and a CLM01 may hold a
 * `#`, so that no two different parts ever give one identity. A part of none of them is itself.
 */
export function identityPart(text: string): string {
  return text.replace(/[%:#]/g, (c) => (c === '%' ? '%25' : c === ':' ? '%3A' : '%23'));
}

/**
 * An X12 claim's identity: `x12:<ISA06 trimmed>:<ISA13>:<GS06>:<ST02>:<CLM01>`, each part escaped
 * (identityPart), with `#<n>` (the claim's place among its transaction set's CLMs) when an earlier
 * claim of the set has its CLM01.
 */
export function x12Identity(parts: { isa06: string; isa13: string; gs06: string; st02: string; clm01: string }, ordinal?: number): string {
  const { isa06, isa13, gs06, st02, clm01 } = parts;
  return `x12:${[isa06, isa13, gs06, st02, clm01].map(identityPart).join(':')}${ordinal === undefined ? '' : `#${ordinal}`}`;
}
