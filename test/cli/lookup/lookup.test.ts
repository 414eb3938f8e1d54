import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';

const home = useTpaHome(beforeAll, afterAll);
const run = (...args: string[]) => home.run(args);
const SURGEON = ['--npi', '1045782368', '--group', 'GRP-1001'];

describe('tpa lookup', () => {
  it('blind lookup prints the contract id as JSON when piped', async () => {
    const r = await run('lookup', 'blind', ...SURGEON, '--cpt', '45378', '43235');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ match_found: true, contract_id: 'ctr_8d21b5e09f4c7a13' });
    expect(r.stderr).toBe('');
  });

  it('blind lookup as a table shows the match and the contract id', async () => {
    const r = await run('lookup', 'blind', ...SURGEON, '--cpt', '45378,43235', '-o', 'table');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Match\s+yes/);
    expect(r.stdout).toContain('ctr_8d21b5e09f4c7a13');
  });

  it('a blind lookup with no contract exits 3 with the body on stdout and a JSON error on stderr', async () => {
    const r = await run('lookup', 'blind', ...SURGEON, '--cpt', '99213');
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ match_found: false });
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { exit_code: 3, status: 404 } });
  });

  it('bad input exits 2 naming the options, sends nothing and leaves stdout empty', async () => {
    const r = await run('lookup', 'blind', '--npi', '1234567890', '--group', 'GRP-1001', '--cpt', '4537', '-o', 'table');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--npi: .*check digit/);
    expect(r.stderr).toMatch(/--cpt: must be a 5-digit CPT code/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('a missing required option is a usage error (exit 2)', async () => {
    const r = await run('lookup', 'blind', '--npi', '1045782368');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/required option/);
  });

  it('full lookup shows pricing as a table and as JSON', async () => {
    const table = await run('lookup', 'full', 'ctr_8d21b5e09f4c7a13', ...SURGEON, '--cpt', '45378', '-o', 'table');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Rate type\s+CASE_RATE/);
    expect(table.stdout).toMatch(/Negotiated rate\s+425\.00\n/);
    const json = await run('lookup', 'full', 'ctr_8d21b5e09f4c7a13', ...SURGEON, '--cpt', '45378', '-o', 'json');
    expect(json.json()).toMatchObject({ contract_number: 'DC-2026-0002', negotiated_rate: 425 });
  });

  it("full lookup of a bundle answers the whole bundle's rate, and says so on a screen", async () => {
    const bundle = ['ctr_5a0f9e3d6c2b7184', '--npi', '1450827369', '--group', 'GRP-2002', '--cpt', '27447'];
    const table = await run('lookup', 'full', ...bundle, '-o', 'table');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Rate type\s+BUNDLE\n/);
    expect(table.stdout).toMatch(/Negotiated rate\s+28,500\.00 \(whole bundle\)\n/);
    expect((await run('lookup', 'full', ...bundle, '-o', 'json')).json()).toMatchObject({ rate_type: 'BUNDLE', negotiated_rate: 28500 });
  });

  it('full lookup of a malformed contract id exits 2 and of an unknown one exits 3', async () => {
    const malformed = await run('lookup', 'full', 'abc', ...SURGEON, '--cpt', '45378');
    expect(malformed.code).toBe(2);
    expect(malformed.json()).toMatchObject({ errors: [{ field: 'contract_id' }] });
    const unknown = await run('lookup', 'full', 'ctr_0000000000000000', ...SURGEON, '--cpt', '45378');
    expect(unknown.code).toBe(3);
  });

  it('lookup rates gives one result per code and exits 0 when any code is covered', async () => {
    const r = await run('lookup', 'rates', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45378', '99213', '-o', 'ndjson');
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({ cpt_code: '45378', match_found: true, rate_type: 'FLAT_RATE', negotiated_rate: 1450 }),
      expect.objectContaining({ cpt_code: '99213', match_found: false }),
    ]);
  });

  it('lookup rates exits 3 when no code is covered', async () => {
    const r = await run('lookup', 'rates', ...SURGEON, '--cpt', '99213', '70553');
    expect(r.code).toBe(3);
    expect(r.json<unknown[]>()).toHaveLength(2);
  });

  it('lookup blind and lookup rates find the contract active on --date', async () => {
    const northgate = ['--npi', '1673904821', '--group', 'GRP-3003'];
    const blind = await run('lookup', 'blind', ...northgate, '--cpt', '70553', '--date', '2025-06-01');
    expect(blind.code).toBe(0);
    expect(blind.json()).toMatchObject({ match_found: true, contract_id: 'ctr_0d4c8a2e6b9f1357' });
    const rates = await run('lookup', 'rates', ...northgate, '--cpt', '70553', '--date', '2025-06-01');
    expect(rates.code).toBe(0);
    expect(rates.json()).toEqual([
      expect.objectContaining({ cpt_code: '70553', match_found: true, contract_id: 'ctr_0d4c8a2e6b9f1357', negotiated_rate: 900, service_date: '2025-06-01' }),
    ]);
    const harbor = await run('lookup', 'rates', '--npi', '1728493051', '--group', 'GRP-3003', '--cpt', '66984', '--date', '2027-02-01');
    expect(harbor.code).toBe(0);
    expect(harbor.json()).toEqual([expect.objectContaining({ cpt_code: '66984', match_found: true, contract_number: 'DC-2027-0001' })]);
    const bad = await run('lookup', 'blind', ...northgate, '--cpt', '70553', '--date', '2025-6-1');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
  });

  it('csv output has a header row and one row per result', async () => {
    const r = await run('lookup', 'rates', '--npi', '1234567893', '--group', 'GRP-1001', '--cpt', '45378', '43235', '-o', 'csv');
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header).toContain('cpt_code');
    expect(header).toContain('negotiated_rate');
    expect(rows).toHaveLength(2);
  });
});
