// Procedure modifiers (docs/money-rules.md "Modifiers"): kept on each service line as sent, and read
// by one rule, the duplicate rule's distinct services.

/** A line carries at most four modifiers: as many as an 837's SV101-3…6 and an 835's SVC01-3…6 hold. */
export const MAX_LINE_MODIFIERS = 4;

/**
 * The modifiers that say a line is a service of its own beside another of the same code and date:
 * a distinct procedural service (59, and its subsets XE separate encounter, XS separate structure,
 * XP separate practitioner, XU unusual non-overlapping service), a repeat procedure by the same or
 * another physician (76, 77) and a repeat laboratory test (91).
 */
export const DISTINCT_SERVICE_MODIFIERS: ReadonlySet<string> = new Set(['59', 'XE', 'XS', 'XP', 'XU', '76', '77', '91']);

/** A modifier code: two letters or digits (CPT's and HCPCS Level II's). */
export function modifierProblem(code: unknown): string | undefined {
  if (code === undefined || code === null || code === '') return 'is missing: a 2-character modifier such as 59 or 26';
  if (typeof code !== 'string') return `must be a 2-character modifier such as 59 or 26, as text (got ${JSON.stringify(code)?.slice(0, 20)})`;
  if (!/^[A-Za-z0-9]{2}$/.test(code)) return `must be a 2-character modifier such as 59 or 26 (got ${JSON.stringify(code.slice(0, 20))})`;
  return undefined;
}

// mutation: no survivors (the duplicate rule: the distinct service)
/**
 * What the duplicate rule adds to (member, code, date, fee kind): the line's distinct-service
 * modifiers, each once, in order; '' for a line with none. Lines of different keys are different
 * services; the same key twice is one service billed twice.
 */
export function distinctServiceKey(modifiers: readonly string[] | undefined): string {
  return [...new Set((modifiers ?? []).filter((m) => DISTINCT_SERVICE_MODIFIERS.has(m)))].sort().join('+');
}
// mutation: end
