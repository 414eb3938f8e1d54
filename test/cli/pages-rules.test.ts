// The rules of a list's `next` links (src/client/pages.ts; docs/design.md "Streaming lists"), the
// same for `tpa api --paginate` and `tpa ledger list --all`: a link back to a page already read, or a
// page with no rows naming a next one, stops with exit 8; a list that ends short of its count exits 8;
// a later page's error body never reaches stdout. A node:http stand-in on 127.0.0.1 serves the pages.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../helpers/cli.js';

const home = useTpaHome(beforeAll, afterAll);
const LIST = '/tpa-api/v1/ledger/entries/';

type Page = { status?: number; body: unknown };
/** What the stand-in answers for an offset; `requests` counts the pages asked. */
let answer: (offset: number) => Page = () => ({ body: {} });
let requests = 0;
let url = '';
let server: Server;

const row = (n: number, more: Record<string, unknown> = {}) => ({
  id: `led_${n}`,
  encounter_id: `enc_${n}`,
  encounter_number: `ENC-2026-00000${n}`,
  status: 'ADJUDICATED',
  ...more,
});
const link = (offset: number) => `${url}${LIST}?limit=2&offset=${offset}`;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    const offset = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('offset') ?? 0);
    const { status = 200, body } = answer(offset);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mkdirSync(home.dir, { recursive: true });
  writeFileSync(join(home.dir, 'config.json'), JSON.stringify({ default_profile: 'fake', profiles: { fake: { env: 'sandbox', base_url: url } } }));
});

afterAll(() => server?.close());

const both = [
  ['api', LIST, '--paginate', '-o', 'ndjson'],
  ['ledger', 'list', '--all', '--limit', '2', '-o', 'ndjson'],
];
const run = (args: string[]) => runTpa([...args, '-p', 'fake'], { home: home.dir, env: { TPA_API_KEY: `sk_sand_${'0'.repeat(56)}` } });
const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('next links that never end', () => {
  it('a next back to a page already read stops with exit 8 naming the loop, after one request a page', async () => {
    answer = (offset) => ({ body: { count: 4, next: link(offset === 0 ? 2 : 0), results: [row(offset + 1), row(offset + 2)] } });
    for (const args of both) {
      requests = 0;
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(8);
      expect(r.stderr).toContain('names a page already read');
      expect(requests).toBeLessThanOrEqual(3);
    }
  });

  it('a page with no rows that names a next page stops with exit 8', async () => {
    answer = (offset) => ({ body: { count: 4, next: link(offset + 2), results: offset === 0 ? [row(1), row(2)] : [] } });
    for (const args of both) {
      requests = 0;
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(8);
      expect(r.stderr).toContain('has no rows but names a next page');
      expect(requests).toBe(2);
    }
  });
});

describe('a list that ends short of its count', () => {
  it('prints the rows received and exits 8 naming rows received against the count', async () => {
    answer = () => ({ body: { count: 6, next: null, results: [row(1), row(2)] } });
    for (const args of both) {
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(8);
      expect(lines(r.stdout)).toHaveLength(2);
      expect(r.stderr).toContain('2 rows received in 1 page, but the service counts 6');
    }
  });
});

describe('rows that leave the list while it is read', () => {
  // Six rows; once the first page is answered, rows 1 and 2 (already printed) leave the list, as a
  // release moves them out of ADJUDICATED: the offset pages shift, and rows 3 and 4 move before offset 2.
  const leaving = () => {
    let rows = [1, 2, 3, 4, 5, 6];
    return (offset: number): Page => {
      const body = { count: rows.length, next: offset + 2 < rows.length ? link(offset + 2) : null, results: rows.slice(offset, offset + 2).map((n) => row(n)) };
      if (offset === 0) rows = rows.filter((n) => n > 2);
      return { body };
    };
  };

  it('ledger list --all reads again from as many rows earlier: every row that stayed is printed once, exit 0', async () => {
    answer = leaving();
    const r = await run(both[1]!);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((l) => l.encounter_id)).toEqual(['enc_1', 'enc_2', 'enc_3', 'enc_4', 'enc_5', 'enc_6']);
  });

  it('tpa api --paginate prints the pages as answered, then exits 8 naming the rows that left', async () => {
    answer = leaving();
    const r = await run(both[0]!);
    expect(r.code, r.stderr).toBe(8);
    expect(lines(r.stdout).map((l) => l.encounter_id)).toEqual(['enc_1', 'enc_2', 'enc_5', 'enc_6']);
    expect(r.stderr).toContain('the list changed while it was read: 2 rows left it after it began');
  });
});

