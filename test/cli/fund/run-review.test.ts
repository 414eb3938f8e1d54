// The payment run's review above its confirmation, drawn for an 80-column terminal: with more
// providers than fit, the largest are shown and the rest counted with the command that lists them,
// so that the total and the prompt stay on a 24-row screen; each provider is one line, its NPI and
// amounts whole (a long name is cut with …).
import { describe, expect, it } from 'vitest';
import type { RunPlan } from '../../../src/jobs/payment-run.js';
import { MAX_REVIEW_PROVIDERS, type Review, reviewText } from '../../../src/cli/commands/fund/run-review.js';
import { formatCentsGrouped } from '../../../src/domain/money.js';
import { emptyProviderLine } from '../../../src/domain/report.js';
import { tableTools } from '../../../src/render/output.js';

/** A review of `n` providers, the i-th paid (n - i) × 1,000.00, with long names. */
function reviewOf(n: number): Review {
  const providers = Array.from({ length: n }, (_, i) => ({
    ...emptyProviderLine(`10000000${String(i).padStart(2, '0')}`, `Provider number ${i + 1} of a very long practice name, LLC`),
    payouts: 1,
    amountCents: (n - i) * 100_000,
    feeCents: (n - i) * 2_230,
    netCents: (n - i) * 97_770,
  }));
  const total = providers.reduce((s, p) => s + p.amountCents, 0);
  const plan: RunPlan = { created_at: '2026-06-30T12:00:00Z', filters: {}, prefix: '<prefix>', total_cents: total, encounters: [] };
  return { plan, providers, payouts: new Map() };
}

describe('the review above a payment run confirmation', () => {
  it(`at 80 columns, ${MAX_REVIEW_PROVIDERS} providers at most, the largest, one line each with the NPI and amounts whole; the rest counted, with the command that lists them`, async () => {
    const t = await tableTools(false, 80);
    const text = reviewText(t, reviewOf(11), 'Payment run', false, 'tpa fund run --dry-run --from 2026-06-01');
    const lines = text.split('\n');
    for (const line of lines) expect(line.length, text).toBeLessThanOrEqual(80);
    const rows = lines.filter((l) => /^│ /.test(l) && !l.includes('NPI'));
    expect(rows, text).toHaveLength(MAX_REVIEW_PROVIDERS);
    for (let i = 0; i < MAX_REVIEW_PROVIDERS; i++) {
      expect(rows[i], text).toContain(`10000000${String(i).padStart(2, '0')}`);
      expect(rows[i], text).toContain(formatCentsGrouped((11 - i) * 100_000));
      expect(rows[i], text).toContain('…');
    }
    expect(lines.at(-1)).toBe('… and 5 more providers; the list: tpa fund run --dry-run --from 2026-06-01');
    // The total stands above the table; with the other lines of the screen (where the money moves,
    // the listing, the code's line, the two prompts) it all fits 24 rows.
    expect(lines[0]).toBe(`Payment run: 0 encounters, ${formatCentsGrouped(reviewOf(11).plan.total_cents)} in all`);
    expect(lines.length).toBeLessThanOrEqual(24 - 8);
  });

  it('one more than the cap is shown whole (a line saying "1 more" would take the same room); a dry run lists every provider', async () => {
    const t = await tableTools(false, 80);
    const seven = reviewText(t, reviewOf(MAX_REVIEW_PROVIDERS + 1), 'Payment run', false, 'tpa fund run --dry-run');
    expect(seven).not.toMatch(/more provider/);
    expect(seven.split('\n').filter((l) => /^│ /.test(l) && !l.includes('NPI'))).toHaveLength(MAX_REVIEW_PROVIDERS + 1);
    const dry = reviewText(t, reviewOf(11), 'Payment run (dry run: nothing is sent)', true);
    expect(dry).not.toMatch(/more provider/);
    expect(dry).toContain('1000000010');
  });
});
