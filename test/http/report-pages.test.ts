// `tpa settlement report` folds the ledger in a page at a time (domain/report.ts reportAccumulator):
// each page's settlement records are read, and its figures added, before the next page is asked
// for, so that a period's report holds its figures, never the period's entries. Seen in the order
// of the requests a real `tpa local serve` on 127.0.0.1 logs, over a ledger of two pages.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctClaim } from '../helpers/claims.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { login, type Served, serve } from '../helpers/server.js';

const CLOCK = '2026-02-02T12:00:00Z';
const PERIOD = ['--from', '2026-01-01', '--to', '2026-01-31'];
let home: ReturnType<typeof tempDir>;
let server: Served;
const at = (args: string[]) => runTpa(args, { home: home.dir, env: { TPA_CLOCK: CLOCK } });

beforeAll(async () => {
  home = tempDir();
  // 150 claims: a ledger of two pages of 100.
  writeFileSync(join(home.dir, 'claims.ndjson'), `${Array.from({ length: 150 }, (_, i) => JSON.stringify(distinctClaim(i))).join('\n')}\n`);
  const batch = await at(['claim', 'submit', 'claims.ndjson', '--wait', '-o', 'ndjson']);
  expect(batch.code, batch.stderr).toBe(0);
  // The newest encounters funded: on the ledger's first page.
  const review = (await at(['fund', 'run', '--dry-run', '--limit', '3', '-o', 'json'])).json<{ total: number }>();
  const run = await at(['fund', 'run', '--limit', '3', '--auth-code-prefix', 'AUTH-PAGES', '--expect-total', String(review.total), '--yes', '-o', 'ndjson']);
  expect(run.code, run.stderr).toBe(0);
  server = await serve(home.dir, [], { TPA_CLOCK: CLOCK });
  await login(home.dir, server.url);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  home?.remove();
});

describe('settlement report, a page at a time', () => {
  it("reads each page's settlement records before it asks for the next page, and reports what the whole ledger read at once does", async () => {
    const r = await at(['settlement', 'report', ...PERIOD, '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    await server.settled();
    const requests = server
      .stderr()
      .split('\n')
      .map((l) => /GET (\/tpa-api\/v1\/(?:ledger\/entries|settlement)\/\S*) 200/.exec(l)?.[1])
      .filter((p): p is string => p !== undefined);
    const pages = requests.flatMap((p, i) => (p.startsWith('/tpa-api/v1/ledger/entries/') ? [i] : []));
    const records = requests.flatMap((p, i) => (p.startsWith('/tpa-api/v1/settlement/') ? [i] : []));
    expect(pages.length, requests.join('\n')).toBeGreaterThanOrEqual(2);
    expect(records, requests.join('\n')).toHaveLength(3);
    // The first page's three records, read before the second page was asked for.
    expect(records.at(-1)!, requests.join('\n')).toBeLessThan(pages.at(-1)!);
    // Its records: one an encounter of the period, the three funded with their transfers.
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { transfer_status: string | null });
    expect(lines).toHaveLength(150);
    expect(lines.filter((l) => l.transfer_status !== null)).toHaveLength(3);
    // The same report as the embedded engine's, which reads the ledger in one snapshot.
    const local = await at(['settlement', 'report', ...PERIOD, '-o', 'ndjson', '-p', 'local']);
    expect(local.code, local.stderr).toBe(0);
    expect(r.stdout).toBe(local.stdout);
    const json = await at(['settlement', 'report', ...PERIOD, '-o', 'json']);
    expect(json.stdout.replace(/"as_of": "[^"]+"/, '')).toBe(
      (await at(['settlement', 'report', ...PERIOD, '-o', 'json', '-p', 'local'])).stdout.replace(/"as_of": "[^"]+"/, ''),
    );
  });
});
