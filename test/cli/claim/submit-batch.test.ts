// `tpa claim submit <path>...` as a batch, through real processes: every input kind, invalid claims
// among valid ones, a rerun skipping what was sent, kill -9 at random points then a resume, and a
// server that loses answers in the middle of a batch: every claim in the ledger exactly once.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { interchange, professionalClaim, transaction } from '../../helpers/x12.js';
import { journalRecords, killRepeatedly } from '../../helpers/kill.js';
import { serve } from '../../helpers/server.js';
import { cents, ndjson } from '../../helpers/values.js';

const CLOCK = '2026-06-30T12:00:00Z';
const env = { TPA_CLOCK: CLOCK };

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

type Row = Record<string, any>;

const claim = (i: number): Row => distinctClaim(i) as Row;

const lines = (from: number, to: number) => `${Array.from({ length: to - from }, (_, k) => JSON.stringify(claim(from + k))).join('\n')}\n`;

async function ledger(h = home, e: Record<string, string> = env): Promise<Row[]> {
  const r = await runTpa(['ledger', 'list', '--all', '-o', 'ndjson', '-p', 'local'], { home: h, env: e });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout);
}

/** Each claim once: as many encounters as claims, and no (member, date, code) twice. */
function onceEach(entries: Row[], n: number): void {
  expect(entries).toHaveLength(n);
  const keys = new Set(entries.map((e) => `${e.service_date}|${e.ssp_code}|${e.encounter_number}`));
  expect(keys.size).toBe(n);
}

