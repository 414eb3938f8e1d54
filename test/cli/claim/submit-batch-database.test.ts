// A claim batch's journal belongs to the database it was sent to (docs/claim-batches.md "Claim
// batches"): after `tpa local reset --yes`, or against another database, the old journal is history,
// the batch says so and sends every claim again, never SKIPPED in silence. In-process and over HTTP.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { distinctClaim } from '../../helpers/claims.js';
import { runTpa } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/engine.js';
import { login, serve, type Served } from '../../helpers/server.js';
import { ndjson } from '../../helpers/values.js';

type Row = Record<string, any>;

let home: ReturnType<typeof tempDir>;
let server: Served | undefined;
beforeEach(() => {
  home = tempDir();
  writeFileSync(join(home.dir, 'claims.ndjson'), `${[0, 1, 2].map((i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  home.remove();
});

const statuses = (stdout: string) => ndjson(stdout).map((o: Row) => o.status);

async function ledgerCount(env: Record<string, string> = {}): Promise<number> {
  const r = await runTpa(['ledger', 'list', '--all', '-o', 'ndjson', '-p', 'local'], { home: home.dir, env });
  expect(r.code, r.stderr).toBe(0);
  return ndjson(r.stdout).length;
}

describe('a batch after the database it was sent to is gone', () => {
  it('in-process: after local reset the same command says the journal is history and sends all three again', async () => {
    const submit = () => runTpa(['claim', 'submit', 'claims.ndjson', '-o', 'ndjson'], { home: home.dir });
    expect(statuses((await submit()).stdout)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED', 'ACKNOWLEDGED']);
    // The same database: the journal holds, nothing is sent twice.
    expect(statuses((await submit()).stdout)).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);
    const reset = await runTpa(['local', 'reset', '--yes'], { home: home.dir });
    expect(reset.code).toBe(0);
    expect(reset.stderr).toMatch(/a claim batch run again sends anew, saying its journal is history/);
    expect(await ledgerCount()).toBe(0);
    const again = await submit();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(
      /the journal \S+ was sent to another database \(db_[0-9a-f]+\); the database answering now is db_[0-9a-f]+ made on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/,
    );
    expect(again.stderr).toMatch(/its records are history; starting anew, every claim is sent to this database/);
    expect(statuses(again.stdout)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED', 'ACKNOWLEDGED']);
    expect(await ledgerCount()).toBe(3);
    // tpa jobs reads the batch as it stands now, the earlier records as history.
    const job = (await runTpa(['jobs', '-o', 'json'], { home: home.dir })).json<Row[]>().find((j) => j.kind === 'claim batch');
    expect(job).toMatchObject({ state: 'finished', total: 3, done: 3, not_sent: 0, history: expect.stringMatching(/another database/) });
    // And the next run of the same command, on the same database again, skips them.
    expect(statuses((await submit()).stdout)).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);
  });

  it('over local serve: a journal named with --journal, sent before a reset, sends again to the new database', async () => {
    const journal = join(home.dir, 'keep', 'batch.journal');
    const submit = () =>
      runTpa(['claim', 'submit', 'claims.ndjson', '--journal', journal, '-o', 'ndjson'], { home: home.dir, env: { TPA_PROFILE: 'sandbox' } });
    server = await serve(home.dir);
    await login(home.dir, server.url);
    expect(statuses((await submit()).stdout)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED', 'ACKNOWLEDGED']);
    await server.stop();
    expect((await runTpa(['local', 'reset', '--yes'], { home: home.dir })).code).toBe(0);
    server = await serve(home.dir);
    await login(home.dir, server.url);
    const again = await submit();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/was sent to another database .*: its records are history; starting anew/);
    expect(statuses(again.stdout)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED', 'ACKNOWLEDGED']);
    expect(await ledgerCount()).toBe(3);
  });

  it('a payment run confirmed before a reset is not resumed against the new database: refused, nothing sent', async () => {
    const run = (args: string[]) => runTpa(args, { home: home.dir });
    expect((await run(['claim', 'submit', 'claims.ndjson'])).code).toBe(0);
    const review = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json<Row>();
    const journal = join(home.dir, 'run.journal');
    const args = ['fund', 'run', '--auth-code-prefix', 'AUTH-RESET', '--expect-total', String(review.total), '--yes', '--journal', journal];
    expect((await run(args)).code).toBe(0);
    expect((await run(['local', 'reset', '--yes'])).code).toBe(0);
    expect((await run(['claim', 'submit', 'claims.ndjson'])).code).toBe(0);
    const resumed = await run(args);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/cannot be resumed: the journal \S+ was sent to another database \(db_[0-9a-f]+\).*Nothing was sent/);
    const funded = await run(['ledger', 'list', '--all', '--status', 'FUNDED', '-o', 'ndjson']);
    expect(ndjson(funded.stdout)).toHaveLength(0);
  });
});
