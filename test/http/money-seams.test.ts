// Over a real `tpa local serve`, and in-process on the same data: one rate a date through a
// finalize, and the ledger of a transfer whose reconciliation failed (docs/money-rules.md "Rates in
// force on each date", "Settlement").
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adjudicatedEncounter } from '../helpers/encounters.js';
import { useServedSides } from '../helpers/server.js';
import { cents, ndjson } from '../helpers/values.js';

type Body = Record<string, any>;
// Friday 10 April 2026 on the stored engine clock, which the server and in-process commands share.
const home = useServedSides(beforeEach, afterEach, '2026-04-10T10:00:00Z');
const { local, remote } = home;
type Side = typeof local;

/** A claim from the template (its arguments given) submitted and polled on one side. */
const adjudicated = (side: Side, template: string[], edit?: (claim: Body) => void) =>
  adjudicatedEncounter(side, home.dir, { template, ...(edit ? { edit } : {}) });

describe('ratesheet finalize on the day of services already claimed', () => {
  for (const [name, side] of [
    ['in-process', local],
    ['over local serve', remote],
  ] as const) {
    it(`prices two identical colonoscopies of the finalize day by one rate (${name})`, async () => {
      const colonoscopy = (patient: string) => [
        '--type',
        'professional',
        '--npi',
        '1045782368',
        '--cpt',
        '45378',
        '--patient',
        patient,
        '--service-date',
        '2026-04-10',
      ];
      const before = await adjudicated(side, colonoscopy('MBR-1003'));
      expect((await side(['ratesheet', 'init', 'BLD-1002'])).code).toBe(0);
      expect((await side(['ratesheet', 'add', 'BLD-1002', '--ssp', 'GI-0101', '--rate-type', 'CASE_RATE', '--rate', '1000'])).code).toBe(0);
      const done = await side(['ratesheet', 'finalize', 'BLD-1002', '--yes', '-o', 'json']);
      expect(done.code, done.stderr).toBe(0);
      expect(done.json()).toMatchObject({ status: 'FINALIZED', effective_date: '2026-04-11' });
      const after = await adjudicated(side, colonoscopy('MBR-1004'));
      expect([before.response.adjudication.allowed_amount, after.response.adjudication.allowed_amount]).toEqual([425, 425]);
    });
  }
});

describe('a transfer whose reconciliation failed', () => {
  for (const [name, side] of [
    ['in-process', local],
    ['over local serve', remote],
  ] as const) {
    it(`leaves the ledger FUNDED, not RECONCILED, and activity and report --by settled still find the arrival (${name})`, async () => {
      // Two four-provider encounters of Friday, funded; one's AEOB never comes, the other's states a variance after it matched.
      const institutional = (patient: string) => ['--type', 'institutional', '--patient', patient, '--service-date', '2026-04-10'];
      const missing = await adjudicated(side, institutional('MBR-1003'));
      const variance = await adjudicated(side, institutional('MBR-1004'));
      for (const [i, e] of [missing, variance].entries()) {
        const amount = e.response.adjudication.benefit_amount.toFixed(2);
        const f = await side(['fund', 'approve', e.id, '--amount', amount, '--auth-code', `AUTH-SEAM-${i}`, '--yes']);
        expect(f.code, f.stderr).toBe(0);
      }
      expect((await local(['local', 'simulate', 'missing-aeob', missing.id])).code).toBe(0);
      // The transfers arrive on Monday 13 April (one business day after Friday).
      expect((await local(['local', 'clock', 'set', '2026-04-14T09:00:00Z'])).code).toBe(0);
      const v = await local(['local', 'simulate', 'aeob-variance', variance.id]);
      expect(v.code, v.stderr).toBe(0);

      for (const [id, why] of [
        [missing.id, /^Not reconciled: no AEOB/],
        [variance.id, /^Not reconciled: the settlement differs/],
      ] as const) {
        const d = (await side(['ledger', 'show', id, '-o', 'json'])).json<Body>();
        expect(d.encounter.status).toBe('FUNDED');
        expect(d.reconciliation.claim_match_status).toBe('UNMATCHED');
        expect(d.entries.at(-1)).toMatchObject({ type: 'RECONCILIATION_UNMATCHED', description: expect.stringMatching(why) });
        expect(d.financial_summary.balance.status).toBe('SETTLED');
      }
      const monday = await side(['activity', '--from', '2026-04-13', '--to', '2026-04-13', '-o', 'json']);
      expect(monday.code, monday.stderr).toBe(0);
      const settled = monday.json<Body>().events.filter((e: Body) => e.kind === 'settled');
      expect(settled.map((e: Body) => e.encounter_id).sort()).toEqual([missing.id, variance.id].sort());
      // The lost match of Tuesday is no second arrival.
      const tuesday = (await side(['activity', '--from', '2026-04-14', '--to', '2026-04-14', '-o', 'json'])).json<Body>();
      expect(tuesday.events.filter((e: Body) => e.kind === 'settled')).toEqual([]);
      const report = await side(['settlement', 'report', '--from', '2026-04-13', '--to', '2026-04-13', '--by', 'settled', '-o', 'json']);
      expect(report.code, report.stderr).toBe(0);
      const r = report.json<Body>();
      expect(r.encounters.count).toBe(2);
      expect(r.encounters.by_status.map((s: Body) => [s.status, s.count])).toEqual([['FUNDED', 2]]);
      expect(r.reconciliation).toMatchObject({ matched: { count: 0 }, variance: { count: 1 }, missing_aeob: { count: 1 } });
    });
  }
});

