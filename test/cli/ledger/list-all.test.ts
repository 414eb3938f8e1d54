// `--all` streams: in every format it prints exactly the ledger's rows in order, page
// boundaries losing or repeating nothing; in-process a listing reads one snapshot, so a claim
// submitted while it runs changes nothing in it; over HTTP a row shifted by that claim is never
// printed twice.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { claimOf } from '../../helpers/claims.js';
import { runTpa, testEnv, TPA_BIN } from '../../helpers/cli.js';
import { call, tempDir } from '../../helpers/engine.js';
import { serve, type Served } from '../../helpers/server.js';

const CLOCK = '2026-06-20T12:00:00Z';
const CODES: [string, string][] = [
  ['1045782368', '45378'],
  ['1045782368', '45380'],
  ['1045782368', '43235'],
  ['1196382455', '00811'],
  ['1196382455', '00731'],
  ['1329475804', '88305'],
  ['1329475804', '88312'],
];
const MEMBERS = ['MBR-1001', 'MBR-1002', 'MBR-1003', 'MBR-1004'];
const N = 150;

/** `n` distinct claims through the engine, on days that repeat so that pages cross days. */
function buildLedger(dir: string, n: number, from = 0): void {
  const engine = Engine.open({ dataDir: dir, env: { TPA_CLOCK: CLOCK, TPA_ADJUDICATION_DELAY: '0' } });
  try {
    for (let i = from; i < from + n; i++) {
      const [npi, code] = CODES[i % CODES.length]!;
      const date = `2026-0${1 + (Math.floor(i / 28) % 5)}-${String(1 + (Math.floor(i / 7) % 4) * 7).padStart(2, '0')}`;
      const claim = claimOf({ npi, patient: MEMBERS[Math.floor(i / 7) % MEMBERS.length], lines: [{ code, date }] });
      const res = call(engine, 'POST', '/tpa-api/v1/claims/submit/', claim, { 'content-type': 'application/fhir+json' });
      if (res.status !== 201) throw new Error(`claim ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  } finally {
    engine.close();
  }
}

const home = tempDir();
const env = { TPA_CLOCK: CLOCK };
let ids: string[];

beforeAll(async () => {
  buildLedger(home.dir, N);
  const whole = await runTpa(['ledger', 'list', '--limit', '100', '-o', 'json'], { home: home.dir, env });
  const second = await runTpa(['ledger', 'list', '--limit', '100', '--offset', '100', '-o', 'json'], { home: home.dir, env });
  ids = [...whole.json<{ results: { encounter_id: string }[] }>().results, ...second.json<{ results: { encounter_id: string }[] }>().results].map(
    (r) => r.encounter_id,
  );
  expect(new Set(ids).size).toBe(N);
});
afterAll(() => home.remove());

describe('ledger list --all, in-process, in every format', () => {
  it('json is one array of exactly the ledger, in order, across pages of 7', async () => {
    const r = await runTpa(['ledger', 'list', '--all', '--limit', '7', '-o', 'json'], { home: home.dir, env });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { encounter_id: string }[];
    expect(rows.map((x) => x.encounter_id)).toEqual(ids);
    // Byte for byte what printing the whole list at once gives.
    expect(r.stdout).toBe(`${JSON.stringify(rows, null, 2)}\n`);
    expect(r.stderr).toBe('');
  });

  it('ndjson is byte for byte each entry of the json listing on a line of its own, in-process and over HTTP', async () => {
    const json = await runTpa(['ledger', 'list', '--all', '-o', 'json'], { home: home.dir, env });
    const lines = `${(JSON.parse(json.stdout) as unknown[]).map((row) => JSON.stringify(row)).join('\n')}\n`;
    const inProcess = await runTpa(['ledger', 'list', '--all', '--limit', '7', '-o', 'ndjson'], { home: home.dir, env });
    expect(inProcess.code, inProcess.stderr).toBe(0);
    expect(inProcess.stdout).toBe(lines);
    const server = await serve(home.dir, ['--no-rate-limit'], env);
    const client = tempDir();
    try {
      const key = (await runTpa(['local', 'keys', 'create'], { home: home.dir, env })).stdout.trim();
      const logged = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { home: client.dir, input: key });
      expect(logged.code, logged.stderr).toBe(0);
      const http = await runTpa(['ledger', 'list', '--all', '--limit', '7', '-o', 'ndjson', '--profile', 'sandbox'], { home: client.dir, env });
      expect(http.code, http.stderr).toBe(0);
      expect(http.stdout).toBe(lines);
    } finally {
      await server.stop();
      client.remove();
    }
  });

  it('ndjson is one line per entry, in order', async () => {
    const r = await runTpa(['ledger', 'list', '--all', '--limit', '7', '-o', 'ndjson'], { home: home.dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { encounter_id: string }).encounter_id),
    ).toEqual(ids);
  });

  it('csv has its header once and the same lines as one page of all of them', async () => {
    const paged = await runTpa(['ledger', 'list', '--all', '--limit', '7', '-o', 'csv'], { home: home.dir, env });
    const [first, second] = await Promise.all([
      runTpa(['ledger', 'list', '--limit', '100', '-o', 'csv'], { home: home.dir, env }),
      runTpa(['ledger', 'list', '--limit', '100', '--offset', '100', '-o', 'csv'], { home: home.dir, env }),
    ]);
    expect(paged.code, paged.stderr).toBe(0);
    const lines = paged.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('id,')).length).toBe(1);
    expect(lines).toEqual([...first.stdout.trimEnd().split('\n'), ...second.stdout.trimEnd().split('\n').slice(1)]);
  });

  it('the table lists every entry once, in order, under one header', async () => {
    const r = await runTpa(['ledger', 'list', '--all', '--limit', '7', '-o', 'table'], { home: home.dir, env });
    expect(r.code, r.stderr).toBe(0);
    const shown = [...r.stdout.matchAll(/\benc_[0-9a-f]{20}\b/g)].map((m) => m[0]);
    expect(shown).toEqual(ids);
    expect(r.stdout.match(/Encounter/g)?.length).toBe(1);
    const widths = new Set(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => [...l].length),
    );
    expect(widths.size).toBe(1);
  });

  it('a filter streams only its rows', async () => {
    const r = await runTpa(['ledger', 'list', '--all', '--limit', '3', '--npi', '1196382455', '--from', '2026-02-01', '-o', 'ndjson'], { home: home.dir, env });
    const single = await runTpa(['ledger', 'list', '--limit', '100', '--npi', '1196382455', '--from', '2026-02-01', '-o', 'json'], { home: home.dir, env });
    const expected = single.json<{ results: { encounter_id: string }[]; count: number }>();
    expect(expected.count).toBeGreaterThan(3);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { encounter_id: string }).encounter_id),
    ).toEqual(expected.results.map((x) => x.encounter_id));
  });
});

/** Starts `tpa ledger list --all` with its stdout unread after the first chunk, so that it stops mid-listing on a full pipe. */
function pausedListing(args: string[], extraEnv: Record<string, string>) {
  const childEnv = testEnv({ home: home.dir, env: { ...env, ...extraEnv } });
  const child = spawn(process.execPath, [TPA_BIN, 'ledger', 'list', '--all', ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // The first chunk proves the listing has begun (its snapshot is taken); then nothing is read, so
  // the pipe fills and the listing waits in the middle. Every chunk goes to the collector from the
  // start: when a child exits, Node resumes its paused output streams (child_process flushStdio),
  // and whatever they held would go to no one (one run in four lost the listing so, when it ended
  // before the test read on).
  let first = true;
  const started = new Promise<void>((resolve) =>
    child.stdout.on('data', (d: Buffer) => {
      chunks.push(d);
      if (!first) return;
      first = false;
      child.stdout.pause();
      resolve();
    }),
  );
  // What was printed is whole once the stream has ended, whenever the process is reported closed.
  const ended = new Promise<void>((resolve) => child.stdout.once('end', () => resolve()));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const done = Promise.all([closed, ended]).then(([code]) => ({ code, stdout: Buffer.concat(chunks).toString('utf8'), stderr }));
  return {
    started,
    finish: () => {
      child.stdout.resume();
      return done;
    },
  };
}

/** Submits, in another process, a claim with the newest service date: it sorts first, shifting every page by one. */
function submitNewest(patient: string) {
  return runTpa(['claim', 'submit', '-'], {
    home: home.dir,
    env,
    input: JSON.stringify(claimOf({ npi: '1045782368', patient, lines: [{ code: '45378', date: '2026-06-19' }] })),
  });
}

describe('a claim submitted while a listing runs', () => {
  it('in-process the listing reads one snapshot: the ledger as it stood, nothing repeated, nothing added', async () => {
    const listing = pausedListing(['--limit', '2', '-o', 'json'], {});
    await listing.started;
    // Without a snapshot every later page would shift by one.
    const added = await submitNewest('MBR-1004');
    expect(added.code, added.stderr).toBe(0);
    const { code, stdout, stderr } = await listing.finish();
    expect(code, stderr).toBe(0);
    expect((JSON.parse(stdout) as { encounter_id: string }[]).map((r) => r.encounter_id)).toEqual(ids);
    const after = await runTpa(['ledger', 'list', '--limit', '1', '-o', 'json'], { home: home.dir, env });
    expect(after.json<{ count: number }>().count).toBe(N + 1);
    ids = [after.json<{ results: { encounter_id: string }[] }>().results[0]!.encounter_id, ...ids];
  });

  it('over HTTP (no snapshot) the shift never prints a row twice, and no row of the ledger before it is lost', async () => {
    const server: Served = await serve(home.dir, ['--no-rate-limit'], env);
    const client = tempDir();
    try {
      const key = (await runTpa(['local', 'keys', 'create'], { home: home.dir, env })).stdout.trim();
      const logged = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', server.url, '--with-key-stdin'], { home: client.dir, input: key });
      expect(logged.code, logged.stderr).toBe(0);
      const listing = pausedListing(['--limit', '2', '-o', 'json', '--profile', 'sandbox'], { TPA_HOME: client.dir });
      await listing.started;
      const added = await submitNewest('MBR-1003');
      expect(added.code, added.stderr).toBe(0);
      const { code, stdout, stderr } = await listing.finish();
      expect(code, stderr).toBe(0);
      const printed = (JSON.parse(stdout) as { encounter_id: string }[]).map((r) => r.encounter_id);
      expect(new Set(printed).size).toBe(printed.length);
      expect(printed.filter((id) => ids.includes(id))).toEqual(ids);
    } finally {
      await server.stop();
      client.remove();
    }
  });
});