describe('a listing begun mid-list', () => {
  it('counts from where it began: --offset and a link with an offset end well over HTTP', async () => {
    answer = (offset) => ({
      body: { count: 3, next: offset + 2 < 3 ? link(offset + 2) : null, results: [1, 2, 3].slice(offset, offset + 2).map((n) => row(n)) },
    });
    for (const args of [
      ['api', `${LIST}?limit=2&offset=1`, '--paginate', '-o', 'ndjson'],
      ['api', link(1), '--paginate', '-o', 'ndjson'],
      ['ledger', 'list', '--all', '--limit', '2', '--offset', '1', '-o', 'ndjson'],
    ]) {
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(lines(r.stdout).map((l) => l.encounter_id)).toEqual(['enc_2', 'enc_3']);
    }
  });

  it("counts from the page it began at: the catalog's page 2, in-process", async () => {
    const local = (args: string[]) => runTpa([...args, '-p', 'local'], { home: home.dir });
    const all = await local(['ratesheet', 'catalog', '--all', '-o', 'ndjson']);
    expect(all.code, all.stderr).toBe(0);
    const count = lines(all.stdout).length;
    expect(count).toBeGreaterThan(4);
    for (const args of [
      ['api', '/api/v1/ssp/catalog/?page=2&page_size=3', '--paginate', '-o', 'ndjson'],
      ['ratesheet', 'catalog', '--all', '--page', '2', '--page-size', '3', '-o', 'ndjson'],
    ]) {
      const r = await local(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(lines(r.stdout)).toHaveLength(count - 3);
    }
    const r = await local(['api', '/api/v1/ssp/catalog/?page=2', '--paginate', '-o', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout)).toHaveLength(Math.max(0, count - 20));
  });
});

describe("a later page's error", () => {
  it('goes to stderr: stdout holds only the rows so far, whatever the format; exit 8', async () => {
    answer = (offset) =>
      offset === 0
        ? { body: { count: 4, next: link(2), results: [row(1), row(2)] } }
        : // The local database's own failure, which the client does not retry: the test waits on no backoff.
          { status: 503, body: { error: 'storage_unavailable', message: 'BODY-OF-THE-ERROR' } };
    for (const args of both)
      for (const format of ['ndjson', 'json', 'csv']) {
        const r = await run([...args.slice(0, -1), format]);
        expect(r.code, `${args.join(' ')} ${format}: ${r.stderr}`).toBe(8);
        expect(r.stdout).not.toContain('BODY-OF-THE-ERROR');
        expect(r.stdout).toContain('enc_2');
        expect(r.stderr).toContain('page 2');
      }
  });
});

describe("a CSV's header", () => {
  it("is the list's declared columns on every page and every list: a key only a later page has keeps its column", async () => {
    answer = (offset) => ({
      body: { count: 2, next: offset === 0 ? link(1) : null, results: [offset === 0 ? row(1) : row(2, { superseded_by: 'enc_9' })] },
    });
    const all = await run(['ledger', 'list', '--all', '--limit', '1', '-o', 'csv']);
    expect(all.code, all.stderr).toBe(0);
    const [header, first, second] = all.stdout.trim().split('\n');
    const columns = header!.split(',');
    expect(columns).toContain('superseded_by');
    expect(first!.split(',')[columns.indexOf('superseded_by')]).toBe('');
    expect(second!.split(',')[columns.indexOf('superseded_by')]).toBe('enc_9');
    // One page alone, with or without the key: the same header.
    for (const offset of [0, 1]) {
      answer = () => ({ body: { count: 1, next: null, results: [offset === 0 ? row(1) : row(2, { superseded_by: 'enc_9' })] } });
      const one = await run(['ledger', 'list', '-o', 'csv']);
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout.split('\n')[0]).toBe(header);
    }
  });
});
