// An encrypted data directory stays whole and stays encrypted: `tpa local encrypt` stopped at any
// point (kill -9 at increasing instants inside the conversion, Ctrl-C, SIGTERM) leaves a database
// that the next command opens with every encounter in it, plain (and said so) or encrypted, never
// damaged; a data directory once encrypted gets no plain database after a reset or a deleted file;
// and a key that is not the database's seals no journal and sends nothing.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../../src/domain/claim-template.js';
import { databaseFileState } from '../../../src/engine/store/cipher.js';
import { until } from '../../helpers/barrier.js';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa, TPA_BIN, testEnv } from '../../helpers/cli.js';
import { call, engineAt, tempDir } from '../../helpers/engine.js';
import { serve } from '../../helpers/server.js';

type Row = Record<string, any>;

let home: ReturnType<typeof tempDir>;
let work: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
  work = tempDir('tpa-work-');
});
afterEach(() => {
  home.remove();
  work.remove();
});

const newKey = () => randomBytes(32).toString('hex');
const CLOCK = '2026-10-01T10:00:00Z';
const db = () => join(home.dir, 'local.sqlite');
const marker = () => `${db()}.encrypting`;
const MEMBER_IDS = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];

/** A plain database holding `n` claims (distinct, all approved), written by the engine itself. */
function plainDatabase(n: number): void {
  const engine = engineAt(home.dir, CLOCK, '0');
  for (let i = 0; i < n; i++) {
    const ack = call(engine, 'POST', '/tpa-api/v1/claims/submit/', distinctClaim(i));
    if (ack.status !== 201) throw new Error(JSON.stringify(ack.body));
  }
  engine.db.close();
}

/** Every regular file under `dir` whose bytes hold one of `needles`. */
function filesHolding(dir: string, needles: readonly string[]): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => lstatSync(path).isFile())
    .filter((path) => {
      const bytes = readFileSync(path);
      return needles.some((n) => bytes.includes(Buffer.from(n)));
    })
    .map((path) => path.slice(dir.length + 1));
}

