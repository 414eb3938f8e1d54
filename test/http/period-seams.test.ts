// A period's figures are complete and each transfer falls in exactly one period and one payee, in
// process and over `tpa local serve` (docs/periods.md): a July service paid in November is in
// November's report and 835 without any option (a --lookback read is partial and says so); an
// encounter funded in October, failed, funded again in November and refunded shows each transfer in
// its own month; a payment initiated on Friday 30 October and arriving on Monday 2 November is in
// November's 835 only; and the activity of each provider of a four-provider encounter is its own
// share, so the providers' figures add up to the whole. The sections around the money split by
// period too (reconciliation, exceptions, per-provider rows, NDJSON lines, settled per day), and two
// `activity --since 24h` runs a day apart share no instant.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { formatCents } from '../../src/domain/money.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { login, serve, type Served } from '../helpers/server.js';
import { cents, ndjson, REPORT_MONEY_FIELDS } from '../helpers/values.js';
import { checked835 } from '../helpers/x12-835-check.js';

type Row = Record<string, any>;
let home: ReturnType<typeof tempDir>;
let server: Served;
const END = '2026-12-01T09:00:00Z';
const local = (args: string[]) => runTpa(args, { home: home.dir });
const remote = (args: string[]) => runTpa(args, { home: home.dir, env: { TPA_PROFILE: 'sandbox' } });
const transports = [
  ['in-process', local],
  ['over local serve', remote],
] as const;

/** The encounters of the story, their benefit and transfers. */
const ids: Record<'july' | 'again' | 'friday' | 'team', string> = { july: '', again: '', friday: '', team: '' };
const benefit: Record<string, number> = {};
/** October's 835 as run at October's close (the 31st), before the Friday payment arrived. */
let octoberAtClose: { code: number | null; stdout: string; stderr: string };