describe('tpa claim submit, a batch', () => {
  it('reads Claim files, Bundles, NDJSON, folders and stdin, naming each source; a rerun skips them all', async () => {
    const dir = join(home, 'in');
    mkdirSync(join(dir, 'folder'), { recursive: true });
    writeFileSync(join(dir, 'one.json'), JSON.stringify(claim(0), null, 2));
    const bundle = {
      resourceType: 'Bundle',
      type: 'collection',
      entry: [{ resource: claim(1) }, { resource: { resourceType: 'Patient', id: 'p1' } }, { resource: claim(2) }],
    };
    writeFileSync(join(dir, 'bundle.json'), JSON.stringify(bundle));
    writeFileSync(join(dir, 'many.ndjson'), lines(3, 6));
    writeFileSync(join(dir, 'folder', 'b.json'), JSON.stringify(claim(7)));
    writeFileSync(join(dir, 'folder', 'a.ndjson'), lines(6, 7));
    writeFileSync(join(dir, 'folder', 'notes.txt'), 'not a claim');
    const args = ['claim', 'submit', 'in/one.json', 'in/bundle.json', 'in/many.ndjson', 'in/folder', '-', '-o', 'ndjson'];
    const r = await runTpa(args, { home, env, input: lines(8, 10) });
    expect(r.code, r.stderr).toBe(0);
    const out = ndjson(r.stdout);
    expect(out.map((o) => o.source).sort()).toEqual(
      [
        'in/one.json',
        'in/bundle.json#entry[0]',
        'in/bundle.json#entry[2]',
        'in/many.ndjson:1',
        'in/many.ndjson:2',
        'in/many.ndjson:3',
        'in/folder/a.ndjson:1',
        'in/folder/b.json',
        'stdin:1',
        'stdin:2',
      ].sort(),
    );
    expect(out.every((o) => o.status === 'ACKNOWLEDGED' && /^sub_/.test(o.submission_id) && o.errors.length === 0)).toBe(true);
    expect(r.stderr).toContain('in/bundle.json: 1 Patient not submitted');
    expect(r.stderr).toMatch(/journal: .*journals\/claims-[0-9a-f]{16}\.ndjson/);
    onceEach(await ledger(), 10);

    const again = await runTpa(args, { home, env, input: lines(8, 10) });
    expect(again.code, again.stderr).toBe(0);
    const skipped = ndjson(again.stdout);
    expect(skipped.map((o) => o.status)).toEqual(Array(10).fill('SKIPPED'));
    expect(new Map(skipped.map((o) => [o.source, o.submission_id]))).toEqual(new Map(out.map((o) => [o.source, o.submission_id])));
    onceEach(await ledger(), 10);
  });

  it('an invalid claim among valid ones is reported with its source and fields and not sent; the others are (exit 2)', async () => {
    const bad = claim(1);
    bad.provider = { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '123' } };
    writeFileSync(join(home, 'mixed.ndjson'), `${JSON.stringify(claim(0))}\n{oops\n${JSON.stringify(bad)}\n${JSON.stringify(claim(2))}\n`);
    const r = await runTpa(['claim', 'submit', 'mixed.ndjson', '-o', 'ndjson'], { home, env });
    expect(r.code).toBe(2);
    const out = ndjson(r.stdout);
    const by = new Map(out.map((o) => [o.source, o]));
    expect(by.get('mixed.ndjson:1')!.status).toBe('ACKNOWLEDGED');
    expect(by.get('mixed.ndjson:4')!.status).toBe('ACKNOWLEDGED');
    expect(by.get('mixed.ndjson:2')).toMatchObject({
      status: 'INVALID',
      submission_id: null,
      errors: [{ field: '', message: expect.stringMatching(/not valid JSON/) }],
    });
    expect(by.get('mixed.ndjson:3')!.status).toBe('INVALID');
    expect(by.get('mixed.ndjson:3')!.errors.some((e: Row) => /provider/.test(e.field))).toBe(true);
    expect(r.stderr).toContain('mixed.ndjson:2: invalid, not sent');
    expect(await ledger()).toHaveLength(2);
  });

  it('a claim nested 10,000 deep is one INVALID claim naming its file and the depth; the batch goes on (exit 2, no stack overflow)', async () => {
    // Written as text: a value this deep is more than JSON.stringify can take (20 KB of brackets).
    const nested = `${'{"a":'.repeat(10_000)}"x"${'}'.repeat(10_000)}`;
    const deep = JSON.stringify({ ...claim(1), extension: [{ url: 'http://example.org/deep', valueX: 'NESTED' }] }).replace('"NESTED"', nested);
    writeFileSync(join(home, 'a.json'), JSON.stringify(claim(0)));
    writeFileSync(join(home, 'deep.json'), deep);
    writeFileSync(join(home, 'z.ndjson'), `${'['.repeat(10_000)}${']'.repeat(10_000)}\n${JSON.stringify(claim(2))}\n`);
    const r = await runTpa(['claim', 'submit', 'a.json', 'deep.json', 'z.ndjson', '-o', 'ndjson'], { home, env });
    expect(r.stderr).not.toMatch(/Maximum call stack|internal error/);
    expect(r.code, r.stderr).toBe(2);
    const by = new Map(ndjson(r.stdout).map((o) => [o.source, o]));
    for (const source of ['deep.json', 'z.ndjson:1']) {
      expect(by.get(source)).toMatchObject({ status: 'INVALID', errors: [{ field: '', message: expect.stringMatching(/nested more than 64 levels deep/) }] });
    }
    expect(by.get('a.json')!.status).toBe('ACKNOWLEDGED');
    expect(by.get('z.ndjson:2')!.status).toBe('ACKNOWLEDGED');
    expect(r.stderr).toContain('deep.json: invalid, not sent: JSON nested more than 64 levels deep');
    expect(await ledger()).toHaveLength(2);
  });

  it('a device or an endless line named as a claim file is one INVALID claim, read no further than its bound; the batch goes on', async () => {
    // /dev/zero has no size to trust: a stat says 0, and a read never ends. A claim is at most 5 MiB,
    // a JSON document 256 MiB, and an NDJSON line over 5 MiB is read past, not kept.
    writeFileSync(join(home, 'a.json'), JSON.stringify(claim(0)));
    symlinkSync('/dev/zero', join(home, 'zero.json'));
    symlinkSync('/dev/zero', join(home, 'zero.ndjson'));
    writeFileSync(join(home, 'long.ndjson'), `{"pad":"${'x'.repeat(6 * 1024 * 1024)}"}\n${JSON.stringify(claim(2))}\n`);
    const r = await runTpa(['claim', 'submit', 'a.json', 'zero.json', 'zero.ndjson', 'long.ndjson', '-o', 'ndjson'], { home, env });
    expect(r.stderr).not.toMatch(/heap|internal error/);
    expect(r.code, r.stderr).toBe(2);
    const by = new Map(ndjson(r.stdout).map((o) => [o.source, o]));
    expect(by.get('zero.json')).toMatchObject({ status: 'INVALID', errors: [{ message: expect.stringMatching(/larger than 256 MiB/) }] });
    for (const source of ['zero.ndjson:1', 'long.ndjson:1'])
      expect(by.get(source), source).toMatchObject({
        status: 'INVALID',
        errors: [{ message: expect.stringMatching(/larger than 5 MiB, the most one claim may be/) }],
      });
    expect(by.get('a.json')!.status).toBe('ACKNOWLEDGED');
    expect(by.get('long.ndjson:2')!.status).toBe('ACKNOWLEDGED');
    expect(await ledger()).toHaveLength(2);
  });

  it('a dangling or looping symbolic link in a claims folder is skipped with a note; the batch goes on (submit, validate, convert)', async () => {
    const folder = join(home, 'b');
    mkdirSync(folder);
    writeFileSync(join(folder, 'ok.json'), JSON.stringify(claim(0)));
    writeFileSync(join(folder, 'ok2.json'), JSON.stringify(claim(1)));
    symlinkSync('/nonexistent/claim.json', join(folder, 'dang.json'));
    symlinkSync(join(folder, 'loop.json'), join(folder, 'loop.json'));
    const dangling = /b\/dang\.json: a symbolic link that leads nowhere \(its target does not exist\), skipped/;
    const looping = /b\/loop\.json: a symbolic link that leads nowhere \(a loop of links\), skipped/;
    const validate = await runTpa(['claim', 'validate', 'b', '-o', 'ndjson'], { home, env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stderr).toMatch(dangling);
    expect(validate.stderr).toMatch(looping);
    expect(ndjson(validate.stdout).map((o) => o.valid)).toEqual([true, true]);
    const submit = await runTpa(['claim', 'submit', 'b', '-o', 'ndjson'], { home, env });
    expect(submit.code, submit.stderr).toBe(0);
    expect(submit.stderr).toMatch(dangling);
    expect(submit.stderr).toMatch(looping);
    expect(ndjson(submit.stdout).map((o) => [o.source, o.status])).toEqual([
      ['b/ok.json', 'ACKNOWLEDGED'],
      ['b/ok2.json', 'ACKNOWLEDGED'],
    ]);
    expect(await ledger()).toHaveLength(2);
    // claim convert of an 837 folder skips them the same way.
    const x12 = join(home, 'x');
    mkdirSync(x12);
    writeFileSync(
      join(x12, 'ok.837'),
      interchange([
        transaction({
          st02: '0001',
          type: 'professional',
          claims: [professionalClaim({ clm01: 'PATIENT123', lines: [{ cpt: '45378', charge: '1800', date: '20250110' }] })],
        }),
      ]),
    );
    symlinkSync('/nonexistent/claims.837', join(x12, 'dang.837'));
    symlinkSync(join(x12, 'loop.837'), join(x12, 'loop.837'));
    const convert = await runTpa(['claim', 'convert', 'x', '-o', 'ndjson'], { home, env });
    expect(convert.code, convert.stderr).toBe(0);
    expect(convert.stderr).toMatch(/x\/dang\.837: a symbolic link that leads nowhere \(its target does not exist\), skipped/);
    expect(convert.stderr).toMatch(/x\/loop\.837: a symbolic link that leads nowhere \(a loop of links\), skipped/);
    expect(ndjson(convert.stdout)).toHaveLength(1);
  });

  it('a file name that is not UTF-8 in a claims folder is skipped with a note naming its bytes; every other claim is sent exactly once (submit, validate, convert)', async () => {
    const folder = join(home, 'u');
    mkdirSync(folder);
    const named = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    // c\ufffd.json (its name is U+FFFD, well-formed UTF-8) and c\xff.json (a byte that is not UTF-8,
    // which Node would decode to the same U+FFFD): the first is read once, the second is not opened.
    writeFileSync(named(folder, '/c\ufffd.json'), JSON.stringify(claim(0)));
    writeFileSync(named(folder, '/c', [0xff], '.json'), JSON.stringify(claim(1)));
    writeFileSync(join(folder, 'd.json'), JSON.stringify(claim(2)));
    const skipped = /u\/c\\xff\.json: a file name that is not UTF-8, skipped/;
    const validate = await runTpa(['claim', 'validate', 'u', '-o', 'ndjson'], { home, env });
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stderr).toMatch(skipped);
    expect(ndjson(validate.stdout).map((o) => o.source)).toEqual(['u/c\ufffd.json', 'u/d.json']);
    const submit = await runTpa(['claim', 'submit', 'u', '-o', 'ndjson'], { home, env });
    expect(submit.code, submit.stderr).toBe(0);
    expect(submit.stderr).toMatch(skipped);
    expect(ndjson(submit.stdout).map((o) => o.source)).toEqual(['u/c\ufffd.json', 'u/d.json']);
    onceEach(await ledger(), 2);
    // Alone in its folder, it stops nothing: the batch is empty, said, and exits 0.
    const lone = join(home, 'lone');
    mkdirSync(lone);
    writeFileSync(named(lone, '/c', [0xff], '.json'), JSON.stringify(claim(3)));
    const alone = await runTpa(['claim', 'submit', 'lone', '-o', 'ndjson'], { home, env });
    expect(alone.stderr).toMatch(/lone\/c\\xff\.json: a file name that is not UTF-8, skipped/);
    expect(alone.stderr).not.toMatch(/no such file/);
    expect(await ledger()).toHaveLength(2);
    // claim convert of an 837 folder skips it the same way.
    const x12 = join(home, 'x');
    mkdirSync(x12);
    const text = interchange([
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [professionalClaim({ clm01: 'PATIENT123', lines: [{ cpt: '45378', charge: '1800', date: '20250110' }] })],
      }),
    ]);
    writeFileSync(named(x12, '/a\ufffd.837'), text);
    writeFileSync(named(x12, '/a', [0xfe], '.837'), text.replace('PATIENT123', 'PATIENT456'));
    const convert = await runTpa(['claim', 'convert', 'x', '-o', 'ndjson'], { home, env });
    expect(convert.code, convert.stderr).toBe(0);
    expect(convert.stderr).toMatch(/x\/a\\xfe\.837: a file name that is not UTF-8, skipped/);
    expect(ndjson(convert.stdout)).toHaveLength(1);
  });

  it("--wait adds each claim's disposition and adjudication; a timeout first exits 7 with the claims still processing", async () => {
    writeFileSync(join(home, 'w.ndjson'), lines(0, 3));
    const r = await runTpa(['claim', 'submit', 'w.ndjson', '--wait', '-o', 'ndjson'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    for (const o of ndjson(r.stdout)) {
      expect(o.disposition).toBe('APPROVED');
      const a = o.adjudication;
      expect(cents(a.allowed_amount)).toBe(cents(a.benefit_amount) + cents(a.patient_responsibility));
    }
    writeFileSync(join(home, 'slow.ndjson'), lines(3, 5));
    const slow = await runTpa(['claim', 'submit', 'slow.ndjson', '--wait', '--timeout', '1s', '-o', 'ndjson'], {
      home,
      env: { ...env, TPA_ADJUDICATION_DELAY: '1h' },
    });
    expect(slow.code).toBe(7);
    expect(ndjson(slow.stdout).map((o) => [o.status, o.disposition])).toEqual([
      ['ACKNOWLEDGED', null],
      ['ACKNOWLEDGED', null],
    ]);
    expect(slow.stderr).toMatch(/2 claim\(s\) still being adjudicated/);
  });

  it('killed (kill -9) at random points 20 times, then run again: every claim in the ledger exactly once, none missing', async () => {
    const N = 600;
    writeFileSync(join(home, 'batch.ndjson'), lines(0, N));
    const journal = join(home, 'batch.journal');
    const args = ['claim', 'submit', 'batch.ndjson', '--journal', journal, '--concurrency', '2', '-o', 'ndjson'];
    // Each claim takes 25 ms more (TPA_FAULT slow), two at a time: a batch lasts seconds. Each kill
    // comes once the run has had an answer (however long it took to start), while claims are in flight.
    const { killed, finished } = await killRepeatedly(args, {
      home,
      env: { ...env, TPA_FAULT: 'slow-25:/claims/submit/' },
      kills: 20,
      minMs: 0,
      spreadMs: 500,
      progress: () => journalRecords(journal, 'acknowledged'),
      onExit: (code) => expect(code).toBe(0),
    });
    // Twenty kills, unless the batch was done first (then it ended by itself, exit 0).
    expect(killed === 20 || (finished && killed > 0), `${killed} killed`).toBe(true);
    const last = await runTpa(args, { home, env });
    expect(last.code, last.stderr).toBe(0);
    const out = ndjson(last.stdout);
    expect(out).toHaveLength(N);
    expect(out.every((o) => o.status === 'ACKNOWLEDGED' || o.status === 'SKIPPED')).toBe(true);
    expect(out.filter((o) => o.status === 'SKIPPED').length).toBeGreaterThan(0);
    onceEach(await ledger(), N);
    // The journal never announced a claim twice with two keys.
    const keys = new Map<string, string>();
    let announced = 0;
    for (const r of ndjson(readFileSync(journal, 'utf8'))) {
      if (r.type !== 'sending') continue;
      announced++;
      if (keys.has(r.claim)) expect(r.idempotency_key).toBe(keys.get(r.claim));
      keys.set(r.claim, r.idempotency_key);
    }
    expect(keys.size).toBe(N);
    // Some claims were announced and cut off before their answer, and were sent again with their key.
    expect(announced).toBeGreaterThan(N);
  });

  it('over HTTP, a server that loses the answers of claims it processed in the middle of a batch: each claim once, exit 0', async () => {
    const server = await serve(home, ['--no-rate-limit'], { ...env, TPA_FAULT: 'lose-response*3:/claims/submit/' });
    try {
      // The key is made on the server's clock, then the sandbox profile logs in with it.
      const key = (await runTpa(['local', 'keys', 'create'], { home, env })).stdout.trim();
      const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { home, input: key });
      expect(login.code, login.stderr).toBe(0);
      writeFileSync(join(home, 'http.ndjson'), lines(0, 40));
      const r = await runTpa(['claim', 'submit', 'http.ndjson', '-o', 'ndjson', '--profile', 'sandbox', '--concurrency', '4'], { home, env });
      expect(r.code, r.stderr).toBe(0);
      const out = ndjson(r.stdout);
      expect(out).toHaveLength(40);
      expect(out.every((o) => o.status === 'ACKNOWLEDGED')).toBe(true);
      expect(new Set(out.map((o) => o.external_claim_id)).size).toBe(40);
      await server.settled();
      expect(server.stderr()).toMatch(/connection dropped \(TPA_FAULT lose-response\)/);
      onceEach(await ledger(), 40);
    } finally {
      await server.stop();
    }
  });
});
