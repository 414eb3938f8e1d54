// A line sent in comes back out: each line of a claim sent as an 837 or as a FHIR Claim is in the
// ledger's service lines and in the 835 with its code, modifiers, units and the sender's line control
// number (REF*6R, else its sequence), and every 835 payment is its transfer's payout. In-process and
// over a real `tpa local serve`, funded, settled (the clock moved) and remitted by the CLI.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunResult, runTpa } from '../helpers/cli.js';
import { claimFile } from '../helpers/encounters.js';
import { tempDir } from '../helpers/engine.js';
import { login, type Served, serve } from '../helpers/server.js';
import { cents, ndjson } from '../helpers/values.js';
import { checked835, x12Cents } from '../helpers/x12-835-check.js';
import { interchange, professionalClaim, transaction } from '../helpers/x12.js';
import { formatCents } from '../../src/domain/money.js';

type Body = Record<string, any>;
const CLOCK = '2026-03-02T10:00:00Z';
const MORGAN = '1045782368';
const CLEARVIEW = '1329475804';

interface Side {
  dir: string;
  run(args: string[], input?: string): Promise<RunResult>;
}

const TRANSPORTS = ['in-process', 'over local serve'] as const;

describe.each(TRANSPORTS)('every line comes back (%s)', (transport) => {
  let home: ReturnType<typeof tempDir>;
  let server: Served | undefined;
  let side: Side;
  beforeAll(async () => {
    home = tempDir();
    expect((await runTpa(['local', 'clock', 'set', CLOCK], { home: home.dir })).code).toBe(0);
    const env = transport === 'in-process' ? {} : { TPA_PROFILE: 'sandbox' };
    if (transport !== 'in-process') {
      server = await serve(home.dir);
      await login(home.dir, server.url);
    }
    side = { dir: home.dir, run: (args, input) => runTpa(args, { home: home.dir, input, env }) };
  });
  afterAll(async () => {
    await server?.stop();
    home.remove();
  });

  const ok = async (args: string[], input?: string): Promise<RunResult> => {
    const r = await side.run(args, input);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };

  /** Funds the encounter, settles it (two days on the engine clock) and reads its 835 and settlement. */
  async function fundAndRemit(encounterId: string, benefit: number, auth: string): Promise<{ text: string; settlement: Body }> {
    await ok(['fund', 'approve', encounterId, '--amount', formatCents(cents(benefit)), '--auth-code', auth, '--yes']);
    expect((await runTpa(['local', 'clock', 'advance', '2d'], { home: side.dir })).code).toBe(0);
    const settlement = (await ok(['settlement', 'show', encounterId, '-o', 'json'])).json<Body>();
    expect(settlement.status).toBe('COMPLETED');
    return { text: (await ok(['settlement', 'remit', encounterId])).stdout, settlement };
  }

  /** Each SVC of the 835 with the REF*6R of its line, and each transaction's payee, paid amount and fee. */
  function remitted(text: string) {
    const { transactions } = checked835(text);
    return transactions.map((t) => {
      const lines: { svc01: string; units: string; ref6r: string | undefined }[] = [];
      for (const s of t.segments) {
        if (s[0] === 'SVC') lines.push({ svc01: s[1]!, units: s[5]!, ref6r: undefined });
        else if (s[0] === 'REF' && s[1] === '6R') lines.at(-1)!.ref6r = s[2];
      }
      return {
        npi: t.payee[4],
        paying: t.bpr[1] === 'I',
        paidCents: t.claims.reduce((sum, c) => sum + x12Cents(c.clp[4]!), 0),
        bprCents: x12Cents(t.bpr[2]!),
        plbCents: t.plbCents,
        lines,
      };
    });
  }

  /** Every 835 payment is its payout: the payee's CLP04 its amount, BPR02 its net; the payouts sum to the transfer. */
  function paymentsAreTransfers(text: string, settlement: Body) {
    // A notice (BPR01 H) tells a payee whose lines paid nothing: it is no payment.
    const payments = remitted(text).filter((t) => t.paying);
    const payouts = settlement.payouts as Body[];
    expect(payments.map((p) => p.npi).sort()).toEqual(payouts.map((p) => p.provider_npi).sort());
    for (const p of payouts) {
      const payment = payments.find((t) => t.npi === p.provider_npi)!;
      expect(payment.paidCents).toBe(cents(p.amount));
      expect(payment.bprCents).toBe(cents(p.net_to_provider));
      expect(payment.paidCents - payment.plbCents).toBe(payment.bprCents);
    }
    expect(payments.reduce((s, p) => s + p.paidCents, 0)).toBe(cents(settlement.total_amount));
  }

  it("an 837's lines come back with code, modifiers, units and REF*6R, and each payment is its payout", async () => {
    const text = interchange([
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [
          professionalClaim({
            clm01: 'RT837',
            member: 'MBR-1003',
            lines: [
              { cpt: '45378:PT', charge: '1800', ref6r: 'LCN-0001' },
              { cpt: '45380:59:76', charge: '2400', ref6r: 'LCN-0002' },
              { cpt: '43235', charge: '1500', units: '2', ref6r: 'LCN-0003' },
            ],
          }),
        ],
      }),
    ]);
    writeFileSync(join(side.dir, 'rt.837'), text);
    // claim convert says what is sent: the modifiers and the control number on each item.
    const converted = ndjson((await ok(['claim', 'convert', 'rt.837'])).stdout)[0]!;
    expect(converted.item.map((i: Body) => [i.modifier?.map((m: Body) => m.coding[0].code) ?? [], i.extension?.[0]?.valueString, i.quantity.value])).toEqual([
      [['PT'], 'LCN-0001', 1],
      [['59', '76'], 'LCN-0002', 1],
      [[], 'LCN-0003', 2],
    ]);
    const row = ndjson((await ok(['claim', 'submit', 'rt.837', '-o', 'ndjson'])).stdout)[0]!;
    expect(row.status, JSON.stringify(row)).toBe('ACKNOWLEDGED');
    const response = (await ok(['claim', 'poll', row.submission_id, '--wait', '--raw', '-o', 'json'])).json<Body>();
    expect(response.disposition).toBe('APPROVED');
    // The ClaimResponse gives each item's modifiers back.
    expect(response.claim_response.item.map((i: Body) => (i.extension ?? []).map((e: Body) => e.valueCodeableConcept.coding[0].code))).toEqual([
      ['PT'],
      ['59', '76'],
      [],
    ]);
    const detail = (await ok(['ledger', 'show', row.external_claim_id, '-o', 'json'])).json<Body>();
    expect(detail.service_lines.map((l: Body) => [l.cpt_code, l.modifiers, l.quantity, l.line_control_number])).toEqual([
      ['45378', ['PT'], 1, 'LCN-0001'],
      ['45380', ['59', '76'], 1, 'LCN-0002'],
      ['43235', [], 2, 'LCN-0003'],
    ]);
    const table = (await ok(['ledger', 'show', row.external_claim_id, '-o', 'table'])).stdout;
    expect(table).toContain('45378-PT');
    expect(table).toContain('45380-59-76');
    const { text: remit, settlement } = await fundAndRemit(row.external_claim_id, response.adjudication.benefit_amount, 'AUTH-RT-837');
    expect(remitted(remit).flatMap((t) => t.lines)).toEqual([
      { svc01: 'HC:45378:PT', units: '1', ref6r: 'LCN-0001' },
      { svc01: 'HC:45380:59:76', units: '1', ref6r: 'LCN-0002' },
      { svc01: 'HC:43235', units: '2', ref6r: 'LCN-0003' },
    ]);
    paymentsAreTransfers(remit, settlement);
  });

  it("a FHIR Claim's lines come back the same way; a line without a control number is its sequence", async () => {
    const file = await claimFile((args) => side.run(args), side.dir, {
      template: ['--type', 'professional', '--npi', MORGAN, '--cpt', '45380', '88305', '88305', '--patient', 'MBR-1003', '--service-date', '2026-02-27'],
      edit: (claim) => {
        claim.item[0].modifier = [{ coding: [{ system: 'http://www.ama-assn.org/go/cpt', code: '26' }] }];
        claim.item[0].extension = [{ url: 'urn:tpa:x12:ref6r', valueString: 'EHR-17-A' }];
        // A second specimen: another service of the same code and date, paid too.
        claim.item[2].modifier = [{ coding: [{ code: '59' }] }];
        claim.item[2].quantity = { value: 2 };
        claim.item[2].unitPrice = { value: claim.item[2].net.value, currency: 'USD' };
        claim.item[2].net = { value: claim.item[2].net.value * 2, currency: 'USD' };
        claim.total.value = claim.item.reduce((s: number, i: Body) => s + i.net.value, 0);
      },
    });
    const ack = (await ok(['claim', 'submit', file, '-o', 'json'])).json<Body>();
    const response = (await ok(['claim', 'poll', ack.submission_id, '--wait', '-o', 'json'])).json<Body>();
    expect(response.disposition).toBe('APPROVED');
    const detail = (await ok(['ledger', 'show', ack.external_claim_id, '-o', 'json'])).json<Body>();
    expect(detail.service_lines.map((l: Body) => [l.cpt_code, l.modifiers, l.quantity, l.line_control_number, l.provider_npi, l.status])).toEqual([
      ['45380', ['26'], 1, 'EHR-17-A', MORGAN, 'ALLOWED'],
      ['88305', [], 1, null, CLEARVIEW, 'ALLOWED'],
      ['88305', ['59'], 2, null, CLEARVIEW, 'ALLOWED'],
    ]);
    const { text: remit, settlement } = await fundAndRemit(ack.external_claim_id, response.adjudication.benefit_amount, 'AUTH-RT-FHIR');
    const byPayee = remitted(remit);
    expect(byPayee.find((t) => t.npi === MORGAN)!.lines).toEqual([{ svc01: 'HC:45380:26', units: '1', ref6r: 'EHR-17-A' }]);
    expect(byPayee.find((t) => t.npi === CLEARVIEW)!.lines).toEqual([
      { svc01: 'HC:88305', units: '1', ref6r: '2' },
      { svc01: 'HC:88305:59', units: '2', ref6r: '3' },
    ]);
    paymentsAreTransfers(remit, settlement);
  });

  it('minutes of anesthesia price as one service whether sent as an 837 (SV103 MJ) or as FHIR (UCUM min), and show the minutes as sent, MJ', async () => {
    // One service on two dates (else the second is the first's duplicate): 60 minutes, charge 1,800.00.
    const text = interchange([
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [
          professionalClaim({ clm01: 'RTMJ', member: 'MBR-1002', lines: [{ cpt: '00811', charge: '1800', units: '60', date: '20250110' }] }).filter(
            (s) => !s.startsWith('NM1*82'),
          ),
        ],
      }),
    ]).replace('00811*1800*UN*60', '00811*1800*MJ*60');
    writeFileSync(join(side.dir, 'minutes.837'), text);
    const row = ndjson((await ok(['claim', 'submit', 'minutes.837', '-o', 'ndjson'])).stdout)[0]!;
    expect(row.status, JSON.stringify(row)).toBe('ACKNOWLEDGED');
    const x12 = (await ok(['claim', 'poll', row.submission_id, '--wait', '-o', 'json'])).json<Body>();
    const template = ['--type', 'professional', '--npi', '1234567893', '--cpt', '00811', '--patient', 'MBR-1002', '--service-date', '2025-01-09'];
    const file = await claimFile((args) => side.run(args), side.dir, {
      template,
      edit: (claim) => {
        delete claim.careTeam;
        claim.item = [
          {
            sequence: 1,
            productOrService: claim.item[0].productOrService,
            servicedDate: '2025-01-09',
            quantity: { value: 60, unit: 'min', system: 'http://unitsofmeasure.org', code: 'min' },
            unitPrice: { value: 30, currency: 'USD' },
            net: { value: 1800, currency: 'USD' },
          },
        ];
        claim.total = { value: 1800, currency: 'USD' };
      },
    });
    const ack = (await ok(['claim', 'submit', file, '-o', 'json'])).json<Body>();
    const fhir = (await ok(['claim', 'poll', ack.submission_id, '--wait', '-o', 'json'])).json<Body>();
    for (const response of [x12, fhir]) {
      expect(response.disposition, JSON.stringify(response)).toBe('APPROVED');
      expect(response.adjudication.allowed_amount).toBe(480);
    }
    for (const id of [row.external_claim_id, ack.external_claim_id]) {
      const detail = (await ok(['ledger', 'show', id, '-o', 'json'])).json<Body>();
      expect(detail.service_lines.map((l: Body) => [l.cpt_code, l.quantity, l.unit_of_measure, l.allowed_amount])).toEqual([['00811', 60, 'MJ', 480]]);
    }
  });

  it('a line control number given twice is refused on both paths, never one of the two kept', async () => {
    const before = (await ok(['ledger', 'list', '-o', 'json'])).json<Body>().count as number;
    const text = interchange([
      transaction({
        st02: '0001',
        type: 'professional',
        claims: [professionalClaim({ clm01: 'RT6R2', member: 'MBR-1003', lines: [{ cpt: '45378', charge: '1800', ref6r: 'AAA' }] })],
      }),
    ])
      .replace(/REF\*6R\*AAA~(\s*)/, (m, gap) => `${m}REF*6R*BBB~${gap}`)
      .replace(/SE\*(\d+)\*0001/, (_m, n) => `SE*${Number(n) + 1}*0001`);
    writeFileSync(join(side.dir, 'ref6r-twice.837'), text);
    const submitted = await side.run(['claim', 'submit', 'ref6r-twice.837']);
    expect(submitted.code, submitted.stdout + submitted.stderr).not.toBe(0);
    expect(submitted.stdout + submitted.stderr).toContain('a second REF*6R on service line 1');
    // Refused as other segments given twice where the loop has one: the claim and the segment named, nothing sent.
    expect(submitted.stderr).toContain('ref6r-twice.837: ST 0001, CLM RT6R2: invalid, not sent: SV1 #1, REF*6R: a second REF*6R');
    const template = ['--type', 'professional', '--npi', MORGAN, '--cpt', '45378', '--patient', 'MBR-1003', '--service-date', '2026-02-21'];
    const file = await claimFile((args) => side.run(args), side.dir, {
      template,
      edit: (claim) => {
        claim.item[0].extension = [
          { url: 'urn:tpa:x12:ref6r', valueString: 'AAA' },
          { url: 'urn:tpa:x12:ref6r', valueString: 'BBB' },
        ];
      },
    });
    const sent = await side.run(['api', 'POST', '/tpa-api/v1/claims/submit/', '-d', `@${file}`]);
    expect(sent.code, sent.stdout + sent.stderr).not.toBe(0);
    expect(sent.stdout + sent.stderr).toMatch(/"field": ?"item\[0\]\.extension\[1\]"/);
    expect((await ok(['ledger', 'list', '-o', 'json'])).json<Body>().count).toBe(before);
  });

  it('a cancelled or entered-in-error claim is refused naming status, takes no duplicate key, and claim validate says so first', async () => {
    const template = ['--type', 'professional', '--npi', MORGAN, '--cpt', '45378', '--patient', 'MBR-1001', '--service-date', '2026-02-20'];
    const count = async () => (await ok(['ledger', 'list', '-o', 'json'])).json<Body>().count as number;
    const before = await count();
    for (const status of ['entered-in-error', 'cancelled']) {
      const file = await claimFile((args) => side.run(args), side.dir, { template, edit: (claim) => (claim.status = status) });
      const validated = await side.run(['claim', 'validate', file]);
      expect(validated.code).toBe(2);
      expect(validated.stderr).toContain('status');
      expect(validated.stderr).toContain('only active claims are adjudicated');
      // Sent anyway (tpa api sends what it is given): the service refuses it with a 400 naming status.
      const sent = await side.run(['api', 'POST', '/tpa-api/v1/claims/submit/', '-d', `@${file}`]);
      expect(sent.code, sent.stdout + sent.stderr).not.toBe(0);
      expect(sent.stdout + sent.stderr).toMatch(/"field": ?"status"/);
      const submitted = await side.run(['claim', 'submit', file]);
      expect(submitted.code).toBe(2);
      expect(submitted.stderr).toContain('status');
    }
    expect(await count()).toBe(before);
    // The real claim of that service is paid, not denied as a duplicate of the cancelled one.
    const real = await claimFile((args) => side.run(args), side.dir, { template });
    const ack = (await ok(['claim', 'submit', real, '-o', 'json'])).json<Body>();
    const response = (await ok(['claim', 'poll', ack.submission_id, '--wait', '-o', 'json'])).json<Body>();
    expect(response.disposition).toBe('APPROVED');
  });

  it('a repeat procedure (45380-76) on a later claim is paid; the same 45380-76 sent again is a duplicate (CARC-18)', async () => {
    const template = ['--type', 'professional', '--npi', MORGAN, '--cpt', '45380', '--patient', 'MBR-1004', '--service-date', '2026-02-25'];
    const adjudicated = async (file: string) => {
      const ack = (await ok(['claim', 'submit', file, '-o', 'json', '--again'])).json<Body>();
      return (await ok(['claim', 'poll', ack.submission_id, '--wait', '-o', 'json'])).json<Body>();
    };
    const first = await adjudicated(await claimFile((args) => side.run(args), side.dir, { template }));
    expect(first.disposition).toBe('APPROVED');
    const repeat = await claimFile((args) => side.run(args), side.dir, {
      template,
      edit: (claim) => (claim.item[0].modifier = [{ coding: [{ code: '76' }] }]),
    });
    const second = await adjudicated(repeat);
    expect(second.disposition).toBe('APPROVED');
    expect(second.adjudication.allowed_amount).toBe(first.adjudication.allowed_amount);
    const again = await adjudicated(repeat);
    expect(again).toMatchObject({ disposition: 'DENIED', denial_code: 'CARC-18' });
  });

  it("a care team with two entries of one sequence is refused at the repeating entry's sequence, by validate and by the service", async () => {
    const file = await claimFile((args) => side.run(args), side.dir, {
      template: ['--type', 'professional', '--npi', MORGAN, '--cpt', '45380', '88305', '--patient', 'MBR-1004', '--service-date', '2026-02-20'],
      edit: (claim) => {
        // Clearview and Summit Anesthesia both as sequence 2: the 88305 line names "2".
        claim.careTeam.push({ ...claim.careTeam[1], provider: { identifier: { system: 'http://hl7.org/fhir/sid/us-npi', value: '1196382455' } } });
      },
    });
    const validated = await side.run(['claim', 'validate', file]);
    expect(validated.code).toBe(2);
    expect(validated.stderr).toContain('careTeam[2].sequence');
    const sent = await side.run(['api', 'POST', '/tpa-api/v1/claims/submit/', '-d', `@${file}`]);
    expect(sent.code).not.toBe(0);
    expect(sent.stdout + sent.stderr).toContain('careTeam[2].sequence');
    expect(JSON.parse(readFileSync(file, 'utf8')).careTeam.map((m: Body) => m.sequence)).toEqual([1, 2, 2]);
  });
});