/** The number of encounters the next command sees, and what it said. */
async function nextCommand(key: string): Promise<{ code: number; total: number; stderr: string }> {
  const r = await runTpa(['ledger', 'list', '--limit', '1', '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: key, TPA_CLOCK: CLOCK } });
  const total = Number(/of ([\d,]+) entries/.exec(r.stderr)?.[1]?.replace(/,/g, '') ?? Number.NaN);
  return { code: r.code ?? -1, total, stderr: r.stderr };
}

function startEncrypt(key: string): { child: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; stderr: () => string } {
  const child = spawn(process.execPath, [TPA_BIN, 'local', 'encrypt'], {
    env: testEnv({ home: home.dir, env: { TPA_DB_KEY: key, TPA_CLOCK: CLOCK } }),
    cwd: home.dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => stderr };
}

describe('tpa local encrypt stopped before it finished', () => {
  it('killed (kill -9) at increasing instants inside the conversion: the next command opens the database whole, plain and said so, or encrypted; never damaged', async () => {
    const claims = 2000;
    plainDatabase(claims);
    const key = newKey();
    let hotJournals = 0;
    let killed = 0;
    for (let offsetMs = 0; ; offsetMs += 3) {
      const run = startEncrypt(key);
      let ended = false;
      void run.exited.then(() => {
        ended = true;
      });
      // From the moment the conversion begins (its marker is on the disk), not from the start of the process.
      await until(() => ended || existsSync(marker()), 1);
      const timer = setTimeout(() => run.child.kill('SIGKILL'), offsetMs);
      const { code, signal } = await run.exited;
      clearTimeout(timer);
      if (code !== null) {
        expect(code, run.stderr()).toBe(0);
        break;
      }
      expect(signal).toBe('SIGKILL');
      killed++;
      const state = databaseFileState(db()).kind;
      if (existsSync(`${db()}-journal`) && state === 'encrypted') hotJournals++;
      // The next command: every encounter there, the journal and the marker gone.
      const next = await nextCommand(key);
      expect(next.code, next.stderr).toBe(0);
      expect(next.total).toBe(claims);
      expect(existsSync(`${db()}-journal`)).toBe(false);
      expect(existsSync(marker())).toBe(false);
      const now = databaseFileState(db()).kind;
      expect(['plain', 'encrypted']).toContain(now);
      if (now === 'plain')
        expect(next.stderr).toMatch(
          /tpa local encrypt was stopped before it finished; .* is as it was before, whole and NOT encrypted: run tpa local encrypt again/,
        );
      else {
        // Killed after the conversion committed: finished by the next command (its plain tail cut off).
        expect(filesHolding(home.dir, MEMBER_IDS)).toEqual([]);
        break;
      }
      expect(killed).toBeLessThan(200);
    }
    // The kills did land inside the conversion, with pages already encrypted and the journal holding the plain ones.
    expect(hotJournals).toBeGreaterThan(0);
    expect(databaseFileState(db()).kind).toBe('encrypted');
    const last = await nextCommand(key);
    expect(last.total).toBe(claims);
    expect(filesHolding(home.dir, MEMBER_IDS)).toEqual([]);
  }, 180_000);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} during the conversion: it ends encrypted whole first, then the process stops by the signal and says so`, async () => {
      const claims = 2000;
      plainDatabase(claims);
      const key = newKey();
      const run = startEncrypt(key);
      let ended = false;
      void run.exited.then(() => {
        ended = true;
      });
      await until(() => ended || existsSync(marker()), 1);
      expect(ended).toBe(false);
      run.child.kill(signal);
      const exit = await run.exited;
      expect(exit.signal, run.stderr()).toBe(signal);
      expect(run.stderr()).toMatch(/interrupted: the database .* was encrypted whole first \(the conversion does not stop midway\)/);
      expect(databaseFileState(db()).kind).toBe('encrypted');
      expect(existsSync(`${db()}-journal`)).toBe(false);
      expect(existsSync(marker())).toBe(false);
      const next = await nextCommand(key);
      expect(next.code, next.stderr).toBe(0);
      expect(next.total).toBe(claims);
      expect(filesHolding(home.dir, MEMBER_IDS)).toEqual([]);
    }, 60_000);
  }
});

describe('a data directory once encrypted stays encrypted', () => {
  it('after local reset, or with its database deleted, the new database is made encrypted with the same key; without the key, or with another, none is made (exit 5)', async () => {
    const key = newKey();
    const env = { TPA_DB_KEY: key, TPA_CLOCK: CLOCK };
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env })).code).toBe(0);
    const reset = await runTpa(['local', 'reset', '--yes', '-o', 'json'], { home: home.dir, env });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.json<Row>()).toMatchObject({ existed: true, encrypted: true });
    expect(reset.stderr).toMatch(/re-created encrypted with the same key/);
    expect(existsSync(db())).toBe(false);

    // Without the key: refused, nothing made.
    const missing = await runTpa(['local', 'fixtures'], { home: home.dir, env: { TPA_CLOCK: CLOCK } });
    expect(missing.code, missing.stderr).toBe(5);
    expect(missing.stderr).toMatch(/is encrypted \(.*local\.sqlite\.encrypted says so\) and has no database now; no key for it was found/);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(db())).toBe(false);
    // Another key: refused, nothing made.
    const other = await runTpa(['local', 'fixtures'], { home: home.dir, env: { ...env, TPA_DB_KEY: newKey() } });
    expect(other.code, other.stderr).toBe(5);
    expect(other.stderr).toMatch(/the key given does not open it/);
    expect(existsSync(db())).toBe(false);

    // With its key: made encrypted, and the journals of a batch sent to it sealed.
    const folder = join(work.dir, 'claims');
    mkdirSync(folder);
    const claim = claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45378'], patient: 'MBR-1001', serviceDate: '2026-09-01' }) as Row;
    writeFileSync(join(folder, 'good.json'), JSON.stringify(claim));
    writeFileSync(join(folder, 'bad.json'), JSON.stringify({ ...claim, item: undefined, patient: { reference: 'Patient/MBR-1001', display: 'Jane Doe' } }));
    const batch = await runTpa(['claim', 'submit', folder, '-o', 'ndjson'], { home: home.dir, env, cwd: work.dir });
    expect(batch.code, batch.stderr).not.toBe(5);
    expect(databaseFileState(db()).kind).toBe('encrypted');
    expect(filesHolding(home.dir, ['MBR-1001', 'Jane Doe'])).toEqual([]);
    const journals = readdirSync(join(home.dir, 'journals')).filter((f) => f.startsWith('claims-'));
    expect(journals).toHaveLength(1);
    const lines = readFileSync(join(home.dir, 'journals', journals[0]!), 'utf8')
      .trim()
      .split('\n');
    expect(lines.every((l) => /^\{"sealed":"[A-Za-z0-9+/=]+"\}$/.test(l))).toBe(true);

    // The database file deleted by hand (not by reset): the same.
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${db()}${suffix}`, { force: true });
    expect((await runTpa(['ledger', 'list'], { home: home.dir, env: { TPA_CLOCK: CLOCK } })).code).toBe(5);
    expect(existsSync(db())).toBe(false);
    const fixtures = await runTpa(['local', 'fixtures', '-o', 'json'], { home: home.dir, env });
    expect(fixtures.code, fixtures.stderr).toBe(0);
    expect(fixtures.stdout).toContain('Jane Doe');
    expect(databaseFileState(db()).kind).toBe('encrypted');
    expect(filesHolding(home.dir, ['Jane Doe'])).toEqual([]);
  });

  it('a database encrypted before the data directory was marked is marked at its first open with the key', async () => {
    const key = newKey();
    const env = { TPA_DB_KEY: key, TPA_CLOCK: CLOCK };
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env })).code).toBe(0);
    rmSync(`${db()}.encrypted`);
    expect((await runTpa(['ledger', 'list'], { home: home.dir, env })).code).toBe(0);
    expect(JSON.parse(readFileSync(`${db()}.encrypted`, 'utf8'))).toMatchObject({ encrypted: true, key_check: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(readFileSync(`${db()}.encrypted`, 'utf8')).not.toContain(key);
    expect((await runTpa(['local', 'reset', '--yes'], { home: home.dir, env })).code).toBe(0);
    expect((await runTpa(['ledger', 'list'], { home: home.dir, env })).code).toBe(0);
    expect(databaseFileState(db()).kind).toBe('encrypted');
  });

  it('local init (with or without --encrypt) after a reset makes the database with the key the data directory had, never a new key', async () => {
    const key = newKey();
    const env = { TPA_DB_KEY: key, TPA_CLOCK: CLOCK };
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env })).code).toBe(0);
    const check = readFileSync(`${db()}.encrypted`, 'utf8');
    expect((await runTpa(['local', 'reset', '--yes'], { home: home.dir, env })).code).toBe(0);
    const withoutKey = await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env: { TPA_CLOCK: CLOCK } });
    expect(withoutKey.code, withoutKey.stderr).toBe(5);
    expect(existsSync(db())).toBe(false);
    const init = await runTpa(['local', 'init', '-o', 'json'], { home: home.dir, env });
    expect(init.code, init.stderr).toBe(0);
    expect(init.json<Row>()).toMatchObject({ created: true, encrypted: true });
    expect(databaseFileState(db()).kind).toBe('encrypted');
    expect(readFileSync(`${db()}.encrypted`, 'utf8')).toBe(check);
  });
});

