// The finance approver's single-encounter views, in-process:
// a denied encounter is CLAIM_DENIED as the service says, a refused approval is REFUSED in the
// history with its reason, a failed transfer says what is owed and how to pay it, a missing AEOB is
// said in words, and the encounter number every ledger view shows first is taken wherever an
// encounter id is.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { tempDir } from '../helpers/engine.js';
import { login, serve, type Served } from '../helpers/server.js';

type Body = Record<string, any>;

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

const adjudicated = (patient = 'MBR-1003') => adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', patient] });

/** A denied encounter: the same claim submitted twice, the second a duplicate. */
async function denied(): Promise<string> {
  const file = join(home.dir, 'twice.json');
  writeFileSync(file, (await run(['claim', 'template'])).stdout);
  for (let i = 0; i < 2; i++) expect((await run(['claim', 'submit', file, '--wait', '--again'])).code).toBe(0);
  const list = (await run(['ledger', 'list', '--status', 'DENIED'])).json<{ results: { encounter_id: string }[] }>().results;
  expect(list).toHaveLength(1);
  return list[0]!.encounter_id;
}

const history = async () => (await run(['fund', 'history', '-o', 'json'])).json<Body[]>();

describe('fund approve of a denied encounter', () => {
  it('exits 4 with CLAIM_DENIED, as the raw API call does, and sends nothing', async () => {
    const id = await denied();
    const raw = await run([
      'api',
      'POST',
      '/tpa-api/v1/funding/approve/',
      '--data',
      JSON.stringify({ encounter_id: id, amount: 1, authorization_code: 'AUTH-RAW' }),
      '--yes',
    ]);
    expect(raw.code).toBe(4);
    expect(raw.json()).toMatchObject({ reason: 'CLAIM_DENIED' });
    const before = (await history()).length;

    const json = await run(['fund', 'approve', id, '--amount', '1', '--auth-code', 'AUTH-DENIED', '--yes', '-o', 'json']);
    expect(json.code, json.stderr).toBe(4);
    expect(json.json()).toMatchObject({ reason: 'CLAIM_DENIED', encounter_id: id });
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!).error).toMatchObject({ exit_code: 4, details: { reason: 'CLAIM_DENIED' } });
    const table = await run(['fund', 'approve', id, '--amount', '1', '--auth-code', 'AUTH-DENIED', '--yes', '-o', 'table']);
    expect(table.code).toBe(4);
    expect(table.stderr).toMatch(/was denied \(CLAIM_DENIED\).*nothing was sent/);
    expect(table.stderr).not.toMatch(/never will/);
    // Nothing was sent: no approval in the history.
    expect(await history()).toHaveLength(before);
  });
});

