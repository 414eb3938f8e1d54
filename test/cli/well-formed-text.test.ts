// The command line refuses text that is not well-formed: an argument holding a lone surrogate (a
// caller of run() can hand one; argv decoded by Node cannot) exits 2 naming its option, and the
// files the CLI reads are UTF-8 or refused with their line, never read with U+FFFD in place of
// their bytes: a claim is one INVALID claim and the batch goes on; any other file is exit 2.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distinctClaim } from '../helpers/claims.js';
import { TPA_BIN, testEnv, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';
import { ndjson } from '../helpers/values.js';

type Row = Record<string, any>;
const CLOCK = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeEach, afterEach, CLOCK);
const run = home.run;

/** A claim's JSON text as bytes, with `bytes` inside a string of it (an extension's valueString). */
function claimBytes(i: number, bytes: number[]): Buffer {
  const text = JSON.stringify({ ...(distinctClaim(i) as Row), extension: [{ url: 'http://example.org/note', valueString: 'NOTE' }] });
  const [before, after] = text.split('NOTE') as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

async function auditHead(): Promise<unknown> {
  const r = await run(['local', 'audit', 'head', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json();
}

describe('text that is not well-formed, on the command line', () => {
  it('an argument holding a lone surrogate exits 2 naming its option; nothing is sent', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    const head = await auditHead();
    const apart = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-\ud800-0001', '--yes']);
    expect(apart.code).toBe(2);
    expect(apart.stderr).toMatch(/argument \d+ \(after --auth-code\): is not well-formed Unicode text/);
    const joined = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code=AUTH-\udc00', '--yes']);
    expect(joined.code).toBe(2);
    expect(joined.stderr).toMatch(/argument \d+ \(--auth-code\): is not well-formed Unicode text/);
    expect(await auditHead()).toEqual(head);
    expect((await run(['fund', 'history', '-o', 'json'])).json()).toEqual([]);
    // Well-formed text beyond the BMP goes through as typed.
    const emoji = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-😀-0001', '--yes', '-o', 'json']);
    expect(emoji.code, emoji.stderr).toBe(0);
    const deep = await run(['local', 'audit', 'verify', '--deep', '-o', 'json']);
    expect(deep.code, deep.stderr).toBe(0);
  });

  it('an argument whose bytes are not UTF-8 (U+FFFD once Node decodes it) exits 2 naming its option; nothing is sent or stored', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    const head = await auditHead();
    // bash hands tpa the raw bytes ($'\\xff'); Node decodes them to U+FFFD before tpa runs.
    const cases: [string, RegExp][] = [
      [
        `--auth-code $'AUTH-20261207-ACME-\\xed\\xa0\\x80'`,
        /argument \d+ \(after --auth-code\): holds U\+FFFD, which is what bytes that are not UTF-8 become; nothing was sent/,
      ],
      [
        `--auth-code AUTH-NOTE-0001 --notes $'member \\xff note'`,
        /argument \d+ \(after --notes\): holds U\+FFFD, which is what bytes that are not UTF-8 become; nothing was sent/,
      ],
    ];
    for (const [options, named] of cases) {
      const r = spawnSync('bash', ['-c', `exec "$TPA_TEST_NODE" "$TPA_TEST_BIN" fund approve "$TPA_TEST_ID" --amount "$TPA_TEST_AMOUNT" ${options} --yes`], {
        env: testEnv({
          home: home.dir,
          env: { ...CLOCK, TPA_TEST_NODE: process.execPath, TPA_TEST_BIN: TPA_BIN, TPA_TEST_ID: e.id, TPA_TEST_AMOUNT: e.amount },
        }),
        cwd: home.dir,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(named);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await auditHead()).toEqual(head);
    expect((await run(['fund', 'history', '-o', 'json'])).json()).toEqual([]);
    expect((await run(['ledger', 'show', e.id, '-o', 'json'])).json<Row>().encounter.status).toBe('ADJUDICATED');
  });

  it('TPA_HOME, XDG_CONFIG_HOME, XDG_DATA_HOME or TPA_CA_FILE whose bytes are not UTF-8 exits 2 naming the variable; no other directory is made', () => {
    const base = home.dir;
    for (const name of ['TPA_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'TPA_CA_FILE']) {
      // bash hands tpa the raw byte; Node decodes it to U+FFFD, which names another path.
      const r = spawnSync('bash', ['-c', `export ${name}=$'${base}/x\\xff'; exec "$TPA_TEST_NODE" "$TPA_TEST_BIN" local init`], {
        env: {
          ...testEnv({ home: base, env: { ...CLOCK, TPA_TEST_NODE: process.execPath, TPA_TEST_BIN: TPA_BIN } }),
          // The XDG variables count only without TPA_HOME.
          ...(name === 'TPA_HOME' ? {} : { TPA_HOME: '' }),
        },
        cwd: base,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`${name}="${base}/x\ufffd": holds U\\+FFFD, which is what bytes that are not UTF-8 become`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(
        readdirSync(base).filter((n) => n.startsWith('x')),
        name,
      ).toEqual([]);
    }
    // A lone surrogate handed by a caller of run() is refused the same way.
    return run(['local', 'init'], { TPA_HOME: `${base}/y\ud800` }).then((r) => {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/TPA_HOME=".*\/y\\ud800": is not well-formed Unicode text/);
    });
  });

  it('a claim file, an NDJSON line or stdin that is not UTF-8 is one INVALID claim naming its file and line; the batch goes on', async () => {
    writeFileSync(join(home.dir, 'a.json'), JSON.stringify(distinctClaim(0)));
    // A lone 0xFF, and the CESU-8 bytes of U+D800: neither is UTF-8.
    writeFileSync(join(home.dir, 'bad.json'), Buffer.concat([Buffer.from('\n\n'), claimBytes(1, [0xff])]));
    writeFileSync(
      join(home.dir, 'z.ndjson'),
      Buffer.concat([claimBytes(2, [0xed, 0xa0, 0x80]), Buffer.from(`\n${JSON.stringify(distinctClaim(3))}\n`), claimBytes(4, [0xc3]), Buffer.from('\n')]),
    );
    const r = await run(['claim', 'submit', 'a.json', 'bad.json', 'z.ndjson', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(2);
    const by = new Map(ndjson(r.stdout).map((o) => [o.source, o]));
    for (const source of ['bad.json:3', 'z.ndjson:1', 'z.ndjson:3']) {
      expect(by.get(source), source).toMatchObject({ status: 'INVALID', errors: [{ field: '', message: expect.stringMatching(/not UTF-8 text/) }] });
    }
    expect(by.get('a.json')!.status).toBe('ACKNOWLEDGED');
    expect(by.get('z.ndjson:2')!.status).toBe('ACKNOWLEDGED');
    const ledger = await run(['ledger', 'list', '--all', '-o', 'ndjson']);
    expect(ndjson(ledger.stdout)).toHaveLength(2);
    // Stdin (bytes as a pipe gives them: a real process): a document (one claim) with a line that is
    // not UTF-8 is refused naming that line; in NDJSON, each such line is one INVALID claim.
    const stdin = (input: Buffer) =>
      spawnSync(process.execPath, [TPA_BIN, 'claim', 'submit', '-', '-o', 'ndjson', '--again'], {
        env: testEnv({ home: home.dir, env: CLOCK }),
        input,
        encoding: 'utf8',
      });
    const document = stdin(Buffer.concat([Buffer.from('{\n'), claimBytes(5, [0xff]).subarray(1)]));
    expect(document.status, document.stderr).toBe(2);
    expect(document.stderr).toContain('stdin:2: not UTF-8 text');
    const lines = stdin(Buffer.concat([Buffer.from(`${JSON.stringify(distinctClaim(6))}\n`), claimBytes(7, [0xff]), Buffer.from('\n')]));
    expect(
      ndjson(lines.stdout)
        .map((o) => [o.source, o.status])
        .sort(),
    ).toEqual([
      ['stdin:1', 'ACKNOWLEDGED'],
      ['stdin:2', 'INVALID'],
    ]);
  });

  it('an 837 with bytes that are not UTF-8 is refused whole, naming the segment and byte; nothing of it is read', async () => {
    const text = interchange([
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [professionalClaim({ clm01: 'PATIENT123', lines: [{ cpt: '45378', charge: '1800', date: '20250110' }] })],
      }),
    ]);
    const at = text.indexOf('DOE*JANE') + 'DOE*JA'.length;
    const terminator = text[105]!;
    const segment = text.slice(0, at).split(terminator).length;
    const bytes = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(text.slice(at))]);
    writeFileSync(join(home.dir, 'bad.837'), bytes);
    const r = await run(['claim', 'convert', 'bad.837']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`bad.837: segment ${segment}: byte ${Buffer.byteLength(text.slice(0, at))} is not UTF-8 text`);
    // The same file in UTF-8 converts.
    writeFileSync(join(home.dir, 'good.837'), text.replace('DOE*JANE', 'DOE*JAÑE'));
    expect((await run(['claim', 'convert', 'good.837'])).code).toBe(0);
  });

  it('ratesheet import and api -d @file of bytes that are not UTF-8 exit 2 naming the file and line; nothing is sent or written', async () => {
    expect((await run(['ratesheet', 'init', 'BLD-1001'])).code).toBe(0);
    const csv = join(home.dir, 'rates.csv');
    writeFileSync(
      csv,
      Buffer.concat([
        Buffer.from('ssp_code,rate_type,rate_value,bundle_type,notes\nHD-0401,CASE_RATE,2100,,\nGI-0101,CASE_RATE,900,,caf'),
        Buffer.from([0xe9]),
        Buffer.from('\n'),
      ]),
    );
    const imported = await run(['ratesheet', 'import', 'BLD-1001', csv]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain(`${csv}:3: the CSV is not UTF-8 text`);
    expect((await run(['ratesheet', 'show', 'BLD-1001', '-o', 'json'])).json<{ rate_schedule: { items: unknown[] } }>().rate_schedule.items).toEqual([]);
    const body = join(home.dir, 'body.json');
    writeFileSync(body, Buffer.concat([Buffer.from('{"ssp_code":\n"HD-'), Buffer.from([0xff]), Buffer.from('"}')]));
    const head = await auditHead();
    const api = await run(['api', 'POST', '/tpa-api/v1/contract-lookup/blind/', '-d', `@${body}`]);
    expect(api.code).toBe(2);
    expect(api.stderr).toContain(`${body}:2: the request body is not UTF-8 text`);
    expect(await auditHead()).toEqual(head);
  });
});
