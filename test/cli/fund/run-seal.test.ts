// A payment run's confirmed plan is sealed: the journal holds the plan with an
// HMAC whose key is the approver's, kept in the credential store (here credentials.json, mode 0600,
// in the config dir), never in the journal. A resume whose journal no longer holds the plan that was
// confirmed (an encounter added, an amount changed, the seal gone, a second plan) is refused before
// anything is sent (exit 2), and so is one whose seal key is not in the store.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { distinctClaim } from '../../helpers/claims.js';
import { cents, ndjson } from '../../helpers/values.js';

const env = { TPA_CLOCK: '2026-06-30T12:00:00Z' };
const home = useTpaHome(beforeAll, afterAll, env);
const run = home.run;

type Row = Record<string, any>;
let review: { total: string; encounters: Row[] };
let journal: string;
let records: Row[];

const funded = async () => ndjson((await run(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'ndjson'])).stdout);
const credentials = () => JSON.parse(readFileSync(join(home.dir, 'credentials.json'), 'utf8')) as { secrets: Record<string, string> };
/** A copy of the confirmed run's journal, changed by `edit`; its path. */
function tampered(name: string, edit: (records: Row[]) => Row[]): string {
  const path = join(home.dir, `${name}.ndjson`);
  writeFileSync(
    path,
    `${edit(structuredClone(records))
      .map((r) => JSON.stringify(r))
      .join('\n')}\n`,
  );
  return path;
}
const resume = (path: string) => run(['fund', 'run', '--journal', path, '--yes', '-o', 'ndjson']);

beforeAll(async () => {
  const file = join(home.dir, 'claims.ndjson');
  writeFileSync(file, `${Array.from({ length: 12 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  expect((await run(['claim', 'submit', file, '-o', 'ndjson'])).code).toBe(0);
  review = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json();
  expect(review.encounters.length).toBeGreaterThan(2);
  // A run of one encounter, confirmed and done.
  journal = join(home.dir, 'run.ndjson');
  const first = review.encounters[0]!;
  const r = await run([
    'fund',
    'run',
    '--limit',
    '1',
    '--auth-code-prefix',
    'AUTH-SEAL',
    '--expect-total',
    String(first.amount),
    '--yes',
    '--journal',
    journal,
    '-o',
    'ndjson',
  ]);
  expect(r.code, r.stderr).toBe(0);
  records = ndjson(readFileSync(journal, 'utf8'));
  expect(await funded()).toHaveLength(1);
});

describe('a sealed payment run', () => {
  it('the plan is sealed with a key that is in the credential store, not in the journal', () => {
    const key = credentials().secrets['payment-run-seal'];
    expect(key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const text = readFileSync(journal, 'utf8');
    expect(text).not.toContain(key!);
    expect(text).not.toContain(Buffer.from(key!, 'base64').toString('hex'));
    expect(records[0]).toMatchObject({ type: 'payment_run', version: 2, seal: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/) });
  });

  it('an untouched journal resumes: nothing left, nothing sent again', async () => {
    const again = await resume(tampered('untouched', (r) => r));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/0 of 1 approvals left/);
    expect(await funded()).toHaveLength(1);
  });

  it('an encounter added to the journal is refused on resume (exit 2): nothing funded', async () => {
    const extra = review.encounters[1]!;
    const path = tampered('added', (r) => {
      const plan = r[0]!.plan;
      plan.encounters.push({
        ...plan.encounters[0],
        encounter_id: extra.encounter_id,
        encounter_number: extra.encounter_number,
        amount_cents: cents(extra.amount),
        authorization_code: 'AUTH-SEAL-0002',
        idempotency_key: '6f1d2c8e-0b7a-4c5d-9e3f-2a1b0c9d8e7f',
      });
      plan.total_cents += cents(extra.amount);
      return r;
    });
    const r = await resume(path);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the payment run in ${path} cannot be resumed: its plan no longer matches the one confirmed`);
    expect(r.stderr).toContain('Nothing was sent');
    expect(r.stdout).toBe('');
    expect(await funded()).toHaveLength(1);
  });

  it('a changed amount, a removed seal or a second plan are refused alike', async () => {
    const cases: [string, (r: Row[]) => Row[], RegExp][] = [
      [
        'amount',
        (r) => {
          r[0]!.plan.encounters[0].amount_cents += 100;
          r[0]!.plan.total_cents += 100;
          return r;
        },
        /no longer matches the one confirmed/,
      ],
      [
        'unsealed',
        (r) => {
          delete r[0]!.seal;
          return r;
        },
        /carries no seal/,
      ],
      ['two-plans', (r) => [...r, { ...r[0]!, plan: { ...r[0]!.plan, prefix: 'AUTH-OTHER' } }], /more than one plan/],
    ];
    for (const [name, edit, why] of cases) {
      const r = await resume(tampered(name, edit));
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(why);
    }
    expect(await funded()).toHaveLength(1);
  });

  it('a line after the plan that this run did not write, or one removed, is refused: a forged outcome reports nothing', async () => {
    expect(records.map((r) => r.type)).toEqual(['payment_run', 'sending', 'outcome']);
    const cases: [string, (r: Row[]) => Row[]][] = [
      // An outcome saying the approval went through with a transfer that never existed.
      ['forged-outcome', (r) => [r[0]!, r[1]!, { ...r[2]!, outcome: { ...r[2]!.outcome, processor_transfer_id: 'tr_fake0' } }]],
      // A line without a MAC, as an editor would add one.
      ['added-line', (r) => [...r, { type: 'sending', encounter_id: review.encounters[1]!.encounter_id, at: r[1]!.at }]],
      // The middle line dropped: the outcome no longer follows what it was chained to.
      ['dropped-line', (r) => [r[0]!, r[2]!]],
    ];
    for (const [name, edit] of cases) {
      const r = await resume(tampered(name, edit));
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(/after the plan\) is not one this run wrote/);
      expect(r.stdout, name).toBe('');
    }
    expect(await funded()).toHaveLength(1);
  });

  it("without the user's seal key in the store, a run is not resumed (exit 2), and a new key does not make it so", async () => {
    const saved = credentials();
    const { 'payment-run-seal': _key, ...others } = saved.secrets;
    writeFileSync(join(home.dir, 'credentials.json'), JSON.stringify({ ...saved, secrets: others }));
    try {
      const r = await resume(tampered('keyless', (x) => x));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/the key that sealed its plan is not in this user's credential store/);
      writeFileSync(
        join(home.dir, 'credentials.json'),
        JSON.stringify({ ...saved, secrets: { ...others, 'payment-run-seal': Buffer.alloc(32, 1).toString('base64') } }),
      );
      const other = await resume(tampered('other-key', (x) => x));
      expect(other.code).toBe(2);
      expect(other.stderr).toMatch(/no longer matches the one confirmed/);
    } finally {
      writeFileSync(join(home.dir, 'credentials.json'), JSON.stringify(saved));
    }
  });
});
