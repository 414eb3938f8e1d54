// The authorization code is the approver's reference: the recommended format is checked (and only
// warned about), control characters and empty codes are refused, and the prefix offered follows the
// format with the engine's day.
import { describe, expect, it } from 'vitest';
import { authorizationCodeProblem, authorizationPrefix, hasRecommendedShape, isRecommendedPrefix, nextAuthorizationCode } from '../../src/domain/funding.js';

describe('authorization codes', () => {
  it('the recommended shape is AUTH-<date>-<organization>-<sequence>, in any case', () => {
    for (const code of ['AUTH-20260630-ACME-0001', 'auth-20260630-acme-12', ' AUTH-20261126-ORG2-0003 ']) expect(hasRecommendedShape(code), code).toBe(true);
    for (const code of ['my-ref-7', 'AUTH-X', 'AUTH-2026-06-30-ACME-0001', 'AUTH-20260630-ACME', 'AUTH-20260630--0001', 'AUTH-20260630-AC ME-0001'])
      expect(hasRecommendedShape(code), code).toBe(false);
    expect(isRecommendedPrefix('AUTH-20260630-ACME')).toBe(true);
    expect(isRecommendedPrefix('AUTH-20260630-RUN2')).toBe(true);
    expect(isRecommendedPrefix('AUTH-S')).toBe(false);
  });

  it('an empty code and one with control characters cannot be sent; any other shape can', () => {
    expect(authorizationCodeProblem('  ')).toBe('required');
    expect(authorizationCodeProblem('AUTH-1\u001b[31m')).toBe('must not hold control characters');
    expect(authorizationCodeProblem('AUTH-1\u0085')).toBe('must not hold control characters');
    expect(authorizationCodeProblem('my own ref')).toBeUndefined();
  });

  it('the code offered is the format with the day given and the payer, after the highest used', () => {
    const prefix = authorizationPrefix('PAYER-ACME', '2026-06-30');
    expect(prefix).toBe('AUTH-20260630-ACME');
    expect(nextAuthorizationCode(prefix, ['auth-20260630-acme-0002', 'AUTH-20260630-ACME-0001', 'my-ref'])).toBe('AUTH-20260630-ACME-0003');
    expect(hasRecommendedShape(nextAuthorizationCode(prefix, []))).toBe(true);
  });
});
