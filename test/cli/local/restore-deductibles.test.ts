// tpa local restore and the deductibles met (docs/local-data.md "Backups"): each accumulator a backup
// holds must be the sum its claims give; one changed with sqlite3 would change what the next claims pay.
import Database from 'better-sqlite3';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../../helpers/cli.js';
import { adjudicatedEncounter } from '../../helpers/encounters.js';
import { databaseContent } from '../../helpers/engine.js';
import { ndjson } from '../../helpers/values.js';
import { interchange, professionalClaim, transaction } from '../../helpers/x12.js';

const CLOCK = { TPA_CLOCK: '2026-12-05T10:00:00Z' };

describe('a restore refuses a deductible met that is not the sum of its claims', () => {
  const home = useTpaHome(beforeEach, afterEach, CLOCK);
  const out = useTpaHome(beforeEach, afterEach);

  it('a backup with claims restores; its accumulator raised with sqlite3 is refused naming the member and plan year, nothing replaced', async () => {
    await adjudicatedEncounter(home.run, out.dir, { template: ['--cpt', '43235', '--patient', 'MBR-1004'] });
    const good = join(out.dir, 'good.sqlite');
    expect((await home.run(['local', 'backup', good])).code).toBe(0);
    const read = new Database(good, { readonly: true });
    const row = read.prepare('SELECT member_id, plan_year, met_cents FROM member_deductibles').get() as {
      member_id: string;
      plan_year: string;
      met_cents: number;
    };
    read.close();
    expect(row.met_cents).toBeGreaterThan(0);
    const honest = await home.run(['local', 'restore', good, '--yes']);
    expect(honest.code, honest.stderr).toBe(0);

    const bad = join(out.dir, 'bad.sqlite');
    copyFileSync(good, bad);
    const db = new Database(bad);
    db.prepare('UPDATE member_deductibles SET met_cents = 300000').run();
    db.close();
    const live = join(home.dir, 'local.sqlite');
    const before = databaseContent(live);
    const r = await home.run(['local', 'restore', bad, '--yes']);
    expect(r.code, r.stderr).toBe(2);
    const message = (JSON.parse(r.stderr) as { error: { message: string } }).error.message;
    expect(message).toContain(
      `${bad} holds a deductible met that is not the sum of its claims: member ${row.member_id}, plan year ${row.plan_year}: 300000 cents met, its claims give ${row.met_cents}`,
    );
    expect(databaseContent(live)).toBe(before);
  });

  it('a backup holding a claim replaced and its replacement voided (their deductible released) restores', async () => {
    const env = { TPA_CLOCK: '2026-06-30T12:00:00Z', TPA_ADJUDICATION_DELAY: '0' };
    const file = (name: string, isa13: string, frequency = '1', f8?: string) => {
      const lines = [
        { cpt: '45378', charge: '1800', date: '20250110' },
        { cpt: '45378', charge: '1800', date: '20250111' },
      ];
      const claim = professionalClaim({ clm01: 'PATIENT123', lines }).flatMap((s) =>
        s.startsWith('CLM*') ? [s.replace('11:B:1', `11:B:${frequency}`), ...(f8 ? [`REF*F8*${f8}`] : [])] : [s],
      );
      writeFileSync(join(out.dir, name), interchange([transaction({ st02: '0001', type: 'professional', claims: [claim] })], { isa13 }));
      return join(out.dir, name);
    };
    const submit = async (name: string) => ndjson((await home.run(['claim', 'submit', name, '-o', 'ndjson'], env)).stdout)[0] as Record<string, string>;
    const original = await submit(file('original.837', '000000001'));
    const number = (await home.run(['ledger', 'show', original.external_claim_id!, '-o', 'json'], env)).json<{ encounter: { encounter_number: string } }>()
      .encounter.encounter_number;
    const replacement = await submit(file('replacement.837', '000000002', '7', number));
    expect(replacement.status).toBe('ACKNOWLEDGED');
    await submit(file('void.837', '000000004', '8', replacement.external_claim_id));
    const shown = await home.run(['ledger', 'show', replacement.external_claim_id!, '-o', 'json'], env);
    expect(shown.json<{ encounter: { status: string } }>().encounter.status).toBe('VOIDED');
    const backup = join(out.dir, 'backup.sqlite');
    expect((await home.run(['local', 'backup', backup], env)).code).toBe(0);
    const read = new Database(backup, { readonly: true });
    // Both claims applied a deductible and both released it: the accumulator is back at 0.
    expect(read.prepare("SELECT count(*) FROM encounters WHERE status IN ('SUPERSEDED', 'VOIDED')").pluck().get()).toBe(2);
    expect(read.prepare('SELECT met_cents FROM member_deductibles').pluck().all()).toEqual([0]);
    read.close();
    const r = await home.run(['local', 'restore', backup, '--yes'], env);
    expect(r.code, r.stderr).toBe(0);
  });
});
