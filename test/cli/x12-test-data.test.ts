// Test data (docs/x12.md "Test data"): an 837 of ISA15 T, or a FHIR Claim tagged HTEST, is
// validated and converted as test, adjudicated by the embedded engine (in-process and over `tpa local
// serve`) with the mark kept (the ledger's encounter.test_data), acknowledged and remitted with ISA15 T,
// and refused (INVALID, nothing sent) where it would go to a service that is not tpa's engine.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { claimFile } from '../helpers/encounters.js';
import { SPEC_SCOPES, useServedSides } from '../helpers/server.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';
import { readAck } from '../helpers/x12-ack-check.js';
import { checked835 } from '../helpers/x12-835-check.js';

type Row = Record<string, any>;
const HTEST = { system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'HTEST' };

/** A template claim dated the day before the engine's clock (2026-06-30), tagged HTEST when `test`. */
const dated = (test: boolean) => (c: Row) => {
  c.created = '2026-06-29';
  for (const item of c.item as Row[]) item.servicedDate = '2026-06-29';
  if (c.billablePeriod) c.billablePeriod = { start: '2026-06-29', end: '2026-06-29' };
  if (test) c.meta = { tag: [HTEST] };
};

/** An 837P of test data (ISA15 T): two claims of the seed's members. */
const testData = (isa13 = '000000007') =>
  interchange(
    [
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [
          professionalClaim({ clm01: 'T1', lines: [{ cpt: '45378', charge: '1800', date: '20260629' }] }),
          professionalClaim({ clm01: 'T2', member: 'MBR-1003', lines: [{ cpt: '43235', charge: '1500', date: '20260629' }] }),
        ],
      }),
    ],
    { isa13 },
  )
    .replace('*0*P*:', '*0*T*:')
    .replace('20250115*1200*CH', '20260629*1200*CH');

describe('test data on the embedded engine, in-process and over tpa local serve', () => {
  const sides = useServedSides(beforeEach, afterEach, '2026-06-30T12:00:00Z');
  const write = (name: string, text: string) => {
    writeFileSync(join(sides.dir, name), text);
    return join(sides.dir, name);
  };

  it('validate takes it as valid and convert tags each Claim HTEST', async () => {
    const path = write('test.837', testData());
    const valid = await sides.local(['claim', 'validate', path, '-o', 'ndjson']);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stderr).not.toMatch(/ISA15/);
    const converted = await sides.local(['claim', 'convert', path]);
    expect(converted.code, converted.stderr).toBe(0);
    const claims = converted.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(claims.map((c) => c.meta?.tag)).toEqual([[{ ...HTEST, display: 'test health data' }], [{ ...HTEST, display: 'test health data' }]]);
    const production = await sides.local(['claim', 'convert', write('prod.837', testData().replace('*0*T*:', '*0*P*:'))]);
    expect(JSON.parse(production.stdout.trim().split('\n')[0]!).meta).toBeUndefined();
  });

  for (const side of ['local', 'remote'] as const)
    it(`submit adjudicates it and the ledger keeps the mark; its acknowledgments are ISA15 T (${side === 'local' ? 'in-process' : 'over tpa local serve'})`, async () => {
      const run = side === 'local' ? sides.local : sides.remote;
      const path = write('test.837', testData());
      const acks = join(sides.dir);
      const r = await run(['claim', 'submit', path, '--wait', '--ack', acks, '-o', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      const outcomes = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Row);
      expect(outcomes.map((o) => o.disposition)).toEqual(['APPROVED', 'APPROVED']);
      for (const o of outcomes) {
        const detail = (await run(['ledger', 'show', o.external_claim_id, '-o', 'json'])).json<Row>();
        expect(detail.encounter.test_data).toBe(true);
      }
      for (const f of ['test.837.999', 'test.837.277ca']) {
        const ack = readAck(readFileSync(join(sides.dir, f), 'utf8'));
        expect(ack.isa[15]).toBe('T');
        expect(JSON.parse(readFileSync(join(sides.dir, `${f}.json`), 'utf8')).usage).toBe('T');
      }
    });

  for (const side of ['local', 'remote'] as const)
    it(`a FHIR Claim tagged HTEST is adjudicated as test data; one without the tag is not (${side === 'local' ? 'in-process' : 'over tpa local serve'})`, async () => {
      const run = side === 'local' ? sides.local : sides.remote;
      const tagged = await claimFile(run, sides.dir, { template: ['--type', 'professional'], edit: dated(true) });
      const plain = await claimFile(run, sides.dir, { template: ['--type', 'professional', '--cpt', '43235'], edit: dated(false) });
      for (const [file, test] of [
        [tagged, true],
        [plain, undefined],
      ] as const) {
        const r = await run(['claim', 'submit', file, '-o', 'json']);
        expect(r.code, r.stderr).toBe(0);
        const detail = (await run(['ledger', 'show', r.json<Row>().external_claim_id, '-o', 'json'])).json<Row>();
        expect(detail.encounter.test_data).toBe(test);
      }
    });

  for (const side of ['local', 'remote'] as const)
    it(`fund approve of a test encounter moves sandbox money; its 835 is ISA15 T, and a period 835 leaves test data out beside production (${side === 'local' ? 'in-process' : 'over tpa local serve'})`, async () => {
      const run = side === 'local' ? sides.local : sides.remote;
      const r = await run(['claim', 'submit', write('test.837', testData()), '--wait', '-o', 'ndjson']);
      expect(r.code, r.stderr).toBe(0);
      // T2 pays (T1 goes to the deductible).
      const test = JSON.parse(r.stdout.trim().split('\n')[1]!) as Row;
      expect(test.adjudication.benefit_amount, r.stdout).toBeGreaterThan(0);
      const productionFile = interchange(
        [
          transaction({
            st02: '0001',
            type: 'professional',
            claims: [professionalClaim({ clm01: 'P9', member: 'MBR-1003', lines: [{ cpt: '45378', charge: '1800', date: '20260628' }] })],
          }),
        ],
        { isa13: '000000008' },
      ).replace('20250115*1200*CH', '20260629*1200*CH');
      const prod = await run(['claim', 'submit', write('prod.837', productionFile), '--wait', '-o', 'ndjson']);
      expect(prod.code, prod.stderr).toBe(0);
      const production = JSON.parse(prod.stdout.trim().split('\n')[0]!) as Row;
      expect(production.adjudication.benefit_amount, prod.stdout).toBeGreaterThan(0);
      for (const o of [test, production]) {
        const funded = await run([
          'fund',
          'approve',
          o.external_claim_id,
          '--amount',
          o.adjudication.benefit_amount.toFixed(2),
          '--auth-code',
          `AUTH-20260630-ACME-${o.external_claim_id.slice(-6)}`,
          '--yes',
          '-o',
          'json',
        ]);
        expect(funded.code, funded.stderr).toBe(0);
      }
      // The engine's clock is the operator's (in-process), whichever side funds.
      expect((await sides.local(['local', 'clock', 'advance', '3d'])).code).toBe(0);
      const out = join(sides.dir, 'test.835');
      const remit = await run(['settlement', 'remit', test.external_claim_id, '--out', out]);
      expect(remit.code, remit.stderr).toBe(0);
      const text = readFileSync(out, 'utf8');
      checked835(text);
      expect(text.split('*')[15]).toBe('T');
      const period = await run(['settlement', 'remit', '--from', '2026-06-30', '--to', '2026-07-03']);
      expect(period.code, period.stderr).toBe(0);
      expect(period.stdout.split('*')[15]).toBe('P');
      expect(period.stderr).toMatch(/skipped: transfer .* is test data: not in a production 835/);
      const { transactions } = checked835(period.stdout);
      // The payment of P9 (its billing provider's informational copy, BPR*H, aside).
      const payments = transactions.filter((t) => t.segments.find((x) => x[0] === 'BPR')![1] === 'I');
      expect(payments.flatMap((t) => t.claims.map((c) => c.clp[1]))).toEqual(['P9']);
    });
});

