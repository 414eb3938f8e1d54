// Money in time through the CLI: `ratesheet finalize --effective-date
// / --retroactive` and `lookup full --date`, a first-release database opened in a new plan year,
// and `local clock` refusing to go back before what the engine recorded.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';

type Body = Record<string, any>;
const home = useTpaHome(beforeEach, afterEach);
const APRIL = { TPA_CLOCK: '2026-04-10T10:00:00Z' };
const SURGEON = ['--npi', '1045782368', '--group', 'GRP-1001'];

/** Dates a claim's service (and its creation) on one day. */
const onDay = (date: string) => (claim: Body) => {
  for (const item of claim.item) item.servicedDate = date;
  claim.billablePeriod = { start: date, end: date };
  claim.created = date;
};

describe('tpa ratesheet finalize and tpa lookup full --date', () => {
  it('a renewal is in force from its effective date; the lookup answers the rate of the date asked', async () => {
    const run = (args: string[]) => home.run(args, APRIL);
    expect((await run(['ratesheet', 'init', 'BLD-1002'])).code).toBe(0);
    expect((await run(['ratesheet', 'add', 'BLD-1002', '--ssp', 'GI-0101', '--rate-type', 'CASE_RATE', '--rate', '1312.50'])).code).toBe(0);
    const early = await run(['ratesheet', 'finalize', 'BLD-1002', '--effective-date', '2026-03-01', '--yes']);
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/effective_date: 2026-03-01 is before today \(2026-04-10\).*--retroactive/);
    const today = await run(['ratesheet', 'finalize', 'BLD-1002', '--effective-date', '2026-04-10', '--yes']);
    expect(today.code).toBe(2);
    expect(today.stderr).toMatch(/effective_date: 2026-04-10 is today.*2026-04-11.*--retroactive/);
    // By default the rates take effect tomorrow: today's services keep today's rate.
    const done = await run(['ratesheet', 'finalize', 'BLD-1002', '--yes', '-o', 'json']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json()).toMatchObject({ status: 'FINALIZED', effective_date: '2026-04-11' });

    const full = async (...extra: string[]) => (await run(['lookup', 'full', 'ctr_8d21b5e09f4c7a13', ...SURGEON, '--cpt', '45378', ...extra])).json<Body>();
    expect(await full()).toMatchObject({ negotiated_rate: 425, service_date: '2026-04-10', rate_effective_to: '2026-04-10' });
    expect(await full('--date', '2026-04-11')).toMatchObject({ negotiated_rate: 1312.5, rate_effective_from: '2026-04-11' });
    expect(await full('--date', '2026-03-16')).toMatchObject({ negotiated_rate: 425, rate_effective_to: '2026-04-10' });
    const table = await run(['lookup', 'full', 'ctr_8d21b5e09f4c7a13', ...SURGEON, '--cpt', '45378', '--date', '2026-03-16', '-o', 'table']);
    expect(table.stdout).toMatch(/Rate in force\s+on 2026-03-16 \(2025-01-01 → 2026-04-10\)/);
    const bad = await run(['lookup', 'full', 'ctr_8d21b5e09f4c7a13', ...SURGEON, '--cpt', '45378', '--date', '16/03/2026']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--date: must be a date as YYYY-MM-DD/);

    // A March service claimed after the renewal is still priced at March's rate.
    const march = await adjudicatedEncounter((args, env) => home.run(args, { ...APRIL, ...env }), home.dir, {
      template: ['--type', 'professional', '--patient', 'MBR-1003'],
      edit: onDay('2026-03-16'),
    });
    expect(march.response.adjudication.allowed_amount).toBe(425);
  });

  it('--retroactive lets the rates take effect before today', async () => {
    const run = (args: string[]) => home.run(args, APRIL);
    await run(['ratesheet', 'init', 'BLD-1002']);
    await run(['ratesheet', 'add', 'BLD-1002', '--ssp', 'GI-0101', '--rate-type', 'CASE_RATE', '--rate', '1312.50']);
    const done = await run(['ratesheet', 'finalize', 'BLD-1002', '--effective-date', '2026-03-01', '--retroactive', '--yes', '-o', 'json']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json()).toMatchObject({ effective_date: '2026-03-01' });
    expect((await run(['lookup', 'full', 'ctr_8d21b5e09f4c7a13', ...SURGEON, '--cpt', '45378', '--date', '2026-03-16'])).json()).toMatchObject({
      negotiated_rate: 1312.5,
    });
  });
});

