// `claim validate` reads what `claim submit` reads (files, Bundles, NDJSON, folders,
// stdin), names each invalid claim with file:line and field, and `claim submit --dry-run` shows what
// would be sent without sending or journaling anything. JSON syntax errors say line and column.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
type Row = Record<string, any>;

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: home, remove: cleanup } = tempDir());
});
afterEach(() => cleanup());

const claim = (i: number): Row => distinctClaim(i) as Row;
const run = (args: string[], input?: string) => runTpa(args, { home, env, input });

/** A folder with a pretty Claim (a bad code on its line 35 or so), a Bundle, an NDJSON file with a bad line 2 and a syntax error on line 3. */
function sources(): { dir: string; badCodeLine: number } {
  const dir = join(home, 'in');
  mkdirSync(join(dir, 'folder'), { recursive: true });
  const bad = claim(0);
  bad.item[0].productOrService.coding[0].code = '4537';
  const pretty = JSON.stringify(bad, null, 2);
  writeFileSync(join(dir, 'one.json'), pretty);
  const badCodeLine = pretty.split('\n').findIndex((l) => l.includes('"4537"')) + 1;
  writeFileSync(
    join(dir, 'bundle.json'),
    JSON.stringify({ resourceType: 'Bundle', type: 'collection', entry: [{ resource: claim(1) }, { resource: claim(2) }] }),
  );
  const noPatient = claim(4);
  delete noPatient.patient;
  writeFileSync(
    join(dir, 'folder', 'many.ndjson'),
    `${JSON.stringify(claim(3))}\n${JSON.stringify(noPatient)}\n{"resourceType": "Claim",, }\n${JSON.stringify(claim(5))}\n`,
  );
  return { dir, badCodeLine };
}

describe('tpa claim validate, many claims', () => {
  it('reads every source claim submit reads and names each invalid claim with file:line and field; exit 2', async () => {
    const { badCodeLine } = sources();
    const r = await run(['claim', 'validate', 'in/one.json', 'in/bundle.json', 'in/folder', '-', '-o', 'ndjson'], `${JSON.stringify(claim(6))}\n`);
    expect(r.code, r.stderr).toBe(2);
    const rows = ndjson(r.stdout);
    expect(rows.map((o) => [o.source, o.valid])).toEqual([
      ['in/one.json', false],
      ['in/bundle.json#entry[0]', true],
      ['in/bundle.json#entry[1]', true],
      ['in/folder/many.ndjson:1', true],
      ['in/folder/many.ndjson:2', false],
      ['in/folder/many.ndjson:3', false],
      ['in/folder/many.ndjson:4', true],
      ['stdin:1', true],
    ]);
    expect(rows[0]!.errors[0]).toMatchObject({ field: 'item[0].productOrService.coding[0].code', line: badCodeLine });
    expect(r.stderr).toContain(`in/one.json:${badCodeLine}:`);
    expect(r.stderr).toMatch(/in\/folder\/many\.ndjson:2:\d+: patient\.reference/);
    // A syntax error says its line and column, not an offset.
    expect(r.stderr).toMatch(/in\/folder\/many\.ndjson:3:\d+: .*not valid JSON.*line 3, column 26/);
    expect(r.stderr).not.toMatch(/position \d+/);
    expect(r.stderr).toMatch(/8 claims: 5 valid, 3 invalid/);
  });

  it('exits 0 when every claim is valid, with counts in the table and one JSON array', async () => {
    writeFileSync(join(home, 'ok.ndjson'), `${JSON.stringify(claim(1))}\n${JSON.stringify(claim(2))}\n`);
    const json = await run(['claim', 'validate', 'ok.ndjson', '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json<Row[]>().map((o) => o.valid)).toEqual([true, true]);
    const table = await runTpa(['claim', 'validate', 'ok.ndjson'], { home, env, tty: true, columns: 80 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/Valid\b.*\b2\b/);
    expect(table.stdout).toMatch(/Invalid\b.*\b0\b/);
  });

  it('a syntax error in a pretty JSON file says its line and column', async () => {
    writeFileSync(join(home, 'broken.json'), '{\n  "resourceType": "Claim",\n  "status": "active"\n  "use": "claim"\n}\n');
    const r = await run(['claim', 'validate', 'broken.json', '-o', 'table']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 4, column 3/);
    expect(r.stderr).not.toMatch(/position \d+/);
  });

  it('a syntax error V8 gives no offset for still says file:line:column and a reason, never the raw text', async () => {
    writeFileSync(join(home, 's.json'), '{"resourceType":"Claim",\n "y": [1,2,\n}\n');
    const r = await run(['claim', 'validate', 's.json', '-o', 'table']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ {2}s\.json:3:1: not valid JSON: unexpected "}" after ","; expected a value \(line 3, column 1\)$/m);
    // The file's text (its escaped line breaks, its keys) is not quoted back.
    expect(r.stderr).not.toContain('\\n');
    expect(r.stderr).not.toContain('resourceType');
    expect(r.stderr).not.toContain('is not valid JSON');
  });
});

describe('tpa claim submit --dry-run', () => {
  it('validates and prints the claims it would send, sending and journaling nothing', async () => {
    writeFileSync(join(home, 'ok.ndjson'), `${JSON.stringify(claim(1))}\n${JSON.stringify(claim(2))}\n`);
    const r = await run(['claim', 'submit', 'ok.ndjson', '--dry-run', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    const sent = ndjson(r.stdout);
    expect(sent).toEqual([claim(1), claim(2)]);
    const table = await runTpa(['claim', 'submit', 'ok.ndjson', '--dry-run'], { home, env, tty: true, columns: 80 });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/would send 2 claims/i);
    const journals = join(home, 'journals');
    expect(existsSync(journals) ? readdirSync(journals).filter((n) => n.startsWith('claims')) : []).toEqual([]);
    const ledger = await run(['ledger', 'list', '-o', 'json']);
    expect(ledger.json()).toMatchObject({ count: 0 });
  });

  it('with an invalid claim among them exits 2, names it, and still sends nothing', async () => {
    sources();
    const r = await run(['claim', 'submit', 'in', 'in/folder', '--dry-run', '-o', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/many\.ndjson:2:\d+: patient\.reference/);
    expect(r.json<Row[]>().map((c) => c.resourceType)).toEqual(['Claim', 'Claim', 'Claim', 'Claim']);
    expect((await run(['ledger', 'list', '-o', 'json'])).json()).toMatchObject({ count: 0 });
  });
});