describe('a key that is not the database’s', () => {
  it('claim submit of a folder, in-process and through local serve (-p): exit 5 saying so, no journal sealed with it, nothing sent', async () => {
    const key = newKey();
    const env = { TPA_DB_KEY: key, TPA_CLOCK: CLOCK };
    expect((await runTpa(['local', 'init', '--encrypt'], { home: home.dir, env })).code).toBe(0);
    const folder = join(work.dir, 'claims');
    mkdirSync(folder);
    [0, 1, 2].forEach((i) => writeFileSync(join(folder, `c${i}.json`), JSON.stringify(distinctClaim(i))));
    const wrong = { ...env, TPA_DB_KEY: newKey() };

    const local = await runTpa(['claim', 'submit', folder], { home: home.dir, env: wrong, cwd: work.dir });
    expect(local.code, local.stderr).toBe(5);
    expect(local.stderr).toMatch(
      /the key given does not open the local database .* \(it is encrypted with another key\), so no journal is read or written with it and nothing is sent/,
    );
    // Nothing written in any journal, nor created: the sealing is checked before a journal's lock is taken.
    const journalsOf = () => (existsSync(join(home.dir, 'journals')) ? readdirSync(join(home.dir, 'journals')) : []);
    expect(journalsOf()).toEqual([]);

    const server = await serve(home.dir, [], env);
    try {
      const apiKey = (await runTpa(['local', 'keys', 'create'], { home: home.dir, env })).stdout.trim();
      const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { home: home.dir, env, input: apiKey });
      expect(login.code, login.stderr).toBe(0);
      const remote = await runTpa(['claim', 'submit', folder, '-p', 'sandbox'], { home: home.dir, env: wrong, cwd: work.dir });
      expect(remote.code, remote.stderr).toBe(5);
      expect(remote.stderr).toMatch(/the key given does not open the local database/);
      expect(journalsOf()).toEqual([]);
      // Nothing reached the service.
      const ledger = await fetch(`${server.url}/tpa-api/v1/ledger/entries/?limit=1`, { headers: { 'X-API-Key': apiKey } });
      expect(ledger.status).toBe(200);
      expect(((await ledger.json()) as Row).count).toBe(0);
      // With the right key, the same command sends them, its journal sealed.
      const right = await runTpa(['claim', 'submit', folder, '-p', 'sandbox'], { home: home.dir, env, cwd: work.dir });
      expect(right.code, right.stderr).toBe(0);
      const sent = await fetch(`${server.url}/tpa-api/v1/ledger/entries/?limit=1`, { headers: { 'X-API-Key': apiKey } });
      expect(((await sent.json()) as Row).count).toBe(3);
    } finally {
      await server.stop();
    }
  });
});

