// The one fund release (src/jobs/fund-release.ts): `tpa fund approve`, a payment run and `tpa api`
// send and record an irreversible release through one function, which records a release whose
// answer was lost the same way for every caller, never takes an earlier approval of the code for a
// retry's, and lets a run's code taken meanwhile read as funded by another (SKIPPED).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TPA_BIN, testEnv, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';

const home = useTpaHome(beforeEach, afterEach);
const run = home.run;

async function adjudicated(patient: string): Promise<{ id: string; benefit: string }> {
  const e = await adjudicatedEncounter(run, home.dir, { template: ['--type', 'institutional', '--patient', patient] });
  return { id: e.id, benefit: e.amount };
}

const releasesOf = async (id: string) =>
  (await run(['ledger', 'show', id]))
    .json<{ entries: { type: string; reference?: string }[] }>()
    .entries.filter((e) => e.type === 'FUNDING_APPROVED')
    .map((e) => e.reference);

describe('the one fund release', () => {
  it('fund approve records a release whose answer was lost and that the ledger does not show UNKNOWN, as a run does (never FAILED); the next approval settles it NOT_SENT', async () => {
    const a = await adjudicated('MBR-1003');
    const lost = await run(['fund', 'approve', a.id, '--amount', '1.00', '--auth-code', 'AUTH-REL-0003', '--yes'], {
      TPA_FAULT: 'lose-response*1:/funding/approve/',
    });
    expect(lost.code).toBe(8);
    expect(lost.stderr).toMatch(/did not happen: the ledger has no fund release/);
    const code = (h: { authorization_code: string }) => h.authorization_code === 'AUTH-REL-0003';
    let history = (await run(['fund', 'history', '-o', 'json'])).json<{ authorization_code: string; outcome: string }[]>();
    expect(history.filter(code).map((h) => h.outcome)).toEqual(['UNKNOWN']);
    const next = await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-REL-0004', '--yes']);
    expect(next.code, next.stderr).toBe(0);
    history = (await run(['fund', 'history', '-o', 'json'])).json<{ authorization_code: string; outcome: string }[]>();
    expect(history.filter(code).map((h) => h.outcome)).toEqual(['NOT_SENT']);
    expect(await releasesOf(a.id)).toEqual(['AUTH-REL-0004']);
  });

  it('a retry under the code of a FAILED transfer whose answer is lost is not reported approved: exit 4, nothing moved, still owed', async () => {
    const a = await adjudicated('MBR-1003');
    expect((await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-REL-0010', '--yes'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'settlement-failure', a.id])).code).toBe(0);
    const retry = await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-REL-0010', '--yes', '-o', 'json'], {
      TPA_FAULT: 'lose-response*1:/funding/approve/',
    });
    expect(retry.code, retry.stderr).toBe(4);
    expect(retry.stdout).not.toMatch(/"APPROVED"/);
    expect(retry.stderr).toMatch(/was not made by this request: that code's approval ended .* nothing moved, the encounter is still owed/);
    expect(await releasesOf(a.id)).toEqual(['AUTH-REL-0010']);
    const owed = (await run(['fund', 'history', '-o', 'json'])).json<{ outcome: string }[]>().filter((h) => h.outcome === 'OWED');
    expect(owed).toHaveLength(1);
  });

  it('a run’s code not sent yet is refused to fund approve; an encounter funded meanwhile under another code is SKIPPED by the resumed run, exit 0, never FAILED', async () => {
    const ids = [await adjudicated('MBR-1003'), await adjudicated('MBR-1002')].map((a) => a.id);
    const plan = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json<{
      total: number;
      encounters: { encounter_id: string; amount: number; authorization_code: string }[];
    }>();
    const total = plan.total;
    const stopped = await run(['fund', 'run', '--auth-code-prefix', 'AUTH-20261207-RR', '--expect-total', total.toFixed(2), '--yes'], {
      TPA_FAULT: 'drop:/funding/approve/',
    });
    expect(stopped.code, stopped.stderr).toBe(8);
    const second = plan.encounters.find((e) => e.authorization_code.endsWith('-0002'))!;
    expect(ids).toContain(second.encounter_id);
    for (const target of ids) {
      const refused = await run(['fund', 'approve', target, '--amount', second.amount.toFixed(2), '--auth-code', 'auth-20261207-rr-0002 ', '--yes']);
      expect(refused.code, refused.stderr).toBe(4);
      expect(refused.stderr).toMatch(/is taken by the payment run fund-run-AUTH-20261207-RR-\w+\.ndjson for enc_\w+, not sent yet/);
    }
    const taken = await run(['fund', 'approve', second.encounter_id, '--amount', second.amount.toFixed(2), '--auth-code', 'AUTH-REL-0050', '--yes']);
    expect(taken.code, taken.stderr).toBe(0);
    const resumed = await run(['fund', 'run', '--auth-code-prefix', 'AUTH-20261207-RR', '--expect-total', total.toFixed(2), '--yes', '-o', 'json']);
    expect(resumed.stderr).not.toMatch(/failed: the release/);
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const id of ids) expect(await releasesOf(id)).toHaveLength(1);
  });

  it('tpa api refuses a code this machine gave to another encounter, as fund approve does: exit 4, nothing sent', async () => {
    const [a, b] = [await adjudicated('MBR-1003'), await adjudicated('MBR-1002')];
    expect((await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-REL-0020', '--yes'])).code).toBe(0);
    const api = await run([
      'api',
      'POST',
      '/tpa-api/v1/funding/approve/',
      '-f',
      `encounter_id=${b.id}`,
      '-F',
      `amount=${b.benefit}`,
      '-f',
      'authorization_code= auth-rel-0020',
      '--yes',
    ]);
    expect(api.code, api.stderr).toBe(4);
    expect(api.stderr).toContain(`is used already (this machine's fund history gave it to ${a.id}`);
    expect(await releasesOf(b.id)).toEqual([]);
  });

  it.each([
    ['fund approve', (id: string, amount: string) => ['fund', 'approve', id, '--amount', amount, '--auth-code', 'AUTH-REL-0030', '--yes', '--debug']],
    [
      'tpa api',
      (id: string, amount: string) => [
        'api',
        'POST',
        '/tpa-api/v1/funding/approve/',
        '-f',
        `encounter_id=${id}`,
        '-F',
        `amount=${amount}`,
        '-f',
        'authorization_code=AUTH-REL-0030',
        '--yes',
        '--debug',
      ],
    ],
  ] as const)(
    'Ctrl-C while a release of %s is out says that whether it happened is not known, and how to find out: exit 130, recorded UNKNOWN',
    async (_what, args) => {
      const a = await adjudicated('MBR-1003');
      // The engine takes the release at once; its answer would come a minute later (TPA_FAULT late).
      const child = spawn(process.execPath, [TPA_BIN, ...args(a.id, a.benefit)], {
        env: testEnv({ home: home.dir, env: { TPA_FAULT: 'late-60000:/funding/approve/' } }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await new Promise<void>((resolve) =>
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('→ POST /tpa-api/v1/funding/approve/')) resolve();
        }),
      );
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain(`interrupted while the release of ${a.id} (AUTH-REL-0030) was sent: whether it happened is not known`);
      expect(stderr).toMatch(/tpa settlement show enc_\w+ says whether it was funded, and the next approval of it reads the ledger/);
      const history = (await run(['fund', 'history', '-o', 'json'])).json<{ authorization_code: string; outcome: string }[]>();
      expect(history.filter((h) => h.authorization_code === 'AUTH-REL-0030').map((h) => h.outcome)).toEqual(['UNKNOWN']);
    },
  );

  it('a retry under an ended approval’s code left UNKNOWN is settled NOT_SENT by the next approval, never as a second approval of that code', async () => {
    const a = await adjudicated('MBR-1003');
    expect((await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-REL-0040', '--yes'])).code).toBe(0);
    expect((await run(['local', 'simulate', 'settlement-failure', a.id])).code).toBe(0);
    const unknown = await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-REL-0040', '--yes'], {
      TPA_FAULT: 'lose-response*1:/funding/approve/,error-503:/ledger/entries/',
    });
    expect(unknown.code, unknown.stderr).toBe(8);
    const next = await run(['fund', 'approve', a.id, '--amount', a.benefit, '--auth-code', 'AUTH-REL-0041', '--yes']);
    expect(next.code, next.stderr).toBe(0);
    const history = (await run(['fund', 'history', '-o', 'json'])).json<{ authorization_code: string; outcome: string }[]>();
    expect(history.filter((h) => h.authorization_code === 'AUTH-REL-0040').map((h) => h.outcome)).toEqual(['ENDED', 'NOT_SENT']);
    expect(await releasesOf(a.id)).toEqual(['AUTH-REL-0040', 'AUTH-REL-0041']);
  });

  it('a run whose journal is kept elsewhere (--journal) holds its codes not sent yet too, and tpa jobs lists it', async () => {
    await adjudicated('MBR-1003');
    await adjudicated('MBR-1002');
    const plan = (await run(['fund', 'run', '--dry-run', '-o', 'json'])).json<{ total: number; encounters: { encounter_id: string; amount: number }[] }>();
    const journal = join(home.dir, '..', `elsewhere-${Date.now()}.journal`);
    const stopped = await run(
      ['fund', 'run', '--auth-code-prefix', 'AUTH-20261207-EL', '--expect-total', plan.total.toFixed(2), '--journal', journal, '--yes'],
      { TPA_FAULT: 'drop:/funding/approve/' },
    );
    expect(stopped.code, stopped.stderr).toBe(8);
    const other = plan.encounters[1]!;
    const refused = await run(['fund', 'approve', other.encounter_id, '--amount', other.amount.toFixed(2), '--auth-code', 'AUTH-20261207-EL-0002', '--yes']);
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stderr).toContain('is taken by the payment run');
    const jobs = await run(['jobs', 'list', '-o', 'json']);
    expect(jobs.stdout).toContain('elsewhere-');
  });

  it('only src/jobs/fund-release.ts sends a fund release (approveFunding) or records one (sendRecorded); the demo alone sends its own, on its scratch engine', () => {
    const src = fileURLToPath(new URL('../../src', import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const calling = (name: string) =>
      // The engine's handler of the route has the name too: it answers a release, it sends none.
      files(src)
        .filter((f) => !relative(src, f).startsWith('engine/'))
        .filter((f) => new RegExp(`\\b${name}[(<]`).test(readFileSync(f, 'utf8')))
        .map((f) => relative(src, f))
        .sort();
    // The demo approves on a scratch copy of the engine, shown and thrown away, and shows a second one refused.
    expect(calling('approveFunding')).toEqual(['cli/commands/demo/index.ts', 'client/client.ts', 'jobs/fund-release.ts']);
    expect(calling('sendRecorded')).toEqual(['jobs/fund-history.ts', 'jobs/fund-release.ts']);
  });
});
