// The duplicate rule's distinct service (docs/money-rules.md "Duplicates"): which modifiers make a
// line another service of its code and date, read as a set.
import { describe, expect, it } from 'vitest';
import { DISTINCT_SERVICE_MODIFIERS, distinctServiceKey, modifierProblem } from '../../src/domain/modifiers.js';

describe('distinctServiceKey', () => {
  it('is empty for a line without modifiers or with pricing modifiers only', () => {
    expect(distinctServiceKey(undefined)).toBe('');
    expect(distinctServiceKey([])).toBe('');
    expect(distinctServiceKey(['26', 'TC', '50', '80', 'LT'])).toBe('');
  });

  it('keeps each distinct-service modifier once, whatever the order and the other modifiers', () => {
    expect(distinctServiceKey(['XS', '59'])).toBe(distinctServiceKey(['59', 'XS']));
    expect(distinctServiceKey(['59', '26', '59'])).toBe(distinctServiceKey(['59']));
    expect(distinctServiceKey(['59'])).not.toBe(distinctServiceKey(['XS']));
    expect(distinctServiceKey(['59'])).not.toBe(distinctServiceKey(['59', 'XS']));
    expect(distinctServiceKey(['XS', '59'])).toBe('59+XS');
  });

  it('the distinct-service modifiers are 59, XE, XS, XP, XU, 76, 77 and 91', () => {
    expect([...DISTINCT_SERVICE_MODIFIERS].sort()).toEqual(['59', '76', '77', '91', 'XE', 'XP', 'XS', 'XU']);
    for (const m of DISTINCT_SERVICE_MODIFIERS) expect(distinctServiceKey([m])).toBe(m);
  });
});

describe('modifierProblem', () => {
  it('takes two letters or digits, and names anything else', () => {
    expect(modifierProblem('59')).toBeUndefined();
    expect(modifierProblem('xs')).toBeUndefined();
    expect(modifierProblem('5')).toMatch(/2-character/);
    expect(modifierProblem('5*')).toMatch(/2-character/);
    expect(modifierProblem('')).toMatch(/is missing/);
    expect(modifierProblem(undefined)).toMatch(/is missing/);
    expect(modifierProblem(59)).toMatch(/as text \(got 59\)/);
  });
});
