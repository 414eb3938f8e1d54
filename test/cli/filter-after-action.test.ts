// A filter (--jq, --template) that fails on the result of something done: the action stands, recorded
// as the service answered it, its result on stderr unshaped, and the usage error says what was done
// (docs/scripting.md "Scripts: fields, jq and templates"). In-process on the embedded engine.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter, claimFile } from '../helpers/encounters.js';

type Body = Record<string, any>;

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;
const adjudicated = (patient: string) => adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', patient] });
const history = async () => (await run(['fund', 'history', '-o', 'json'])).json<Body[]>();

describe('a filter that fails after the action', () => {
  it('fund approve: the release is sent once and APPROVED, its answer on stderr with the transfer, exit 2 saying it was sent', async () => {
    const e = await adjudicated('MBR-1003');
    const r = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-20261126-JQ-0001', '--yes', '--jq', '.[0]']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const recorded = (await history()).filter((h) => h.encounter_id === e.id);
    expect(recorded.map((h) => h.outcome)).toEqual(['APPROVED']);
    const transfer = recorded[0]!.processor_transfer_id as string;
    expect(r.stderr).toContain(`"processor_transfer_id": "${transfer}"`);
    expect(r.stderr).toContain('Cannot index object with number');
    expect(r.stderr).toContain(`the release was sent and APPROVED (transfer ${transfer})`);
    // A template failing the same way: the same refusal of nothing, the record kept.
    const f = await adjudicated('MBR-1002');
    const t = await run(['fund', 'approve', f.id, '--amount', f.amount, '--auth-code', 'AUTH-20261126-JQ-0002', '--yes', '--template', '{{len .amount}}']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/the release was sent and APPROVED \(transfer tr_/);
    expect((await history()).filter((h) => h.encounter_id === f.id).map((h) => h.outcome)).toEqual(['APPROVED']);
  });

  it('fund run: every approval recorded APPROVED in the journal, the run goes on, its records on stderr, exit 2 naming the filter', async () => {
    await adjudicated('MBR-1003');
    await adjudicated('MBR-1002');
    const total = (await run(['fund', 'run', '--dry-run', '--jq', 'map(.amount) | add'])).stdout.trim();
    const r = await run(['fund', 'run', '--auth-code-prefix', 'AUTH-20261126-RUN', '--expect-total', total, '--yes', '--jq', '.[] | .amount | ascii_downcase']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/ascii_downcase/);
    expect(r.stderr).toContain('the run went on: each approval is recorded in its journal as the service answered it');
    expect(r.stderr.match(/"status": "APPROVED"/g)).toHaveLength(2);
    const jobs = (await run(['jobs', '-o', 'json'])).json<Body[]>();
    const job = jobs.find((j) => j.kind === 'payment run');
    expect(job).toMatchObject({ failed: 0, done: 2 });
    const ledger = (await run(['ledger', 'list', '--json', 'status'])).json<Body[]>();
    expect(ledger.map((l) => l.status)).toEqual(['FUNDED', 'FUNDED']);
  });

  it('claim submit --wait: the claim is submitted and adjudicated, its answer on stderr, exit 2 saying it was submitted', async () => {
    const file = await claimFile(run, home.dir);
    const r = await run(['claim', 'submit', file, '--wait', '--jq', 'error("x")']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/the claim was submitted \(\S+\)/);
    expect(r.stderr).toContain('"submission_id"');
    const ledger = (await run(['ledger', 'list', '--json', 'status'])).json<Body[]>();
    expect(ledger).toHaveLength(1);
  });
});

describe('an empty filter', () => {
  it('--template "" and --json "" are refused before anything is sent, as --jq "" is', async () => {
    const e = await adjudicated('MBR-1003');
    for (const shape of [
      ['--template', ''],
      ['--json', ''],
      ['--jq', ''],
    ]) {
      const r = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-20261126-EMPTY-0001', '--yes', ...shape]);
      expect(r.code, shape.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      if (shape[0] !== '--json') expect(r.stderr).toContain(`${shape[0]} is empty`);
    }
    expect(await history()).toEqual([]);
  });
});

describe('a jq expression that exhausts its memory', () => {
  it('is a usage error naming the expression (exit 2), not an internal error', async () => {
    const r = await run(['ledger', 'list', '--jq', '[range(1e9)]']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--jq \\"[range(1e9)]\\": jq stopped');
  });
});
