// Money across claims over `tpa local serve`: a PACKAGE episode whatever the arrival order of its
// claims, and the copay per visit whatever the packing of visits into claims (docs/money-rules.md
// "Bundles" and "The copay per visit"), as test/engine/across-claims.test.ts checks them in-process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimOf, type ClaimSpec } from '../helpers/claims.js';
import { tempDir } from '../helpers/engine.js';
import { createKey, serve, type Served } from '../helpers/server.js';
import { cents } from '../helpers/values.js';

type Body = Record<string, any>;
let home: ReturnType<typeof tempDir>;
let server: Served;
let key: string;

beforeAll(async () => {
  home = tempDir();
  server = await serve(home.dir, [], { TPA_CLOCK: '2026-12-05T10:00:00Z', TPA_ADJUDICATION_DELAY: '0' });
  key = await createKey(home.dir);
});
afterAll(async () => {
  await server?.stop();
  home?.remove();
});

/** Submits a claim over HTTP; its service lines as the ledger answers them. */
async function submit(spec: ClaimSpec): Promise<Body[]> {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const ack = await fetch(`${server.url}/tpa-api/v1/claims/submit/`, { method: 'POST', headers, body: JSON.stringify(claimOf(spec)) });
  expect(ack.status).toBe(201);
  const { external_claim_id: id } = (await ack.json()) as Body;
  const detail = (await (await fetch(`${server.url}/tpa-api/v1/ledger/entries/${id}/`, { headers })).json()) as Body;
  return detail.service_lines as Body[];
}
/** A field of every line, added up in cents (an amount with more than two decimals fails). */
const sum = (lines: Body[][], field: string) => lines.flat().reduce((s, l) => s + cents(l[field] ?? 0), 0);

const LAKESIDE = '1450827369';
const part = (patient: string, code: string, date: string): ClaimSpec => ({ npi: LAKESIDE, patient, lines: [{ code, date, charge: '10000.00' }] });

describe('over local serve: a PACKAGE episode starts on its earliest day, whatever order its claims arrive in', () => {
  it('May, then March, then July pays 28,500.00, as the same claims in date order do', async () => {
    const late = [];
    for (const [code, date] of [
      ['97161', '2026-05-01'],
      ['01402', '2026-03-15'],
      ['97161', '2026-07-25'],
    ])
      late.push(await submit(part('MBR-1003', code!, date!)));
    expect(late.map((l) => [l[0]!.status, l[0]!.allowed_amount])).toEqual([
      ['ALLOWED', 9500],
      ['ALLOWED', 9500],
      ['ALLOWED', 9500],
    ]);
    // Another member, the same claims in date order.
    const inOrder = [];
    for (const [code, date] of [
      ['01402', '2026-03-15'],
      ['97161', '2026-05-01'],
      ['97161', '2026-07-25'],
    ])
      inOrder.push(await submit(part('MBR-1001', code!, date!)));
    expect(sum(late, 'allowed_amount')).toBe(2_850_000);
    expect(sum(inOrder, 'allowed_amount')).toBe(sum(late, 'allowed_amount'));
  });
});