describe('tpa local encrypt stopped while it seals the journals', () => {
  const MEMBER = 'PLAINMEMBER-';

  /** A journal of `n` invalid claims (each naming its own member) in the data directory; its path. */
  async function journalOfInvalidClaims(n: number): Promise<string> {
    const claim = claimTemplate({ type: 'professional', npi: '1045782368', cpt: ['45378'], patient: 'MBR-1001', serviceDate: '2026-09-01' }) as Row;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(JSON.stringify({ ...claim, billablePeriod: { start: 'bad' }, patient: { reference: `Patient/${MEMBER}${i}` } }));
    writeFileSync(join(work.dir, 'invalid.ndjson'), `${lines.join('\n')}\n`);
    const r = await runTpa(['claim', 'submit', 'invalid.ndjson', '-o', 'json'], { home: home.dir, env: { TPA_CLOCK: CLOCK }, cwd: work.dir });
    expect(r.code, r.stderr.slice(-500)).toBe(2);
    const journals = readdirSync(join(home.dir, 'journals')).filter((f) => f.startsWith('claims-') && f.endsWith('.ndjson'));
    expect(journals).toHaveLength(1);
    const path = join(home.dir, 'journals', journals[0]!);
    expect(readFileSync(path, 'utf8')).toContain(`${MEMBER}${n - 1}`);
    return path;
  }

  const tmpsBeside = (journal: string) =>
    readdirSync(join(home.dir, 'journals')).filter((f) => f.startsWith(`${journal.split('/').pop()}.`) && f.endsWith('.tmp'));

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} in the middle of local encrypt: every journal is sealed first, then the process stops by the signal and says so; no temporary file is left`, async () => {
      plainDatabase(2000);
      const journal = await journalOfInvalidClaims(20_000);
      const key = newKey();
      const run = startEncrypt(key);
      let ended = false;
      void run.exited.then(() => {
        ended = true;
      });
      // Signalled inside the conversion (its marker on the disk): the journals are sealed after it.
      await until(() => ended || existsSync(marker()), 1);
      expect(ended).toBe(false);
      run.child.kill(signal);
      const exit = await run.exited;
      expect(exit.signal, run.stderr()).toBe(signal);
      expect(databaseFileState(db()).kind).toBe('encrypted');
      expect(filesHolding(home.dir, [MEMBER, ...MEMBER_IDS])).toEqual([]);
      expect(tmpsBeside(journal)).toEqual([]);
      expect(run.stderr()).toMatch(
        /interrupted: the database .* was encrypted whole first \(the conversion does not stop midway\), and 1 journal\(s\) sealed with it/,
      );
      // Read back with the key: every invalid claim still there.
      const shown = await runTpa(
        [
          'jobs',
          'show',
          journal
            .split('/')
            .pop()!
            .replace(/\.ndjson$/, ''),
          '-o',
          'json',
        ],
        {
          home: home.dir,
          env: { TPA_DB_KEY: key, TPA_CLOCK: CLOCK },
        },
      );
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.json<Row>()).toMatchObject({ invalid: 20_000 });
      expect(shown.stderr).not.toContain('plain text');
    }, 120_000);
  }

  it('killed (kill -9) while it seals a journal: the plain journal is never read without the key (exit 5), read with it and said once, and the next local encrypt seals it and removes what the killed sealing left', async () => {
    const journal = await journalOfInvalidClaims(30_000);
    const id = journal
      .split('/')
      .pop()!
      .replace(/\.ndjson$/, '');
    const key = newKey();
    const run = startEncrypt(key);
    let ended = false;
    void run.exited.then(() => {
      ended = true;
    });
    // Killed once its sealing of the journal has begun: the sealed text is being written beside it.
    await until(() => ended || tmpsBeside(journal).length > 0, 1);
    expect(ended, run.stderr()).toBe(false);
    run.child.kill('SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    expect(databaseFileState(db()).kind).toBe('encrypted');
    expect(readFileSync(journal, 'utf8')).toContain(MEMBER);
    // What a sealing stopped by kill -9 may leave, planted too so that each case is there: a
    // temporary file of its name pattern (removed), a symbolic link of that pattern to a file
    // outside (neither followed nor removed), a file of another pattern (left alone).
    const outside = join(work.dir, 'outside.txt');
    writeFileSync(outside, 'not tpa’s');
    const journals = join(home.dir, 'journals');
    writeFileSync(join(journals, `${id}.ndjson.4242.abc123.tmp`), `${JSON.stringify({ type: 'invalid', text: `${MEMBER}planted` })}\n`);
    symlinkSync(outside, join(journals, `${id}.ndjson.4243.def456.tmp`));
    writeFileSync(join(journals, 'notes.tmp'), 'mine');

    // Without the key: nothing read from the plain journal, as from a sealed one (exit 5).
    const failedTo = join(work.dir, 'failed.ndjson');
    for (const args of [['jobs'], ['jobs', 'show', id, '--failed-to', failedTo]]) {
      const r = await runTpa(args, { home: home.dir, env: { TPA_CLOCK: CLOCK } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(5);
      expect(r.stderr).toMatch(/its journals are too, and its key was not found/);
      expect(r.stdout).not.toContain(MEMBER);
    }
    expect(existsSync(failedTo)).toBe(false);
    // With the key: read, and said once that it holds plain lines, naming the command that seals them.
    const listed = await runTpa(['jobs', '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: key, TPA_CLOCK: CLOCK } });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json<Row[]>().find((j) => j.id === id)).toMatchObject({ invalid: 30_000, problem: null });
    expect(listed.stderr.match(/holds \d+ line\(s\) in plain text although the data directory is encrypted/g)).toHaveLength(1);
    expect(listed.stderr).toContain(`the journal ${journal} holds`);
    expect(listed.stderr).toContain('run tpa local encrypt to seal every journal still holding plain lines');

    // local encrypt again: the journal sealed, the leftover removed, the link and the other file left alone.
    const again = await runTpa(['local', 'encrypt', '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: key, TPA_CLOCK: CLOCK } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json<Row>()).toMatchObject({ encrypted: true, journals_sealed: 1 });
    expect(again.stderr).toMatch(/encrypt: [1-9]\d* temporary file\(s\) left by a sealing that was stopped removed/);
    expect(tmpsBeside(journal)).toEqual([`${id}.ndjson.4243.def456.tmp`]);
    expect(lstatSync(join(journals, `${id}.ndjson.4243.def456.tmp`)).isSymbolicLink()).toBe(true);
    expect(readFileSync(outside, 'utf8')).toBe('not tpa’s');
    expect(readFileSync(join(journals, 'notes.tmp'), 'utf8')).toBe('mine');
    rmSync(join(journals, 'notes.tmp'));
    expect(filesHolding(home.dir, [MEMBER])).toEqual([]);
    const after = await runTpa(['jobs', 'show', id, '-o', 'json'], { home: home.dir, env: { TPA_DB_KEY: key, TPA_CLOCK: CLOCK } });
    expect(after.json<Row>()).toMatchObject({ invalid: 30_000, problem: null });
    expect(after.stderr).not.toContain('plain text');
  }, 180_000);
});
