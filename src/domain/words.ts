// Words that follow a count: one home for the singular and the plural, so that no message says
// "1 codes".

/** The noun for `n` of it: the singular for one, else the plural ("entry", "entries"). */
export function nounFor(n: number, singular: string, plural = `${singular}s`): string {
  return n === 1 ? singular : plural;
}
