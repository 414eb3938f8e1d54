// `tpa fund run --npi`: funding is per encounter, one approval for its whole benefit, so
// a run for one provider releases the whole encounters it is on. The review says so before anything
// is confirmed, and the JSON carries the other providers' payouts that ride on the same transfers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../../src/domain/claim-template.js';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { cents, ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
type Row = Record<string, any>;
let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

const SURGEON = '1045782368';

describe('tpa fund run --npi', () => {
  it("shows and carries, before confirmation, the other providers' payouts the same transfers release", async () => {
    // Two institutional encounters (facility, surgeon, anesthesia, pathology) and one the surgeon is not on.
    const claims = [
      claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-06-01' }),
      claimTemplate({ type: 'institutional', patient: 'MBR-1003', serviceDate: '2026-06-02' }),
      claimTemplate({ type: 'professional', npi: '1582736496', cpt: ['29881'], patient: 'MBR-1001', serviceDate: '2026-06-03' }),
    ];
    writeFileSync(join(home, 'claims.ndjson'), `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`);
    expect((await runTpa(['claim', 'submit', 'claims.ndjson', '-o', 'ndjson'], { home, env })).code).toBe(0);

    const dry = await runTpa(['fund', 'run', '--dry-run', '--npi', SURGEON, '-o', 'json'], { home, env });
    expect(dry.code, dry.stderr).toBe(0);
    const review = dry.json<Row>();
    expect(review.count).toBe(2);
    // Whole encounters: the total is their benefit, not the surgeon's share.
    const payouts = review.encounters.flatMap((e: Row) => e.payouts as Row[]);
    expect(cents(review.total)).toBe(payouts.reduce((s: number, p: Row) => s + cents(p.amount), 0));
    const mine = payouts.filter((p: Row) => p.provider_npi === SURGEON);
    const others = payouts.filter((p: Row) => p.provider_npi !== SURGEON);
    expect(mine).toHaveLength(2);
    expect(new Set(others.map((p: Row) => p.provider_npi)).size).toBe(3);
    expect(review.npi.npi).toBe(SURGEON);
    expect(cents(review.npi.amount)).toBe(mine.reduce((s: number, p: Row) => s + cents(p.amount), 0));
    expect(cents(review.npi.other_providers_amount)).toBe(others.reduce((s: number, p: Row) => s + cents(p.amount), 0));
    expect(review.other_providers.map((p: Row) => p.npi).sort()).toEqual([...new Set(others.map((p: Row) => p.provider_npi as string))].sort());
    for (const e of review.encounters) expect(cents(e.npi_amount) + cents(e.other_providers_amount)).toBe(cents(e.amount));

    // csv: one flat row per encounter, with its amount to the provider and to the others.
    const csv = await runTpa(['fund', 'run', '--dry-run', '--npi', SURGEON, '-o', 'csv'], { home, env });
    expect(csv.stdout.split('\n')[0]).toBe(
      'encounter_id,encounter_number,service_date,provider_npi,provider_name,amount,npi_amount,other_providers_amount,authorization_code',
    );
    // Amounts with two decimals, as a spreadsheet shows money.
    for (const line of csv.stdout.trim().split('\n').slice(1)) expect(line, line).toMatch(/,\d+\.\d\d,\d+\.\d\d,\d+\.\d\d,[^,]*$/);

    // --json names the fields the dry run prints: the split by provider among them.
    const shaped = await runTpa(['fund', 'run', '--dry-run', '--npi', SURGEON, '--json', 'encounter_id,npi_amount,other_providers_amount'], { home, env });
    expect(shaped.code, shaped.stderr).toBe(0);
    const split = shaped.json<Row[]>();
    expect(split.map((e) => e.encounter_id).sort()).toEqual(review.encounters.map((e: Row) => e.encounter_id).sort());
    for (const e of split)
      expect(cents(e.npi_amount) + cents(e.other_providers_amount)).toBe(cents(review.encounters.find((r: Row) => r.encounter_id === e.encounter_id).amount));

    // The review shown before confirmation says it; a wrong total then sends nothing.
    const run = await runTpa(['fund', 'run', '--npi', SURGEON, '--auth-code-prefix', 'AUTH-NPI', '--expect-total', '1.00', '--yes', '-o', 'ndjson'], {
      home,
      env,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/--npi 1045782368 selects the encounters it is on, and each approval releases its encounter's whole benefit/);
    expect(run.stderr).toMatch(/to 3 other providers on the same transfers/);
    // Each of the others is marked in the providers table.
    expect(run.stderr.match(/\(other\) /g)).toHaveLength(3);

    // Confirmed, it releases exactly what the review showed: the whole encounters.
    const ok = await runTpa(
      ['fund', 'run', '--npi', SURGEON, '--auth-code-prefix', 'AUTH-NPI2', '--expect-total', String(review.total), '--yes', '-o', 'ndjson'],
      {
        home,
        env,
      },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const approved = ndjson(ok.stdout);
    expect(approved.map((o) => o.status)).toEqual(['APPROVED', 'APPROVED']);
    for (const e of review.encounters) {
      const s = (await runTpa(['settlement', 'show', e.encounter_id, '-o', 'json'], { home, env })).json<Row>();
      expect(s.payouts.map((p: Row) => [p.provider_npi, p.amount])).toEqual(e.payouts.map((p: Row) => [p.provider_npi, cents(p.amount) / 100]));
    }
  });

  it('at 80 columns, the warning about the other providers wraps at spaces: no amount, NPI or word is cut', async () => {
    const claims = [
      claimTemplate({ type: 'institutional', patient: 'MBR-1002', serviceDate: '2026-06-01' }),
      claimTemplate({ type: 'institutional', patient: 'MBR-1003', serviceDate: '2026-06-02' }),
    ];
    writeFileSync(join(home, 'claims.ndjson'), `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`);
    expect((await runTpa(['claim', 'submit', 'claims.ndjson', '-o', 'ndjson'], { home, env })).code).toBe(0);
    const review = (await runTpa(['fund', 'run', '--dry-run', '--npi', SURGEON, '-o', 'json'], { home, env })).json<Row>();
    const run = await runTpa(['fund', 'run', '--npi', SURGEON, '--auth-code-prefix', 'AUTH-NPI', '--expect-total', '1.00', '--yes'], {
      home,
      env: { ...env, NO_COLOR: '1' },
      tty: true,
      columns: 80,
    });
    expect(run.code).toBe(4);
    // What stays on screen: the lines between the progress line's rewrites.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the progress line's escape codes are what this takes off
    const lines = run.stderr.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').split(/\r|\n/);
    // The warning's words, amounts and NPIs each whole on a line: joined at its line breaks it is the sentence.
    const start = lines.findIndex((l) => l.startsWith(`--npi ${SURGEON}`));
    const end = lines.findIndex((l, i) => i >= start && l.endsWith('(below).'));
    expect(start, run.stderr).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    for (const l of lines.slice(start, end + 1)) expect(l.length, l).toBeLessThanOrEqual(80);
    const [, mine, others] = /benefit: ([\d,]+\.\d\d) to 1045782368, and ([\d,]+\.\d\d) to 3 other providers on the same transfers \(below\)\.$/.exec(
      lines.slice(start, end + 1).join(' '),
    )!;
    expect(cents(mine!.replace(/,/g, '')) + cents(others!.replace(/,/g, ''))).toBe(cents(review.total));
  });
});
