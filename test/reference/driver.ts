// Runs a sequence of events through the engine, in-process on a copy of one seeded database, and
// reads back the same figures the reference model gives: claim responses and ledger lines,
// approvals, sandbox triggers, settlements and the ledger at the end, and the finance desk's report.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/engine.js';
import { call } from '../helpers/engine.js';
import { runTpa } from '../helpers/cli.js';
import type { Answer, ClaimFigures, EncounterFigures, Event, LineFigures, Outcome, PayoutFigures, ReportFigures, Sequence, TransferFigures } from './events.js';
import { MONEY_KEYS, type MoneyKey } from './events.js';

type Body = Record<string, any>;
const TPA = '/tpa-api/v1';
const NPI_SYSTEM = 'http://hl7.org/fhir/sid/us-npi';

/** An amount the engine wrote (a JSON number in USD, or null) as integer cents, never rounded away. */
export function toCents(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') v = Number(v);
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`not an amount: ${JSON.stringify(v)}`);
  const c = Math.round(v * 100);
  if (Math.abs(c - v * 100) > 1e-6) throw new Error(`more than two decimals: ${v}`);
  return c;
}
/** An amount as cents, null (not given) as 0. */
export const cents = (v: unknown): number => toCents(v) ?? 0;
export const usd = (c: number) => c / 100;

/**
 * Scratch databases live in memory where the system has a tmpfs (/dev/shm): a sequence's commits
 * and checkpoints then wait for no disk.
 */
const SCRATCH = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