describe('a claim pended for its preauthorization and sent again with it', () => {
  for (const [name, side] of [
    ['in-process', local],
    ['over local serve', remote],
  ] as const) {
    it(`a claim of the same CLM01 that leaves out the service that waited supersedes nothing (${name})`, async () => {
      const pcn = (claim: Body) => {
        claim.identifier = [{ system: 'urn:tpa:x12:clm01', value: 'PCN-77' }];
      };
      const template = (cpt: string) => [
        '--type',
        'institutional',
        '--npi',
        '1450827369',
        '--cpt',
        cpt,
        '--patient',
        'MBR-1003',
        '--service-date',
        '2026-04-10',
      ];
      const knee = await adjudicated(side, template('27447'), pcn);
      expect(knee.response.disposition).toBe('PENDING_REVIEW');
      // A 500.00 evaluation with the knee's CLM01: nothing billed 27447 again.
      const evaluation = await adjudicated(side, template('97161'), pcn);
      expect(evaluation.response.disposition).toMatch(/APPROV/);
      const detail = (await side(['ledger', 'show', knee.id, '-o', 'json'])).json<Body>();
      expect(detail.encounter.superseded_by).toBeUndefined();
      expect(detail.entries.map((e: Body) => e.type)).not.toContain('SUPERSEDED');
      expect((await side(['ledger', 'show', evaluation.id, '-o', 'json'])).json<Body>().encounter.supersedes).toBeUndefined();

      expect((await local(['local', 'clock', 'set', '2026-04-18T12:00:00Z'])).code).toBe(0);
      const r = (await side(['settlement', 'report', '--from', '2026-04-10', '--to', '2026-04-10', '-o', 'json'])).json<Body>();
      expect(r.exceptions.filter((x: Body) => x.kind === 'PENDED_OVER_7_DAYS').map((x: Body) => x.encounter_id)).toEqual([knee.id]);
      expect(r.encounters.superseded_pended.count).toBe(0);

      // The knee sent again with its CLM01 and a preauthorization is its resubmission.
      const again = await adjudicated(side, template('27447'), (claim) => {
        pcn(claim);
        claim.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'priorauthorization' }] }, valueString: 'PA-2026-0410' }];
      });
      expect((await side(['ledger', 'show', knee.id, '-o', 'json'])).json<Body>().encounter.superseded_by).toBe(again.id);
    });

    it(`supersedes the pended one: out of the exceptions, its charges counted once (${name})`, async () => {
      const knee = ['--type', 'institutional', '--npi', '1450827369', '--cpt', '27447', '--patient', 'MBR-1003', '--service-date', '2026-04-10'];
      const preauth = (claim: Body) => {
        claim.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'priorauthorization' }] }, valueString: 'PA-2026-0410' }];
      };
      const pended = await adjudicated(side, knee);
      expect(pended.response.disposition).toBe('PENDING_REVIEW');
      // Another pended claim of the member that day, for another service, is not the one sent again.
      const other = await adjudicated(side, [
        '--type',
        'institutional',
        '--npi',
        '1450827369',
        '--cpt',
        '27447',
        '97161',
        '--patient',
        'MBR-1003',
        '--service-date',
        '2026-04-10',
      ]);
      expect(other.response.disposition).toBe('PENDING_REVIEW');
      const again = await adjudicated(side, knee, preauth);
      expect(again.response.disposition).toMatch(/APPROV/);

      const list = (await side(['ledger', 'list', '--from', '2026-04-10', '--to', '2026-04-10', '--all', '-o', 'json'])).json<Body[]>();
      const item = (id: string) => list.find((i) => i.encounter_id === id)!;
      expect(item(pended.id)).toMatchObject({ status: 'PENDED', superseded_by: again.id });
      expect(item(other.id).superseded_by).toBeUndefined();
      const detail = (await side(['ledger', 'show', pended.id, '-o', 'json'])).json<Body>();
      expect(detail.encounter).toMatchObject({ status: 'PENDED', superseded_by: again.id });
      expect(detail.entries.at(-1)).toMatchObject({ type: 'SUPERSEDED', reference: again.id });
      expect((await side(['ledger', 'show', again.id, '-o', 'json'])).json<Body>().encounter.supersedes).toBe(pended.id);
      const table = await side(['ledger', 'list', '--status', 'PENDED', '-o', 'table']);
      expect(table.stdout).toMatch(/PENDED ↪ sent again/);
      expect(table.stdout.match(/PENDED/g)).toHaveLength(2);

      // Eight days later: the claim still pended is an exception, the one sent again is not.
      expect((await local(['local', 'clock', 'set', '2026-04-18T12:00:00Z'])).code).toBe(0);
      const report = await side(['settlement', 'report', '--from', '2026-04-10', '--to', '2026-04-10', '-o', 'json']);
      expect(report.code, report.stderr).toBe(0);
      const r = report.json<Body>();
      expect(r.exceptions.filter((x: Body) => x.kind === 'PENDED_OVER_7_DAYS').map((x: Body) => x.encounter_id)).toEqual([other.id]);
      expect(r.encounters.by_status.map((s: Body) => [s.status, s.count])).toEqual([
        ['ADJUDICATED', 1],
        ['PENDED', 1],
      ]);
      expect(r.encounters.count).toBe(2);
      expect(r.encounters.superseded_pended.count).toBe(1);
      expect(cents(r.encounters.charges)).toBe(
        list.filter((i) => i.encounter_id !== pended.id).reduce((sum, i) => sum + cents(i.financial_summary.charges), 0),
      );
      // ndjson, one line an encounter, says which pended claim was sent again, as the JSON counts it:
      // the lines not superseded sum to the report's charges.
      const nd = await side(['settlement', 'report', '--from', '2026-04-10', '--to', '2026-04-10', '-o', 'ndjson']);
      expect(nd.code, nd.stderr).toBe(0);
      const lines = ndjson<Body>(nd.stdout);
      expect(lines.map((l) => [l.encounter_id, l.status, l.superseded_by]).sort()).toEqual(
        [
          [pended.id, 'PENDED', again.id],
          [other.id, 'PENDED', null],
          [again.id, 'ADJUDICATED', null],
        ].sort(),
      );
      const counted = lines.filter((l) => l.superseded_by === null);
      expect(counted.reduce((sum, l) => sum + cents(l.charges), 0)).toBe(cents(r.encounters.charges));
      expect(lines.filter((l) => l.superseded_by !== null).reduce((sum, l) => sum + cents(l.charges), 0)).toBe(cents(r.encounters.superseded_pended.charges));
    });
  }
});
