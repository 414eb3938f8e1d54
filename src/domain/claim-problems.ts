// Every problem of a claim read from X12 at once (docs/x12-refusals.md "What is refused, and why"): the
// reader's (what the 837 carries that the service cannot take, each with its segment) and the
// parser's field rules on the converted claim, together, so that a sender fixes a claim in one
// round, not one layer a round. A parser error about a segment the reader already named is the
// same fault said twice, and is left out.
import type { FieldError } from './errors.js';
import { ValidationError } from './errors.js';
import { type ParseOptions, type ParsedClaim, parseReadClaim, parseWrittenClaim } from './fhir-claim.js';

export type SegmentError = FieldError & { segment?: string };

/**
 * The claim parsed, or every problem of it: `readerErrors` (none for a JSON claim) and the parser's,
 * each of the latter with the segment its field came from (`segmentOf`) when the claim is from X12.
 */
export function everyProblem(
  text: string,
  value: unknown,
  readerErrors: readonly SegmentError[] = [],
  segmentOf?: (field: string) => string | undefined,
  options: ParseOptions = {},
): { parsed: ParsedClaim; errors?: undefined } | { parsed?: undefined; errors: SegmentError[] } {
  let parsed: ParsedClaim | undefined;
  let parserErrors: SegmentError[] = [];
  try {
    // A claim of an 837 (it has segments) is text tpa wrote: no key can be there twice.
    parsed = segmentOf ? parseWrittenClaim(text, value, options) : parseReadClaim(text, value, options);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    parserErrors = err.errors.map((e) => {
      const segment = segmentOf?.(e.field);
      return segment ? { ...e, segment } : { ...e };
    });
  }
  if (readerErrors.length === 0) return parsed ? { parsed } : { errors: parserErrors };
  const named = readerErrors.map((e) => e.segment).filter((s): s is string => s !== undefined && s !== '');
  const same = (segment: string | undefined) =>
    segment !== undefined && named.some((n) => n === segment || n.startsWith(`${segment},`) || segment.startsWith(`${n},`));
  return { errors: [...readerErrors, ...parserErrors.filter((e) => !same(e.segment))] };
}
