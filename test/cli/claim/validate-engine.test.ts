// `claim validate` on the local profile puts each claim to the embedded engine's rules (contract,
// rates, member, duplicates) as submitting it would, and keeps nothing; on another profile it says
// what it did not check.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { login, serve } from '../../helpers/server.js';

const home = useTpaHome(beforeAll, afterAll);
const run = home.run;
type Row = Record<string, any>;

async function template(name: string, args: string[]): Promise<string> {
  const t = await run(['claim', 'template', ...args]);
  expect(t.code, t.stderr).toBe(0);
  writeFileSync(join(home.dir, name), t.stdout);
  return name;
}

const ledger = async () => (await run(['ledger', 'list', '--all', '-o', 'json'])).json<Row[]>();

describe('claim validate on the local profile: the engine’s rules, nothing sent', () => {
  it('a provider without a contract for the code: refused as the engine would refuse it, exit 2, nothing sent', async () => {
    const file = await template('nocontract.json', ['--npi', '1859362703', '--cpt', '45378']);
    const r = await run(['claim', 'validate', file, '-o', 'table']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nocontract\.json: the engine would refuse it: No active contract for provider 1859362703 covers 45378 on \d{4}-\d\d-\d\d/);
    expect(r.stderr).toContain('nothing was sent');
    expect(r.stdout).not.toMatch(/valid/);
    expect(await ledger()).toEqual([]);
  });

  it('a member the plan does not know: refused with the field, exit 2', async () => {
    const file = await template('nomember.json', ['--patient', 'MBR-9999']);
    const r = await run(['claim', 'validate', file, '-o', 'json']);
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error;
    expect(error.details).toEqual([{ field: 'patient.reference', message: 'no member "MBR-9999" is enrolled with the plan' }]);
  });

  it('an uncontracted code beside a contracted one: not "valid" alone; the line the engine would not cover, with its CARC', async () => {
    const file = await template('partial.json', ['--cpt', '45378', '27447']);
    const r = await run(['claim', 'validate', file, '-o', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('! partial.json is a valid professional claim that the engine would not pay in full');
    expect(r.stdout).toMatch(/would be PARTIAL_APPROVAL: benefit [\d,]+\.\d\d; line 2 \(27447\) NOT_COVERED CARC-96/);
    const json = (await run(['claim', 'validate', file, '-o', 'json'])).json<Row>();
    expect(json.engine_check).toMatchObject({ checked: true, accepted: true, disposition: 'PARTIAL_APPROVAL' });
    expect(json.engine_check.lines).toEqual([expect.objectContaining({ sequence: 2, cpt_code: '27447', status: 'NOT_COVERED', reason_code: 'CARC-96' })]);
    expect(await ledger()).toEqual([]);
  });

  it('a good claim says what it would be paid; after it is sent, the same claim would be denied as a duplicate', async () => {
    const file = await template('ok.json', ['--cpt', '45378', '--patient', 'MBR-1002']);
    const before = await run(['claim', 'validate', file, '-o', 'table']);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/✓ ok\.json is a valid professional claim[\s\S]*Engine \(local\)\s+would be APPROVED: benefit [\d,]+\.\d\d/);
    // Validating twice, or validating at all, keeps nothing: the ledger is still empty.
    expect(await ledger()).toEqual([]);
    expect((await run(['claim', 'submit', file, '--wait', '-o', 'json'])).code).toBe(0);
    const after = await run(['claim', 'validate', file, '-o', 'json']);
    expect(after.json<Row>().engine_check).toMatchObject({ disposition: 'DENIED', says: expect.stringMatching(/^would be DENIED: CARC-18/) });
    expect((await ledger()).length).toBe(1);
  });

  it('many claims: the one the engine would refuse is invalid with its reason, on stderr and in its row', async () => {
    const good = await template('many-good.json', ['--cpt', '43235', '--patient', 'MBR-1004']);
    const bad = await template('many-bad.json', ['--npi', '1859362703', '--cpt', '45378']);
    const r = await run(['claim', 'validate', good, bad, '-o', 'ndjson']);
    expect(r.code).toBe(2);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(rows.map((x) => [x.source, x.valid])).toEqual([
      ['many-good.json', true],
      ['many-bad.json', false],
    ]);
    expect(rows[0]!.engine_check).toMatchObject({ checked: true, disposition: 'APPROVED' });
    expect(r.stderr).toMatch(/many-bad\.json:1:1: No active contract for provider 1859362703/);
    expect(await ledger()).toHaveLength(1);
  });
});

describe('claim validate of many claims on the local profile', () => {
  it('says each claim the engine would not pay in full, and counts them, on a terminal and piped', async () => {
    const part = await template('many-partial.json', ['--cpt', '45378', '27447', '--patient', 'MBR-1004']);
    const full = await template('many-full.json', ['--cpt', '43235', '--patient', 'MBR-1004']);
    const piped = await run(['claim', 'validate', part, full, '-o', 'ndjson']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toMatch(/many-partial\.json: would be PARTIAL_APPROVAL: [^\n]*line 2 \(27447\) NOT_COVERED CARC-96/);
    expect(piped.stderr).toContain('2 claims: 2 valid, 0 invalid; 1 the engine would not pay in full');
    const table = await run(['claim', 'validate', part, full, '-o', 'table']);
    expect(table.stdout).toMatch(/Valid, not paid in full \(engine\)\s*│\s*1/);
  });
});

describe('claim validate on another profile', () => {
  it('says what it did not check (contract, rates, member, duplicates), and checks nothing there', async () => {
    const file = await template('remote.json', ['--npi', '1859362703', '--cpt', '45378']);
    const server = await serve(home.dir);
    try {
      await login(home.dir, server.url);
      const r = await run(['claim', 'validate', file, '-p', 'sandbox', '-o', 'table']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/Not checked\s+the provider's contract and rates, the member's eligibility and benefits, duplicates/);
      const json = (await run(['claim', 'validate', file, '-p', 'sandbox', '-o', 'json'])).json<Row>();
      expect(json.engine_check).toEqual({ checked: false, not_checked: expect.stringMatching(/^not checked here: /) });
      const many = await run(['claim', 'validate', file, file, '-p', 'sandbox', '-o', 'ndjson']);
      expect(many.stderr).toMatch(/not checked here: the provider's contract/);
    } finally {
      await server.stop();
    }
  });
});