/** One seeded database, copied for each sequence (migrating and seeding takes longer than a sequence). */
export class EngineBase {
  readonly dir = mkdtempSync(join(SCRATCH, 'tpa-model-base-'));
  constructor() {
    // Seeded on a clock before every sequence's, so that nothing recorded at seeding is later than
    // the times the sequences set.
    Engine.open({ dataDir: this.dir, env: { TPA_ADJUDICATION_DELAY: '0s', TPA_CLOCK: '2025-06-01T00:00:00Z' } }).close();
  }
  copy(): string {
    const dir = mkdtempSync(join(SCRATCH, 'tpa-model-'));
    for (const suffix of ['', '-wal']) {
      const file = join(this.dir, `local.sqlite${suffix}`);
      if (existsSync(file)) copyFileSync(file, join(dir, `local.sqlite${suffix}`));
    }
    return dir;
  }
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A line's net: unit price × quantity (up to three decimals), half a cent rounded up, as FHIR's net = quantity × unitPrice is checked. */
const netCents = (l: { unitCents: number; quantity: number }): number => Math.floor((2 * l.unitCents * Math.round(l.quantity * 1000) + 1000) / 2000);

/** The FHIR R4 Claim for a claim event, dated by the engine clock's day. */
export function fhirClaim(event: Extract<Event, { kind: 'claim' }>, today: string): Body {
  const team = [...new Set(event.lines.map((l) => l.careTeam).filter((x): x is string => x !== undefined))];
  const dates = event.lines.map((l) => l.date).sort();
  const total = event.lines.reduce((s, l) => s + netCents(l), 0);
  const claim: Body = {
    resourceType: 'Claim',
    status: 'active',
    type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claim-type', code: 'professional' }] },
    use: 'claim',
    patient: { reference: `Patient/${event.member}` },
    billablePeriod: { start: dates[0], end: dates.at(-1) },
    created: today,
    provider: { reference: `Organization/${event.billing}`, identifier: { system: NPI_SYSTEM, value: event.billing } },
    priority: { coding: [{ code: 'normal' }] },
    insurer: { reference: 'Organization/PAYER-ACME' },
    diagnosis: [{ sequence: 1, diagnosisCodeableConcept: { coding: [{ system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'Z12.11' }] } }],
    insurance: [{ sequence: 1, focal: true, coverage: { reference: 'Coverage/COV-1' } }],
    item: event.lines.map((l, i) => ({
      sequence: i + 1,
      ...(l.careTeam ? { careTeamSequence: [team.indexOf(l.careTeam) + 1] } : {}),
      // A CPT code under CPT's system, a HCPCS Level II code (J3490) under HCPCS's.
      productOrService: {
        coding: [
          { system: /^\d{5}$/.test(l.code) ? 'http://www.ama-assn.org/go/cpt' : 'https://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets', code: l.code },
        ],
      },
      ...(l.modifiers ? { modifier: l.modifiers.map((code) => ({ coding: [{ code }] })) } : {}),
      ...(l.control !== undefined ? { extension: [{ url: 'urn:tpa:x12:ref6r', valueString: l.control }] } : {}),
      servicedDate: l.date,
      quantity: { value: l.quantity },
      unitPrice: { value: usd(l.unitCents), currency: 'USD' },
      net: { value: usd(netCents(l)), currency: 'USD' },
    })),
    total: { value: usd(total), currency: 'USD' },
  };
  if (team.length > 0) {
    claim.careTeam = team.map((npi, i) => ({
      sequence: i + 1,
      provider: { identifier: { system: NPI_SYSTEM, value: npi } },
      role: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/claimcareteamrole', code: 'primary' }] },
    }));
  }
  if (event.preauthorization) {
    claim.supportingInfo = [{ sequence: 1, category: { coding: [{ code: 'priorauthorization' }] }, valueString: 'PA-2026-0001' }];
  }
  return claim;
}

export async function runEngine(base: EngineBase, sequence: Sequence, options: { report: boolean }): Promise<Outcome> {
  const dir = base.copy();
  let engine = Engine.open({ dataDir: dir, env: { TPA_ADJUDICATION_DELAY: '0s' } });
  try {
    engine.setClock(sequence.start);
    const encounters: { id: string; benefit: number }[] = [];
    const answers: (Answer | ClaimFigures)[] = [];
    let approvals = 0;
    const encounterOf = (n: number) => (encounters.length === 0 ? undefined : encounters[n % encounters.length]);
    for (const event of sequence.events) {
      switch (event.kind) {
        case 'claim': {
          const today = engine.clock().now.slice(0, 10);
          const ack = call(engine, 'POST', `${TPA}/claims/submit/`, fhirClaim(event, today));
          if (ack.status !== 201) {
            if (ack.status !== 404 && ack.status !== 400) throw new Error(`claim answered ${ack.status}: ${JSON.stringify(ack.body)}`);
            answers.push({ http: ack.status });
            break;
          }
          const { submission_id, external_claim_id } = ack.body as Body;
          const res = call(engine, 'GET', `${TPA}/claims/${submission_id}/response/`);
          if (res.status !== 200) throw new Error(`claim response answered ${res.status}: ${JSON.stringify(res.body)}`);
          const r = res.body as Body;
          const detail = call(engine, 'GET', `${TPA}/ledger/entries/${external_claim_id}/`).body as Body;
          const a = r.adjudication as Body | undefined;
          const lines: LineFigures[] = (detail.service_lines as Body[]).map((l) => ({
            status: l.status,
            denial_code: l.denial_code ?? null,
            allowed: toCents(l.allowed_amount),
            copay: toCents(l.copay_applied),
            deductible: toCents(l.deductible_applied),
            coinsurance: toCents(l.coinsurance_applied),
            patient: toCents(l.patient_responsibility),
            benefit: toCents(l.benefit_amount),
            payee: l.provider_npi,
          }));
          answers.push({
            http: 201,
            disposition: r.disposition,
            denial_code: r.denial_code ?? null,
            allowed: toCents(a?.allowed_amount),
            copay: toCents(a?.copay_applied),
            deductible: toCents(a?.deductible_applied),
            coinsurance: toCents(a?.coinsurance_applied),
            patient: toCents(a?.patient_responsibility),
            benefit: toCents(a?.benefit_amount),
            lines,
          });
          encounters.push({ id: external_claim_id, benefit: cents(a?.benefit_amount) });
          break;
        }
        case 'fund': {
          const e = encounterOf(event.claim);
          if (!e) {
            answers.push({ http: 0 });
            break;
          }
          approvals++;
          const res = call(engine, 'POST', `${TPA}/funding/approve/`, {
            encounter_id: e.id,
            amount: usd(Math.max(e.benefit, 1)),
            authorization_code: `AUTH-20260101-REF-${String(approvals).padStart(4, '0')}`,
          });
          const b = res.body as Body;
          answers.push(
            res.status === 200 ? { http: 200 } : { http: res.status, reason: b.reason ?? (b.previous_processor_transfer_id ? 'DUPLICATE' : b.error) },
          );
          break;
        }
        case 'simulate': {
          const e = encounterOf(event.claim);
          if (!e) {
            answers.push({ http: 0 });
            break;
          }
          try {
            engine.simulate(event.scenario, e.id);
            answers.push({ http: 200 });
          } catch {
            answers.push({ http: 409 });
          }
          break;
        }
        case 'advance':
          engine.advanceClock(event.hours * 3_600_000);
          answers.push({ http: 200 });
          break;
        case 'clock-back': {
          const to = new Date(Date.parse(engine.clock().now) - event.hours * 3_600_000).toISOString().replace('.000Z', 'Z');
          const res = await runTpa(['local', 'clock', 'set', to], { home: dir });
          if (res.code !== 0 && res.code !== 2) throw new Error(`clock set exited ${res.code}: ${res.stderr}`);
          answers.push({ http: res.code === 0 ? 200 : 400 });
          break;
        }
        case 'finalize':
          answers.push(finalize(engine, event));
          break;
      }
    }
    const figures = encounters.map((e) => encounterFigures(engine, e.id));
    let report: ReportFigures | undefined;
    if (options.report) {
      engine.close();
      report = await reportFigures(dir, sequence);
      engine = Engine.open({ dataDir: dir, env: { TPA_ADJUDICATION_DELAY: '0s' } });
    }
    return report ? { answers, encounters: figures, report } : { answers, encounters: figures };
  } finally {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function finalize(engine: Engine, event: Extract<Event, { kind: 'finalize' }>): Answer {
  const B = '/api/v1/computable-contracts/builder/BLD-1002/rate-schedule';
  call(engine, 'POST', `${B}/init/`, {});
  const catalog = call(engine, 'GET', '/api/v1/ssp/catalog/?page_size=200').body as Body;
  for (const r of event.rates) {
    const ssp = (catalog.results as Body[]).find((s) => s.primary_cpt_code === r.code);
    if (!ssp) throw new Error(`no SSP for ${r.code}`);
    const added = call(engine, 'PUT', `${B}/add-ssp/`, { ssp_id: ssp.id, rate_type: 'CASE_RATE', rate_value: usd(r.cents) });
    if (added.status !== 200) throw new Error(`add-ssp answered ${added.status}: ${JSON.stringify(added.body)}`);
  }
  const res = call(engine, 'POST', '/api/v1/computable-contracts/builder/BLD-1002/finalize', { effective_date: event.effective, allow_retroactive: true });
  return { http: res.status };
}

function transferFigures(t: Body): TransferFigures {
  const failed = t.status === 'FAILED';
  const payouts: PayoutFigures[] = (t.payouts as Body[]).map((p) =>
    failed
      ? { npi: p.provider_npi, role: p.provider_role, amount: cents(p.amount), status: p.payout_status }
      : {
          npi: p.provider_npi,
          role: p.provider_role,
          amount: cents(p.amount),
          fee: cents(p.processor_fee),
          net: cents(p.net_to_provider),
          status: p.payout_status,
        },
  );
  const m = t.aeob_match as Body | null;
  const refund = t.refund_details as Body | null;
  // The order of payouts is not a money rule: compared by payee.
  payouts.sort((a, b) => (a.npi < b.npi ? -1 : 1));
  return {
    status: t.status,
    total: cents(t.total_amount),
    payouts,
    reconciliation_status: t.reconciliation_status,
    aeob: m
      ? { aeob_amount: toCents(m.aeob_amount), settlement_amount: cents(m.settlement_amount), variance: cents(m.variance), match_status: m.match_status }
      : null,
    refund: refund ? { amount: cents(refund.amount), gross: cents(refund.gross_amount), fees_not_returned: cents(refund.fees_not_returned) } : null,
  };
}

function encounterFigures(engine: Engine, id: string): EncounterFigures {
  const detail = call(engine, 'GET', `${TPA}/ledger/entries/${id}/`).body as Body;
  const s = call(engine, 'GET', `${TPA}/settlement/${id}/`);
  const transfers =
    s.status === 200 && (s.body as Body).status !== 'PENDING'
      ? [...(((s.body as Body).previous_transfers ?? []) as Body[]), s.body as Body].map(transferFigures)
      : [];
  return {
    ledger_status: detail.encounter.status,
    balance_status: detail.financial_summary.balance.status,
    transfers,
    superseded: typeof detail.encounter.superseded_by === 'string',
  };
}

async function reportFigures(dir: string, sequence: Sequence): Promise<ReportFigures> {
  const dates = sequence.events.flatMap((e) => (e.kind === 'claim' ? e.lines.map((l) => l.date) : [])).sort();
  const from = dates[0] ?? sequence.start.slice(0, 10);
  const to = dates.at(-1) ?? from;
  const res = await runTpa(['settlement', 'report', '--from', from, '--to', to, '-o', 'json'], { home: dir });
  if (res.code !== 0) throw new Error(`settlement report exited ${res.code}: ${res.stderr}`);
  const j = res.json<Body>();
  const by_status: ReportFigures['by_status'] = {};
  for (const s of j.encounters.by_status as Body[]) {
    by_status[s.status] = {
      count: s.count,
      charges: cents(s.charges),
      allowed: cents(s.allowed),
      patient: cents(s.patient_responsibility),
      benefit: cents(s.benefit),
    };
  }
  const providers: ReportFigures['providers'] = {};
  for (const p of j.providers as Body[])
    providers[p.npi] = { payouts: p.payouts, amount: cents(p.amount), refunded: cents(p.refunded), fees: cents(p.fees), net: cents(p.net) };
  const m = j.money as Body;
  const rec = j.reconciliation as Body;
  // The names the report prints each figure under (some have had two).
  const names: Record<MoneyKey, string[]> = {
    funded: ['funded', 'released'],
    in_transit: ['in_transit'],
    settled: ['settled'],
    failed: ['failed'],
    refunded: ['refunded'],
    processor_fees: ['processor_fees'],
    net_to_providers: ['net_to_providers', 'net'],
    came_back: ['came_back'],
    fees_charged: ['fees_charged'],
    fees_kept: ['fees_kept'],
    spent: ['spent', 'spent_in_all'],
  };
  const money: ReportFigures['money'] = {};
  for (const key of MONEY_KEYS) {
    const name = names[key].find((n) => m[n] !== undefined);
    if (name !== undefined) money[key] = cents(m[name]);
  }
  if (money.funded === undefined || money.settled === undefined) throw new Error(`the report's money has neither funded nor released: ${JSON.stringify(m)}`);
  return {
    by_status,
    money,
    providers,
    reconciliation: {
      matched: [rec.matched.count, cents(rec.matched.amount)],
      variance: ((rec.variance.items ?? []) as Body[]).map((x) => cents(x.variance)).sort((a, b) => a - b),
      missing_aeob: [rec.missing_aeob.count, cents(rec.missing_aeob.amount)],
      not_reconciled: rec.not_reconciled.count,
    },
  };
}