describe('test data to a service that is not tpa’s engine', () => {
  let server: Server;
  let requests: string[];
  let home: ReturnType<typeof tempDir>;
  beforeEach(async () => {
    home = tempDir();
    requests = [];
    // A service that answers as the contract says (no `database` in its health): real money may move there.
    server = createServer((req: IncomingMessage, res) => {
      requests.push(`${req.method} ${req.url}`);
      if (req.method === 'GET' && /\/health\/?$/.test(req.url ?? '')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok', environment: 'sandbox', key_id: 'key_remote', scopes: SPEC_SCOPES, time: new Date().toISOString() }));
        return;
      }
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"errors":[{"message":"not here"}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const login = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', `http://127.0.0.1:${port}`, '--with-key-stdin', '--set-default'], {
      home: home.dir,
      input: `sk_sand_${'a1'.repeat(28)}`,
    });
    expect(login.code, login.stderr).toBe(0);
    requests = [];
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    home.remove();
  });

  it('an 837 of ISA15 T is INVALID, naming ISA15 and the host; nothing is sent', async () => {
    const path = join(home.dir, 'test.837');
    writeFileSync(path, testData());
    const r = await runTpa(['claim', 'submit', path, '-o', 'ndjson'], { home: home.dir });
    expect(r.code).toBe(2);
    const outcomes = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Row);
    expect(outcomes.map((o) => o.status)).toEqual(['INVALID', 'INVALID']);
    expect(r.stderr).toMatch(/ISA15: ISA15 is "T" \(test data\): test data is adjudicated only by tpa's embedded engine .*127\.0\.0\.1:\d+ .*not sent/);
    expect(requests.filter((q) => q.startsWith('POST'))).toEqual([]);
  });

  it('--dry-run says the same of it, and sends nothing', async () => {
    const path = join(home.dir, 'test.837');
    writeFileSync(path, testData());
    const r = await runTpa(['claim', 'submit', path, '--dry-run', '-o', 'ndjson'], { home: home.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/ISA15: ISA15 is "T" \(test data\).*not sent/);
    expect(requests.filter((q) => q.startsWith('POST'))).toEqual([]);
  });

  it('a FHIR Claim tagged HTEST is refused (exit 2) naming the tag and the host; nothing is sent', async () => {
    const local = tempDir();
    try {
      const file = await claimFile((args) => runTpa(args, { home: local.dir }), home.dir, { template: ['--type', 'professional'], edit: dated(true) });
      const r = await runTpa(['claim', 'submit', file], { home: home.dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/meta\.tag HTEST \(test data\).*127\.0\.0\.1:\d+/);
      expect(requests.filter((q) => q.startsWith('POST'))).toEqual([]);
    } finally {
      local.remove();
    }
  });
});
