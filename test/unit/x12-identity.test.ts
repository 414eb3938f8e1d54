// An X12 claim's identity (docs/x12.md "837 in", its "Journal"): its parts joined by `:`, each with `%`, `:` and `#`
// escaped, so that an ordinary identity is what it always was and no two claims share one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identityPart, x12Identity } from '../../src/domain/x12-identity.js';

describe('an X12 identity', () => {
  it('of ordinary parts is byte for byte what it was; the # of a repeated CLM01 follows the escaped CLM01', () => {
    expect(x12Identity({ isa06: 'SUBMITTER', isa13: '000000001', gs06: '1', st02: '0001', clm01: 'PATIENT123' })).toBe(
      'x12:SUBMITTER:000000001:1:0001:PATIENT123',
    );
    expect(x12Identity({ isa06: 'S', isa13: '000000001', gs06: '1', st02: '0001', clm01: 'P1' }, 2)).toBe('x12:S:000000001:1:0001:P1#2');
    expect(x12Identity({ isa06: 'S', isa13: '000000001', gs06: '1', st02: '0001', clm01: 'P1#2' })).toBe('x12:S:000000001:1:0001:P1%232');
    expect(identityPart('a%3A:b#')).toBe('a%253A%3Ab%23');
  });

  it("two interchanges whose parts hold ':' (ISA16 '>') are two identities", () => {
    const a = x12Identity({ isa06: 'S:000000002', isa13: '000000003', gs06: '4', st02: '0005', clm01: 'C1' });
    const b = x12Identity({ isa06: 'S', isa13: '000000002', gs06: '000000003', st02: '4:0005', clm01: 'C1' });
    expect(a).toBe('x12:S%3A000000002:000000003:4:0005:C1');
    expect(b).toBe('x12:S:000000002:000000003:4%3A0005:C1');
    expect(a).not.toBe(b);
  });

  it('distinct tuples (with or without a place) give distinct identities', () => {
    const part = fc.string({ unit: fc.constantFrom('a', '1', ':', '#', '%', '3', 'A', '2', ' '), maxLength: 6 });
    const tuple = fc.record({
      isa06: part,
      isa13: part,
      gs06: part,
      st02: part,
      clm01: part,
      ordinal: fc.option(fc.integer({ min: 2, max: 12 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(tuple, tuple, (x, y) => {
        const key = (t: typeof x) => JSON.stringify([t.isa06, t.isa13, t.gs06, t.st02, t.clm01, t.ordinal ?? null]);
        fc.pre(key(x) !== key(y));
        expect(x12Identity(x, x.ordinal)).not.toBe(x12Identity(y, y.ordinal));
      }),
      { numRuns: 2000 },
    );
  });
});
