// The one fund release (src/jobs/fund-release.ts): `tpa fund approve`, a payment run and `tpa api`
// send and record an irreversible release through one function, which refuses a code this machine
// has seen APPROVED for the encounter before anything is sent, and records a release whose answer
// was lost the same way for every caller.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTpaHome } from '../helpers/cli.js';
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