describe('a first-release database opened in a new plan year', () => {
  it('shows and applies this year’s deductible from nothing met, and last year’s as it was', async () => {
    copyFileSync(join(__dirname, '../fixtures/upgrade/first-release.sqlite'), join(home.dir, 'local.sqlite'));
    const JANUARY = { TPA_CLOCK: '2027-01-15T10:00:00Z' };
    const fixtures = await home.run(['local', 'fixtures', '-o', 'json'], JANUARY);
    expect(fixtures.code, fixtures.stderr).toBe(0);
    expect(fixtures.json<{ members: Body[] }>().members.find((m) => m.member_id === 'MBR-1001')).toMatchObject({ deductible_met: 0 });
    const run = (args: string[], env?: Record<string, string>) => home.run(args, { ...JANUARY, ...env });
    const january = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional', '--patient', 'MBR-1001'], edit: onDay('2027-01-14') });
    expect(january.response.adjudication.deductible_applied).toBe(400);
    const december = await adjudicatedEncounter(run, home.dir, {
      template: ['--type', 'professional', '--patient', 'MBR-1001', '--cpt', '43235'],
      edit: onDay('2026-12-20'),
    });
    expect(december.response.adjudication.deductible_applied).toBe(0);
  });
});

describe('tpa local clock never goes back before what the engine recorded', () => {
  it('set and advance to an earlier time exit 2 naming the latest time; a TPA_CLOCK earlier is held', async () => {
    const run = home.run;
    expect((await run(['local', 'clock', 'set', '2026-03-05T10:00:00Z'])).code).toBe(0);
    await adjudicatedEncounter(run, home.dir, { template: ['--type', 'professional'] });
    const back = await run(['local', 'clock', 'set', '2026-03-01T00:00:00Z']);
    expect(back.code).toBe(2);
    expect(back.stdout).toBe('');
    expect(back.stderr).toContain(
      'the engine has recorded events up to 2026-03-05T10:00:00Z; the clock cannot go back before it (tpa local clock real to use real time)',
    );
    expect((await run(['local', 'clock', '-o', 'json'])).json()).toMatchObject({ now: '2026-03-05T10:00:00Z', source: 'frozen' });

    // A process whose TPA_CLOCK is a day later records a funding; the stored clock cannot then advance by an hour.
    const claim = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional'] });
    const later = { TPA_CLOCK: '2026-03-06T10:00:00Z' };
    const funded = await run(['fund', 'approve', claim.id, '--amount', claim.amount, '--auth-code', 'AUTH-20260306-ACME-0001', '--yes'], later);
    expect(funded.code, funded.stderr).toBe(0);
    const advance = await run(['local', 'clock', 'advance', '1h']);
    expect(advance.code).toBe(2);
    expect(advance.stderr).toContain('recorded events up to 2026-03-06T10:00:00Z');

    // A TPA_CLOCK earlier than the records: the engine's time is held at the latest, and says so.
    const held = await run(['local', 'clock', '-o', 'table'], { TPA_CLOCK: '2026-03-02T00:00:00Z' });
    expect(held.stdout).toMatch(/Engine time\s+2026-03-06T10:00:00Z/);
    expect(held.stdout).toMatch(/Held\s+the clock says 2026-03-02T00:00:00Z/);
    const settlement = await run(['settlement', 'show', claim.id, '-o', 'json'], { TPA_CLOCK: '2026-03-02T00:00:00Z' });
    expect(settlement.json<Body>().initiated_at).toBe('2026-03-06T10:00:00Z');

    expect((await run(['local', 'clock', 'reset', '-o', 'json'])).json()).toMatchObject({ source: 'real' });
    expect((await run(['local', 'clock', 'advance', '1d'])).code).toBe(0);
  });
});