async function at(clock: string, args: string[]) {
  const r = await runTpa(args, { home: home.dir, env: { TPA_CLOCK: clock } });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

beforeAll(async () => {
  home = tempDir();
  const claims = [
    claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45380'], patient: 'MBR-1003', serviceDate: '2026-07-10' }),
    claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45380'], patient: 'MBR-1003', serviceDate: '2026-10-15' }),
    claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45380'], patient: 'MBR-1003', serviceDate: '2026-10-16' }),
    claimTemplate({ type: 'institutional', npi: '1234567893', cpt: ['45380', '00811', '88305'], patient: 'MBR-1002', serviceDate: '2026-10-19' }),
  ];
  writeFileSync(join(home.dir, 'claims.ndjson'), `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`);
  await at('2026-10-20T10:00:00Z', ['claim', 'submit', 'claims.ndjson', '-o', 'ndjson']);
  const entries = ndjson<Row>((await at('2026-10-20T10:00:00Z', ['ledger', 'list', '--all', '-o', 'ndjson'])).stdout);
  const on = (date: string) => entries.find((e) => e.service_date === date)!;
  for (const [name, date] of [
    ['july', '2026-07-10'],
    ['again', '2026-10-15'],
    ['friday', '2026-10-16'],
    ['team', '2026-10-19'],
  ] as const) {
    const e = on(date);
    expect(e.status, name).toBe('ADJUDICATED');
    ids[name] = e.encounter_id;
    benefit[name] = cents(e.financial_summary.benefit_amount);
    expect(benefit[name], name).toBeGreaterThan(0);
  }
  let n = 0;
  const fund = (clock: string, name: keyof typeof ids) =>
    at(clock, [
      'fund',
      'approve',
      ids[name],
      '--amount',
      formatCents(benefit[name]!),
      '--auth-code',
      `AUTH-${clock.slice(0, 10).replaceAll('-', '')}-SEAM-000${++n}`,
      '--yes',
    ]);
  // Funded Tuesday 20 October, failed the same day.
  await fund('2026-10-20T11:00:00Z', 'again');
  await at('2026-10-20T12:00:00Z', ['local', 'simulate', 'settlement-failure', ids.again]);
  // Initiated Friday 30 October: it arrives Monday 2 November (T+1 business day).
  await fund('2026-10-30T15:00:00Z', 'friday');
  octoberAtClose = await runTpa(['settlement', 'remit', '--from', '2026-10-01', '--to', '2026-10-31'], {
    home: home.dir,
    env: { TPA_CLOCK: '2026-10-31T12:00:00Z' },
  });
  // The July service and the four-provider encounter paid in November.
  await fund('2026-11-03T11:00:00Z', 'july');
  await fund('2026-11-03T11:00:00Z', 'team');
  // Funded again in November, arrived, then refunded in November.
  await fund('2026-11-05T10:00:00Z', 'again');
  await at('2026-11-10T10:00:00Z', ['local', 'simulate', 'refund', ids.again]);
  expect((await local(['local', 'clock', 'set', END])).code).toBe(0);
  server = await serve(home.dir);
  await login(home.dir, server.url);
});
afterAll(async () => {
  await server?.stop();
  home.remove();
});

const report = async (run: typeof local, from: string, to: string, more: string[] = []) => {
  const r = await run(['settlement', 'report', '--from', from, '--to', to, '--by', 'funded', '-o', 'json', ...more]);
  expect(r.code, r.stderr).toBe(0);
  return { ...r, report: r.json<Row>() };
};
const transfersOf = async (run: typeof local, from: string, to: string, more: string[] = []) => {
  const r = await run(['settlement', 'remit', '--from', from, '--to', to, ...more]);
  expect(r.code, r.stderr).toBe(0);
  return { ...r, trns: r.stdout === '' ? [] : checked835(r.stdout).transactions.map((t) => `${t.trn[2]} ${t.bpr[1]}`) };
};
const transferIds = async (name: keyof typeof ids) => {
  const s = (await local(['settlement', 'show', ids[name], '-o', 'json'])).json<Row>();
  return [...(s.previous_transfers ?? []), s].map((t: Row) => t.processor_transfer_id as string);
};

describe('a period is complete by default', () => {
  for (const [name, run] of transports) {
    it(`a July service paid in November is in November's report --by funded and 835; --lookback 30 leaves it out and says so (${name})`, async () => {
      const [july] = await transferIds('july');
      const whole = await report(run, '2026-11-01', '2026-11-30');
      expect(whole.report.scan).toMatchObject({ service_from: null, entries_not_read: 0, complete: true });
      expect(whole.report.encounters.count).toBe(3);
      expect(cents(whole.report.money.released)).toBe(benefit.july! + benefit.team! + benefit.again!);
      expect(whole.stderr).not.toMatch(/partial read/);
      const remit = await transfersOf(run, '2026-11-01', '2026-11-30');
      expect(remit.trns.filter((t) => t.startsWith(july!))).toEqual([`${july} I`]);

      const partial = await report(run, '2026-11-01', '2026-11-30', ['--lookback', '30']);
      expect(partial.report.scan).toMatchObject({ service_from: '2026-10-02', lookback_days: 30, entries_not_read: 1, complete: false });
      expect(cents(partial.report.money.released)).toBe(benefit.team! + benefit.again!);
      expect(partial.stderr).toMatch(/warning: partial read \(--lookback 30\): 1 entry of service dates before 2026-10-02 not read/);
      for (const format of ['csv', 'ndjson', 'table']) {
        const r = await run(['settlement', 'report', '--from', '2026-11-01', '--to', '2026-11-30', '--by', 'funded', '--lookback', '30', '-o', format]);
        expect(r.stderr, format).toMatch(/warning: partial read/);
        if (format === 'table') expect(r.stdout).toMatch(/PARTIAL: 1 entry of earlier service dates not read/);
      }
      const listed = ['ledger', 'list', '--from', '2026-11-01', '--to', '2026-11-30', '--by', 'funded', '-o', 'json'];
      expect((await run(listed)).json<Row[]>().map((e) => e.encounter_id)).toContain(ids.july);
      const listedPartial = await run([...listed, '--lookback', '30']);
      expect(listedPartial.json<Row[]>().map((e) => e.encounter_id)).not.toContain(ids.july);
      expect(listedPartial.stderr).toMatch(/warning: partial read \(--lookback 30\): 1 entry/);
      const remitPartial = await transfersOf(run, '2026-11-01', '2026-11-30', ['--lookback', '30']);
      expect(remitPartial.trns.some((t) => t.startsWith(july!))).toBe(false);
      expect(remitPartial.stderr).toMatch(/warning: partial read \(--lookback 30\): 1 entry of service dates before 2026-10-02 not read/);
    });
  }
});

describe('each transfer in exactly one period', () => {
  for (const [name, run] of transports) {
    it(`report --by funded: October shows October's failed transfer, November November's released and refunded; the months add up to both (${name})`, async () => {
      const october = (await report(run, '2026-10-01', '2026-10-31')).report;
      const november = (await report(run, '2026-11-01', '2026-11-30')).report;
      const both = (await report(run, '2026-10-01', '2026-11-30')).report;
      // October: the Friday transfer (in transit at the month's end, settled since) and the failed one.
      expect(cents(october.money.released)).toBe(benefit.friday!);
      expect(cents(october.money.failed)).toBe(benefit.again!);
      expect(cents(october.money.released_then_refunded)).toBe(0);
      expect(cents(october.money.came_back)).toBe(0);
      expect(october.money.transfers).toEqual({ COMPLETED: 1, FAILED: 1 });
      // November: the transfer funded again, released then refunded, and what came back.
      expect(cents(november.money.released)).toBe(benefit.july! + benefit.team! + benefit.again!);
      expect(cents(november.money.released_then_refunded)).toBe(benefit.again!);
      expect(cents(november.money.failed)).toBe(0);
      expect(cents(november.money.came_back)).toBeGreaterThan(0);
      expect(november.money.transfers).toEqual({ COMPLETED: 2, REFUNDED: 1 });
      for (const k of REPORT_MONEY_FIELDS) expect(cents(october.money[k]) + cents(november.money[k]), k).toBe(cents(both.money[k]));
    });

    it(`a payment initiated on 30 October and arriving on 2 November is in November's 835 only (${name})`, async () => {
      const [friday] = await transferIds('friday');
      const october = await transfersOf(run, '2026-10-01', '2026-10-31');
      const november = await transfersOf(run, '2026-11-01', '2026-11-30');
      expect(october.trns).toEqual([]);
      expect(october.stderr).toMatch(/no 835 written: no transfer arrived \(was paid\) or was refunded from 2026-10-01 to 2026-10-31/);
      expect(november.trns.filter((t) => t.startsWith(friday!))).toEqual([`${friday} I`]);
      // Every payment of the two months once: the COMPLETED and REFUNDED transfers' payees, and one reversal a payee of the refunded one.
      const [, againPaid] = await transferIds('again');
      const payments = november.trns.filter((t) => t.endsWith(' I')).map((t) => t.split(' ')[0]);
      expect([...new Set(payments)].sort()).toEqual([friday, (await transferIds('july'))[0], (await transferIds('team'))[0], againPaid].sort());
    });
  }

  it("at October's close, the Friday payment still in transit is in no October 835, and the note says so truly", () => {
    expect(octoberAtClose.code, octoberAtClose.stderr).toBe(0);
    expect(octoberAtClose.stdout).toBe('');
    expect(octoberAtClose.stderr).toMatch(/no 835 written: no transfer arrived \(was paid\) or was refunded from 2026-10-01 to 2026-10-31/);
    expect(octoberAtClose.stderr).toMatch(
      /1 transfer initiated from 2026-10-01 to 2026-10-31 had not arrived yet: each is in the 835 of the period it arrives in/,
    );
  });

  for (const [name, run] of transports) {
    it(`report --by settled and the 835s: any cut of October to November adds up to the whole, each payee's to all payees' (${name})`, async () => {
      const settled = async (from: string, to: string, more: string[] = []) => {
        const r = await run(['settlement', 'report', '--from', from, '--to', to, '--by', 'settled', '-o', 'json', ...more]);
        expect(r.code, r.stderr).toBe(0);
        return r.json<Row>();
      };
      const cuts = [
        ['2026-10-01', '2026-11-01'],
        ['2026-11-02', '2026-11-05'],
        ['2026-11-06', '2026-11-30'],
      ];
      const whole = await settled('2026-10-01', '2026-11-30');
      // Everything that arrived: the Friday payment, the July and team payments, and the one refunded since.
      expect(cents(whole.money.released)).toBe(benefit.friday! + benefit.july! + benefit.team! + benefit.again!);
      const parts = await Promise.all(cuts.map(([from, to]) => settled(from!, to!)));
      for (const k of ['released', 'settled', 'released_then_refunded', 'came_back', 'fees_charged', 'fees_kept', 'net_to_providers', 'failed'])
        expect(
          parts.reduce((sum, p) => sum + cents(p.money[k]), 0),
          k,
        ).toBe(cents(whole.money[k]));
      // The Friday payment arrived on Monday 2 November: in the second cut, not the first.
      expect(cents(parts[0]!.money.released)).toBe(0);
      // Per payee: the providers' reports add up to the whole, and so do their 835s.
      const npis = [...new Set((whole.providers as Row[]).map((p) => p.npi as string))];
      expect(npis.length).toBeGreaterThan(1);
      let released = 0;
      for (const npi of npis) released += cents((await settled('2026-10-01', '2026-11-30', ['--npi', npi])).money.released);
      expect(released).toBe(cents(whole.money.released));
      const all = (await transfersOf(run, '2026-10-01', '2026-11-30')).trns;
      const byPayee: string[] = [];
      for (const npi of npis) byPayee.push(...(await transfersOf(run, '2026-10-01', '2026-11-30', ['--npi', npi])).trns);
      expect(byPayee.sort()).toEqual([...all].sort());
      // And the months' 835s are the two months' together.
      const months = [...(await transfersOf(run, '2026-10-01', '2026-10-31')).trns, ...(await transfersOf(run, '2026-11-01', '2026-11-30')).trns];
      expect(months.sort()).toEqual([...all].sort());
    });
  }
});

describe('activity --npi is the provider its own share', () => {
  for (const [name, run] of transports) {
    it(`the four providers of an encounter add up to the encounter, not four times it (${name})`, async () => {
      const team = (await local(['settlement', 'show', ids.team, '-o', 'json'])).json<Row>();
      const npis = (team.payouts as Row[]).map((p) => p.provider_npi as string);
      expect(npis.length).toBe(4);
      const span = ['--from', '2026-10-19', '--to', '2026-11-30'];
      const whole = (await run(['activity', ...span, '-o', 'json'])).json<Row>();
      const mine = (r: Row) => (r.events as Row[]).filter((e) => e.encounter_id === ids.team);
      const sumOf = (events: Row[], kind: string) => events.filter((e) => e.kind === kind).reduce((s, e) => s + cents(e.amount), 0);
      const shares = [];
      for (const npi of npis) {
        const r = await run(['activity', ...span, '--npi', npi, '-o', 'json']);
        expect(r.code, r.stderr).toBe(0);
        shares.push(mine(r.json<Row>()));
      }
      for (const kind of ['submitted', 'adjudicated', 'funded', 'settled']) {
        const total = sumOf(mine(whole), kind);
        expect(total, kind).toBeGreaterThan(0);
        expect(
          shares.reduce((s, events) => s + sumOf(events, kind), 0),
          kind,
        ).toBe(total);
      }
      // Every provider of the span: each kind's totals add up to the whole's, failures and refunds included.
      const everyone = new Set<string>(npis);
      for (const e of whole.events as Row[]) everyone.add(e.provider_npi);
      const totals: Record<string, number> = {};
      for (const npi of everyone)
        for (const t of (await run(['activity', ...span, '--npi', npi, '-o', 'json'])).json<Row>().totals as Row[])
          totals[t.kind] = (totals[t.kind] ?? 0) + cents(t.amount);
      expect(totals).toEqual(Object.fromEntries((whole.totals as Row[]).map((t) => [t.kind, cents(t.amount)])));
      expect(totals.failed).toBe(benefit.again);
      expect(totals.refunded).toBe(benefit.again);
      // Each payout is its provider's: the funded amount of each NPI is its payout.
      for (const [i, npi] of npis.entries()) expect(sumOf(shares[i]!, 'funded'), npi).toBe(cents(team.payouts[i].amount));
    });
  }
});

// A second ledger of its own (its own server and rate limits): an encounter funded in December,
// refunded, funded again in January with an AEOB variance; a Friday 30 October payment arriving
// Monday 2 November; and a claim submitted at the very instant the clock stands at.
let home2: ReturnType<typeof tempDir>;
let server2: Served;
const END2 = '2027-02-01T09:00:00Z';
const local2 = (args: string[]) => runTpa(args, { home: home2.dir });
const remote2 = (args: string[]) => runTpa(args, { home: home2.dir, env: { TPA_PROFILE: 'sandbox' } });
const transports2 = [
  ['in-process', local2],
  ['over local serve', remote2],
] as const;
const ids2: Record<'twice' | 'friday' | 'late', string> = { twice: '', friday: '', late: '' };
const benefit2: Record<string, number> = {};
const transferIds2 = async (name: keyof typeof ids2) => {
  const s = (await local2(['settlement', 'show', ids2[name], '-o', 'json'])).json<Row>();
  return [...(s.previous_transfers ?? []), s].map((t: Row) => t.processor_transfer_id as string);
};

describe('the sections around the money split by period too', () => {
  beforeAll(async () => {
    home2 = tempDir();
    const at2 = async (clock: string, args: string[]) => {
      const r = await runTpa(args, { home: home2.dir, env: { TPA_CLOCK: clock } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r;
    };
    const claims = [
      claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45380'], patient: 'MBR-1003', serviceDate: '2026-10-15' }),
      claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45380'], patient: 'MBR-1003', serviceDate: '2026-10-16' }),
    ];
    writeFileSync(join(home2.dir, 'claims.ndjson'), `${claims.map((c) => JSON.stringify(c)).join('\n')}\n`);
    await at2('2026-10-20T10:00:00Z', ['claim', 'submit', 'claims.ndjson', '-o', 'ndjson']);
    const entries = ndjson<Row>((await at2('2026-10-20T10:00:00Z', ['ledger', 'list', '--all', '-o', 'ndjson'])).stdout);
    for (const [name, date] of [
      ['twice', '2026-10-15'],
      ['friday', '2026-10-16'],
    ] as const) {
      const e = entries.find((x) => x.service_date === date)!;
      expect(e.status, name).toBe('ADJUDICATED');
      ids2[name] = e.encounter_id;
      benefit2[name] = cents(e.financial_summary.benefit_amount);
    }
    let n = 0;
    const fund = (clock: string, name: keyof typeof ids2) =>
      at2(clock, [
        'fund',
        'approve',
        ids2[name],
        '--amount',
        formatCents(benefit2[name]!),
        '--auth-code',
        `AUTH-${clock.slice(0, 10).replaceAll('-', '')}-PART-000${++n}`,
        '--yes',
      ]);
    // Initiated Friday 30 October, arrived Monday 2 November.
    await fund('2026-10-30T15:00:00Z', 'friday');
    // Funded Monday 7 December, arrived, refunded on the 9th; funded again Tuesday 5 January, arrived,
    // and its AEOB states less: a variance, on the encounter's latest transfer.
    await fund('2026-12-07T10:00:00Z', 'twice');
    await at2('2026-12-09T10:00:00Z', ['local', 'simulate', 'refund', ids2.twice]);
    await fund('2027-01-05T10:00:00Z', 'twice');
    await at2('2027-01-07T10:00:00Z', ['local', 'simulate', 'aeob-variance', ids2.twice]);
    // A claim submitted at END2 itself: its events lie on the boundary of the day before and the day after.
    const late = claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45380'], patient: 'MBR-1003', serviceDate: '2026-10-06' });
    writeFileSync(join(home2.dir, 'late.json'), JSON.stringify(late));
    await at2(END2, ['claim', 'submit', 'late.json', '-o', 'json']);
    const lateEntry = ndjson<Row>((await at2(END2, ['ledger', 'list', '--from', '2026-10-06', '--to', '2026-10-06', '--all', '-o', 'ndjson'])).stdout);
    expect(lateEntry.length).toBe(1);
    ids2.late = lateEntry[0]!.encounter_id;
    expect((await local2(['local', 'clock', 'set', END2])).code).toBe(0);
    server2 = await serve(home2.dir);
    await login(home2.dir, server2.url);
  });
  afterAll(async () => {
    await server2?.stop();
    home2.remove();
  });

  for (const [name, run] of transports2) {
    it(`--by funded: reconciliation, exceptions, provider rows, NDJSON lines and settled per day of December, January and both add up (${name})`, async () => {
      const [first, second] = await transferIds2('twice');
      const december = (await report(run, '2026-12-01', '2026-12-31')).report;
      const january = (await report(run, '2027-01-01', '2027-01-31')).report;
      const both = (await report(run, '2026-12-01', '2027-01-31')).report;
      // December: the transfer released then refunded; January: the one that arrived with a variance.
      expect(cents(december.money.released_then_refunded)).toBe(benefit2.twice);
      expect(cents(january.money.settled)).toBe(benefit2.twice);
      // Reconciliation: the transfer of each period under its own state, once in all.
      for (const k of ['matched', 'variance', 'missing_aeob', 'not_reconciled']) {
        expect(december.reconciliation[k].count, `December ${k}`).toBe(0);
        expect(january.reconciliation[k].count + december.reconciliation[k].count, k).toBe(both.reconciliation[k].count);
        expect(cents(january.reconciliation[k].amount) + cents(december.reconciliation[k].amount), k).toBe(cents(both.reconciliation[k].amount));
      }
      expect(january.reconciliation.variance.count).toBe(1);
      // The variance is January's exception, named by January's transfer; December lists none of it.
      const listed = (r: Row) => (r.exceptions as Row[]).map((x) => `${x.kind} ${x.reference}`);
      expect(listed(december)).toEqual([]);
      expect(listed(january)).toEqual([`AEOB_VARIANCE ${second}`]);
      expect(listed(both)).toEqual([`AEOB_VARIANCE ${second}`]);
      // The facts of now are listed with --by service only, and the answer says so.
      expect(december.exceptions_not_listed).toEqual(['PENDED_OVER_7_DAYS', 'NOT_FUNDED_AFTER_3_DAYS']);
      // Per-provider rows: every released payout, refunded since or not; they add up to released and the fees charged.
      for (const r of [december, january, both]) {
        const rows = (k: string) => (r.providers as Row[]).reduce((sum, p) => sum + cents(p[k]), 0);
        expect(rows('amount')).toBe(cents(r.money.released));
        expect(rows('fees')).toBe(cents(r.money.fees_charged));
        expect(rows('refunded')).toBe(cents(r.money.released_then_refunded));
        expect(rows('net')).toBe(cents(r.money.net_to_providers));
        // Settled per day: labelled, and its days sum to the period's settled.
        expect(r.settled_per_day_of).toMatch(/arrival days of the transfers counted released/);
        expect((r.settled_per_day as Row[]).reduce((sum, d) => sum + cents(d.amount), 0)).toBe(cents(r.money.settled));
      }
      expect((december.providers as Row[]).length).toBeGreaterThan(0);
      // NDJSON: one line per transfer of the period, its own id and amounts; the lines add up to the money section.
      const lines = async (from: string, to: string) =>
        ndjson<Row>((await run(['settlement', 'report', '--from', from, '--to', to, '--by', 'funded', '-o', 'ndjson'])).stdout);
      const dec = await lines('2026-12-01', '2026-12-31');
      const jan = await lines('2027-01-01', '2027-01-31');
      expect(dec.map((l) => [l.encounter_id, l.processor_transfer_id, l.transfer_status, cents(l.settled), cents(l.released_then_refunded)])).toEqual([
        [ids2.twice, first, 'REFUNDED', 0, benefit2.twice],
      ]);
      expect(jan.map((l) => [l.encounter_id, l.processor_transfer_id, l.transfer_status, cents(l.settled), l.match_status])).toEqual([
        [ids2.twice, second, 'COMPLETED', benefit2.twice, 'VARIANCE'],
      ]);
      for (const k of ['released', 'in_transit', 'settled', 'released_then_refunded', 'came_back', 'failed', 'fees_charged'])
        expect(
          [...dec, ...jan].reduce((sum, l) => sum + cents(l[k]), 0),
          k,
        ).toBe(cents(both.money[k]));
    });
  }

  it('December --by funded in CSV and on a table: the refunded transfer has its provider rows; the facts of now are said to be left out', async () => {
    const december = (await report(local2, '2026-12-01', '2026-12-31')).report;
    const csv = await local2(['settlement', 'report', '--from', '2026-12-01', '--to', '2026-12-31', '--by', 'funded', '-o', 'csv', '--section', 'providers']);
    expect(csv.stdout.trim().split('\n').length).toBe(1 + (december.providers as Row[]).length);
    const table = await local2(['settlement', 'report', '--from', '2026-12-01', '--to', '2026-12-31', '--by', 'funded', '-o', 'table']);
    expect(table.stdout).not.toMatch(/No payouts in the period/);
    expect(table.stdout).toMatch(/Facts of now, not of a period, listed with --by service only:\nPENDED_OVER_7_DAYS, NOT_FUNDED_AFTER_3_DAYS/);
    expect(table.stdout).toMatch(/Settled per day\nArrivals of the transfers released in the period; the days sum to Settled\./);
  });

  it("--by funded: October's day list shows the arrival on 2 November of the transfer it released (labelled), summing to October's settled", async () => {
    const october = (await report(local2, '2026-10-01', '2026-10-31')).report;
    expect(october.settled_per_day_of).toMatch(/arrival days of the transfers counted released/);
    expect((october.settled_per_day as Row[]).map((d) => d.day)).toEqual(['2026-11-02']);
    expect(cents(october.settled_per_day[0].amount)).toBe(cents(october.money.settled));
  });

  // activity --since: consecutive runs partition time.
  it('two daily runs 24h apart count the events of the boundary second once, by the run at that now, and the span ends just after as_of (in-process and over local serve)', async () => {
    // The claim submitted at END2: its events are at the now of the run at END2, which holds them, and the run a day later does not.
    const runs = async () => {
      const out: Row[] = [];
      for (const [, run] of transports2) {
        const r = await run(['activity', '--since', '24h', '-o', 'json']);
        expect(r.code, r.stderr).toBe(0);
        out.push(r.json<Row>());
      }
      return out;
    };
    const atEnd = await runs();
    expect((await local2(['local', 'clock', 'advance', '1d'])).code).toBe(0);
    const dayAfter = await runs();
    const next = new Date(Date.parse(END2) + 86_400_000).toISOString().replace(/\.000Z$/, 'Z');
    const after1ms = (iso: string) => new Date(Date.parse(iso) + 1).toISOString();
    const key = (e: Row) => `${e.time} ${e.kind} ${e.encounter_id}`;
    for (const [i, before] of atEnd.entries()) {
      const after = dayAfter[i]!;
      expect(before.span.to).toBe(after1ms(END2));
      expect(before.span.as_of).toBe(END2);
      expect(after.span).toEqual({ from: after1ms(END2), to: after1ms(next), as_of: next });
      const first = (before.events as Row[]).map(key);
      const second = (after.events as Row[]).map(key);
      expect(first.filter((k) => second.includes(k))).toEqual([]);
      expect(first).toContain(`${END2} submitted ${ids2.late}`);
      expect(second).not.toContain(`${END2} submitted ${ids2.late}`);
    }
  });
});