describe('fund history names a refusal REFUSED with its reason', () => {
  it('in the table, json and csv; an older record written SKIPPED reads as REFUSED', async () => {
    const e = await adjudicated();
    const wrong = await run(['fund', 'approve', e.id, '--amount', '2000', '--auth-code', 'AUTH-REF-0001', '--yes']);
    expect(wrong.code).toBe(4);
    const rows = await history();
    expect(rows).toEqual([
      expect.objectContaining({
        authorization_code: 'AUTH-REF-0001',
        outcome: 'REFUSED',
        error_code: 'amount_mismatch',
        message: expect.stringMatching(/must equal the adjudicated benefit amount 2,460\.00/),
      }),
    ]);
    const table = await runTpa(['fund', 'history'], { home: home.dir, tty: true, columns: 160 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/REFUSED/);
    expect(table.stdout).toMatch(/REFUSED[^\n]*amount_mismatch: The/);
    expect(table.stdout).not.toMatch(/SKIPPED/);
    const csv = (await run(['fund', 'history', '-o', 'csv'])).stdout.trim().split('\n');
    const header = csv[0]!.split(',');
    const cells = csv[1]!.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
    expect(cells[header.indexOf('outcome')]).toBe('REFUSED');
    expect(cells[header.indexOf('error_code')]).toBe('amount_mismatch');

    // A file written before: its refusal was recorded SKIPPED.
    const old = join(home.dir, 'old');
    mkdirSync(join(old, 'journals'), { recursive: true, mode: 0o700 });
    const record = {
      id: 'a1',
      at: '2026-11-20T10:00:00.000Z',
      profile: 'local',
      environment: 'local',
      encounter_id: 'enc_00000000000000000001',
      amount: 320,
      authorization_code: 'AUTH-OLD-0001',
    };
    writeFileSync(
      join(old, 'journals', 'fund-history.ndjson'),
      `${JSON.stringify({ type: 'approval', id: 'a1', record })}\n${JSON.stringify({ type: 'outcome', id: 'a1', outcome: 'SKIPPED', processor_transfer_id: null, message: 'The amount must equal the adjudicated benefit amount 320.00' })}\n`,
    );
    const read = await runTpa(['fund', 'history', '-o', 'json'], { home: old });
    expect(read.code, read.stderr).toBe(0);
    expect(read.json<Body[]>()).toEqual([
      expect.objectContaining({ authorization_code: 'AUTH-OLD-0001', outcome: 'REFUSED', message: expect.stringMatching(/must equal/) }),
    ]);
  });
});

describe('settlement show after a failed or refunded transfer', () => {
  it('says the benefit is owed again and gives the command to approve it under the next free code', async () => {
    const a = await adjudicated('MBR-1003');
    const b = await adjudicated('MBR-1002');
    expect((await run(['fund', 'approve', a.id, '--amount', a.amount, '--auth-code', 'AUTH-20261126-ACME-0001', '--yes'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'settlement-failure', a.id])).code).toBe(0);
    const failed = await runTpa(['settlement', 'show', a.id], { home: home.dir, tty: true, columns: 120 });
    expect(failed.code, failed.stderr).toBe(0);
    const text = failed.stdout + failed.stderr;
    expect(text).toMatch(/owed again/);
    expect(text).toMatch(/2,460\.00/);
    // The next code of the prefix its codes use (-0001 is the failed transfer's).
    expect(text).toContain(`tpa fund approve ${a.id} --auth-code AUTH-`);
    expect(text).not.toContain('--auth-code AUTH-20261126-ACME-0001');
    const offered = /--auth-code (AUTH-\S+)/.exec(text)![1]!;
    expect((await run(['fund', 'approve', a.id, '--amount', a.amount, '--auth-code', offered, '--yes'])).code).toBe(0);

    expect((await run(['fund', 'approve', b.id, '--amount', b.amount, '--auth-code', 'AUTH-B-1', '--yes'])).code).toBe(0);
    expect((await run(['local', 'clock', 'advance', '2d'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'refund', b.id])).code).toBe(0);
    const refunded = await runTpa(['settlement', 'show', b.id], { home: home.dir, tty: true, columns: 80 });
    expect(refunded.stdout + refunded.stderr).toMatch(/REFUNDED[\s\S]*owed again/);
    expect(refunded.stdout + refunded.stderr).toContain(`tpa fund approve ${b.id} --auth-code AUTH-`);
    // Dated by the engine's clock (two days past the machine's here), as fund approve offers it.
    const engineDay = String((await run(['api', 'GET', '/tpa-api/v1/health'])).json<Body>().time)
      .slice(0, 10)
      .replace(/-/g, '');
    expect(engineDay).not.toBe(new Date().toISOString().slice(0, 10).replace(/-/g, ''));
    expect(refunded.stdout + refunded.stderr).toContain(`tpa fund approve ${b.id} --auth-code AUTH-${engineDay}-ACME-0001`);
    // In json, the body stays the service's; the next step goes to stderr.
    const json = await run(['settlement', 'show', b.id, '-o', 'json']);
    expect(json.json()).toMatchObject({ status: 'REFUNDED' });
    expect(json.stderr).toContain(`tpa fund approve ${b.id} --auth-code AUTH-`);
    // A transfer that stands says nothing of the kind.
    const standing = await runTpa(['settlement', 'show', a.id], { home: home.dir, tty: true, columns: 120 });
    expect(standing.stdout + standing.stderr).not.toMatch(/owed again/);
  });
});

describe('a missing AEOB', () => {
  it('settlement show says it is missing in words; ledger show names no AEOB reference for it', async () => {
    const e = await adjudicated();
    expect((await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-AEOB-1', '--yes'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'missing-aeob', e.id])).code).toBe(0);
    expect((await run(['local', 'clock', 'advance', '3d'])).code).toBe(0);
    const s = await runTpa(['settlement', 'show', e.id], { home: home.dir, tty: true, columns: 120 });
    expect(s.code, s.stderr).toBe(0);
    expect(s.stdout).toMatch(/MISSING_AEOB/);
    expect(s.stdout).not.toMatch(/null/);
    expect(s.stdout).toMatch(/AEOB missing/);
    const l = await runTpa(['ledger', 'show', e.id], { home: home.dir, tty: true, columns: 120 });
    expect(l.code, l.stderr).toBe(0);
    const reconciliation = l.stdout.slice(l.stdout.lastIndexOf('Reconciliation'));
    expect(reconciliation).toMatch(/AEOB\s+missing/);
    expect(reconciliation).not.toMatch(/AEOB-\d{4}-\d+/);
  });
});

describe('the encounter number is taken wherever an encounter id is', () => {
  it('ledger show, settlement show and fund approve take ENC-YYYY-NNNNNN; an unknown one exits 3 naming it', async () => {
    const e = await adjudicated();
    const number = (await run(['ledger', 'show', e.id, '-o', 'json'])).json<Body>().encounter.encounter_number as string;
    expect(number).toMatch(/^ENC-\d{4}-\d{6}$/);
    const shown = await run(['ledger', 'show', number, '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json<Body>().encounter.id).toBe(e.id);
    expect((await run(['settlement', 'show', number])).code).toBe(7);
    const approved = await run(['fund', 'approve', number, '--amount', e.amount, '--auth-code', 'AUTH-NUM-1', '--yes', '-o', 'json']);
    expect(approved.code, approved.stderr).toBe(0);
    const settled = await run(['settlement', 'show', number.toLowerCase(), '-o', 'json']);
    expect(settled.code, settled.stderr).toBe(0);
    expect(settled.json()).toMatchObject({ encounter_id: e.id, total_amount: 2460 });
    // The sandbox's own command takes it too.
    const failed = await run(['local', 'simulate', 'settlement-failure', number, '-o', 'json']);
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.json()).toMatchObject({ encounter_id: e.id, status: 'FAILED' });

    const year = number.slice(4, 8);
    for (const args of [
      ['ledger', 'show'],
      ['settlement', 'show'],
      ['fund', 'approve'],
    ]) {
      const r = await run([...args, `ENC-${year}-999999`, ...(args[0] === 'fund' ? ['--amount', '1', '--auth-code', 'X', '--yes'] : [])]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain(`ENC-${year}-999999`);
    }
  });
});

describe('the encounter number over HTTP', () => {
  let served: { home: ReturnType<typeof tempDir>; server: Served };
  beforeAll(async () => {
    const h = tempDir();
    const server = await serve(h.dir);
    await login(h.dir, server.url);
    served = { home: h, server };
  });
  afterAll(async () => {
    await served.server.stop();
    served.home.remove();
  });

  it('ledger show and settlement show resolve the number through the service', async () => {
    const remote = (args: string[]) => runTpa(args, { home: served.home.dir, env: { TPA_PROFILE: 'sandbox' } });
    const e = await adjudicatedEncounter(remote, served.home.dir);
    const number = (await remote(['ledger', 'show', e.id, '-o', 'json'])).json<Body>().encounter.encounter_number as string;
    const shown = await remote(['ledger', 'show', number, '-o', 'json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json<Body>().encounter.id).toBe(e.id);
    expect((await remote(['settlement', 'show', number])).code).toBe(7);
    const unknown = await remote(['ledger', 'show', `${number.slice(0, 9)}999999`]);
    expect(unknown.code).toBe(3);
  });
});

describe('an authorization code given as --auth-code in a script', () => {
  it('is refused when this machine gave it to another encounter, whatever its case or spaces, and never recorded with control characters', async () => {
    const first = await adjudicated('MBR-1003');
    const second = await adjudicated('MBR-1002');
    const ok = await run(['fund', 'approve', first.id, '--amount', first.amount, '--auth-code', 'AUTH-T-1', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    for (const code of ['AUTH-T-1', ' auth-t-1 ']) {
      const again = await run(['fund', 'approve', second.id, '--amount', second.amount, '--auth-code', code, '--yes']);
      expect(again.code, again.stderr).toBe(4);
      expect(again.stderr).toMatch(/--auth-code AUTH-T-1 is used already \(by the approval of enc_\w+/i);
    }
    const hostile = await run(['fund', 'approve', second.id, '--amount', second.amount, '--auth-code', 'AUTH-\u001b[2J-9\nApproved by CFO', '--yes']);
    expect(hostile.code).toBe(2);
    expect(hostile.stderr).toMatch(/must not hold control characters/);
    const history = (await run(['fund', 'history', '-o', 'json'])).json<{ authorization_code: string; outcome: string }[]>();
    expect(history.map((h) => [h.authorization_code, h.outcome])).toEqual([['AUTH-T-1', 'APPROVED']]);
    // A new code goes.
    const fresh = await run(['fund', 'approve', second.id, '--amount', second.amount, '--auth-code', 'AUTH-T-2', '--yes']);
    expect(fresh.code, fresh.stderr).toBe(0);
  });
});
