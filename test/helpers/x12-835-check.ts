// An 835 re-read by a parser that is not tpa's (node-x12, strict: it refuses an SE01, GE01 or IEA01
// that does not count right), checked against the 005010X221A1 guide's required segments, elements
// and code values (x12-835-tr3.ts, tpa's one known deviation allowed: no bank accounts with ACH), and
// its balancing checked as the guide asks.
import { type X12Interchange, X12Parser, type X12Segment } from 'node-x12';
import { expect } from 'vitest';
import { parseCents } from '../../src/domain/money.js';
import { tr3Problems } from './x12-835-tr3.js';

/** X12 decimal text as integer cents, sign kept; fails the test on anything else. */
export function x12Cents(text: string): number {
  const negative = text.startsWith('-');
  const c = parseCents(negative ? text.slice(1) : text);
  if (c === undefined) throw new Error(`not an X12 amount: ${JSON.stringify(text)}`);
  return negative ? -c : c;
}

export interface ParsedClaim {
  clp: string[];
  claimCas: number;
  prCas: number;
  lines: { svc: string[]; cas: number; dtm472: string | null }[];
}

export interface Parsed835 {
  /** Element values of each segment, [tag, e1, e2, …]. */
  segments: string[][];
  bpr: string[];
  trn: string[];
  payee: string[];
  claims: ParsedClaim[];
  plbCents: number;
}

const values = (s: X12Segment): string[] => [s.tag, ...s.elements.map((e) => e.value)];

/** The sum of a CAS segment's amounts (CAS03, 06, 09, 12, 15, 18), and of those in group PR. */
function casSum(cas: string[]): number {
  let sum = 0;
  for (let i = 3; i < cas.length; i += 3) if (cas[i]) sum += x12Cents(cas[i]!);
  return sum;
}

/**
 * Parses the 835 with node-x12 (strict), asserts the envelope counts and each transaction's balance,
 * and returns the transactions' parts to look at.
 */
export function checked835(text: string): { interchange: X12Interchange; transactions: Parsed835[] } {
  const interchange = new X12Parser(true).parse(text) as X12Interchange;
  expect(tr3Problems(text, { allowMissingBankAccounts: true }), 'the 835 as the 005010X221A1 guide reads it').toEqual([]);
  expect(values(interchange.header)[12]).toBe('00501');
  expect(interchange.functionalGroups).toHaveLength(1);
  expect(Number(values(interchange.trailer)[1])).toBe(interchange.functionalGroups.length);
  const group = interchange.functionalGroups[0]!;
  expect(values(group.header)[8]).toBe('005010X221A1');
  expect(Number(values(group.trailer)[1])).toBe(group.transactions.length);
  const transactions = group.transactions.map((t) => {
    const st = values(t.header);
    const se = values(t.trailer);
    expect(st.slice(1)).toEqual(['835', se[2], '005010X221A1']);
    // SE01 counts ST and SE and every segment between them.
    expect(Number(se[1])).toBe(t.segments.length + 2);
    const segments = t.segments.map(values);
    const bpr = segments.find((s) => s[0] === 'BPR')!;
    const claims: ParsedClaim[] = [];
    let plbCents = 0;
    for (const s of segments) {
      if (s[0] === 'CLP') claims.push({ clp: s, claimCas: 0, prCas: 0, lines: [] });
      else if (s[0] === 'SVC') claims.at(-1)!.lines.push({ svc: s, cas: 0, dtm472: null });
      else if (s[0] === 'CAS') {
        const claim = claims.at(-1)!;
        const sum = casSum(s);
        if (s[1] === 'PR') claim.prCas += sum;
        if (claim.lines.length === 0) claim.claimCas += sum;
        else claim.lines.at(-1)!.cas += sum;
      } else if (s[0] === 'DTM' && s[1] === '472') claims.at(-1)!.lines.at(-1)!.dtm472 = s[2]!;
      else if (s[0] === 'PLB') for (let i = 4; i < s.length; i += 2) plbCents += x12Cents(s[i]!);
    }
    // BPR02 = the claims' payments less the provider-level adjustments.
    expect(x12Cents(bpr[2]!)).toBe(claims.reduce((sum, c) => sum + x12Cents(c.clp[4]!), 0) - plbCents);
    for (const c of claims) {
      const lineCas = c.lines.reduce((sum, l) => sum + l.cas, 0);
      // CLP03 − every adjustment of the claim (its own and its lines') = CLP04.
      expect(x12Cents(c.clp[3]!) - c.claimCas - lineCas).toBe(x12Cents(c.clp[4]!));
      // CLP05 = what the member owes: the PR adjustments.
      expect(x12Cents(c.clp[5]!)).toBe(c.prCas);
      for (const l of c.lines) expect(x12Cents(l.svc[2]!) - l.cas).toBe(x12Cents(l.svc[3]!));
      // The lines pay the claim's payment.
      expect(c.lines.reduce((sum, l) => sum + x12Cents(l.svc[3]!), 0)).toBe(x12Cents(c.clp[4]!) - 0);
    }
    return {
      segments,
      bpr,
      trn: segments.find((s) => s[0] === 'TRN')!,
      payee: segments.find((s) => s[0] === 'N1' && s[1] === 'PE')!,
      claims,
      plbCents,
    };
  });
  return { interchange, transactions };
}