describe('over local serve: the copay is per visit, whatever the packing into claims', () => {
  const RIVERSIDE = '1234567893';
  const facility = [{ npi: RIVERSIDE, role: 'facility' }];
  const claim = (lines: { code: string; date: string }[]): ClaimSpec => ({ npi: RIVERSIDE, patient: 'MBR-1003', careTeam: facility, lines });

  it('two visits cost two copays on one claim as on two; one visit costs one copay on two claims as on one', async () => {
    const twoVisitsOneClaim = [
      await submit(
        claim([
          { code: '45378', date: '2026-11-02' },
          { code: '45380', date: '2026-11-09' },
        ]),
      ),
    ];
    const twoVisitsTwoClaims = [await submit(claim([{ code: '45378', date: '2026-11-16' }])), await submit(claim([{ code: '45380', date: '2026-11-23' }]))];
    expect(sum(twoVisitsOneClaim, 'copay_applied')).toBe(5000);
    expect(sum(twoVisitsTwoClaims, 'copay_applied')).toBe(5000);
    expect(sum(twoVisitsOneClaim, 'patient_responsibility')).toBe(sum(twoVisitsTwoClaims, 'patient_responsibility'));

    const oneVisitTwoClaims = [await submit(claim([{ code: '45378', date: '2026-11-24' }])), await submit(claim([{ code: '45380', date: '2026-11-24' }]))];
    const oneVisitOneClaim = [
      await submit(
        claim([
          { code: '45378', date: '2026-11-25' },
          { code: '45380', date: '2026-11-25' },
        ]),
      ),
    ];
    expect(oneVisitTwoClaims.map((l) => l[0]!.copay_applied)).toEqual([25, 0]);
    expect(sum(oneVisitOneClaim, 'copay_applied')).toBe(2500);
    expect(sum(oneVisitTwoClaims, 'patient_responsibility')).toBe(sum(oneVisitOneClaim, 'patient_responsibility'));
  });
});

describe('over local serve: a bundle part pays the same whatever the packing into claims', () => {
  /** Each line's status and allowed amount (a claim whose every line is included shows none: 0.00). */
  const allowed = (claims: Body[][]) => claims.flat().map((l) => [l.cpt_code, l.service_date, l.status, l.allowed_amount ?? 0]);
  /** The lines on one claim for one member, and one line a claim (in date order) for another. */
  async function packings(npi: string, lines: ClaimSpec['lines'], preauthorization?: string) {
    const one = [await submit({ npi, patient: 'MBR-1004', lines, preauthorization })];
    const apart = [];
    for (const line of lines) apart.push(await submit({ npi, patient: 'MBR-1001', lines: [line], preauthorization }));
    return { one: allowed(one), apart: allowed(apart) };
  }

  it('one PACKAGE part on two days: 500.00 and then included, on one claim as on two', async () => {
    const { one, apart } = await packings(LAKESIDE, [
      { code: '97161', date: '2026-11-02', charge: '500.00' },
      { code: '97161', date: '2026-11-09', charge: '20000.00' },
    ]);
    expect(one.map((l) => l.slice(2))).toEqual([
      ['ALLOWED', 500],
      ['BUNDLED', 0],
    ]);
    expect(one).toEqual(apart);
  });

  it("DOUBLE_HEADER: the under-charged part's unused share goes to no other part, 1,950.00 + 400.00 on one claim as on two", async () => {
    const { one, apart } = await packings(
      '1582736496',
      [
        { code: '29881', date: '2026-11-20', charge: '3500.00' },
        { code: '29880', date: '2026-11-20', charge: '400.00' },
      ],
      'PA-2026-1120',
    );
    expect(one.map((l) => l[3])).toEqual([1950, 400]);
    expect(one).toEqual(apart);
  });
});

describe("over local serve: a package day BUNDLED into its paid episode includes that day's anesthesia", () => {
  it('in date order the anesthesia after the BUNDLED day is BUNDLED (CARC-97): 9,500.00 in all, not 10,265.00', async () => {
    // MBR-1003's episodes above end by 22 October: 26 October opens one of its own.
    const therapy = (date: string): ClaimSpec => ({ npi: LAKESIDE, patient: 'MBR-1003', lines: [{ code: '97161', date, charge: '20000.00' }] });
    const dated = [
      await submit(therapy('2026-10-26')),
      await submit(therapy('2026-11-03')),
      await submit({ npi: '1196382455', patient: 'MBR-1003', lines: [{ code: '00811', date: '2026-11-03', charge: '900.00' }] }),
    ];
    expect(dated.map((l) => [l[0]!.status, l[0]!.allowed_amount, l[0]!.denial_code])).toEqual([
      ['ALLOWED', 9500, null],
      ['BUNDLED', null, 'CARC-97'],
      ['BUNDLED', null, 'CARC-97'],
    ]);
    expect(sum(dated, 'allowed_amount')).toBe(950_000);
  });
});
