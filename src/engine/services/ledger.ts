// The encounter ledger (SPEC.md "GET /v1/ledger/entries/" and ".../{encounter_id}/").
import type { Adjudication } from '../../domain/adjudication.js';
import type { FieldError } from '../../domain/errors.js';
import { centsToAmount } from '../../domain/money.js';
import { isoDateProblem, npiProblem } from '../../domain/validation.js';
import type { EngineContext } from '../context.js';
import { HttpError, respond, type EngineRequest, type EngineResponse } from '../http.js';
import type { Db } from '../store/db.js';
import { encounterById, encounterData, LEDGER_STATUSES, lineProviders, providerByNpi, type EncounterRow } from './encounters.js';
import { settlementFor } from './settlement.js';

export const LEDGER_DEFAULT_LIMIT = 20;
export const LEDGER_MAX_LIMIT = 100;

interface Filters {
  start_date?: string;
  end_date?: string;
  provider_npi?: string;
  status?: string;
  limit: number;
  offset: number;
}

function readFilters(query: URLSearchParams): Filters {
  const errors: FieldError[] = [];
  const text = (name: string) => {
    const v = query.get(name);
    return v === null || v === '' ? undefined : v;
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const v = text(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      errors.push({ field: name, message: `must be a whole number from ${min} to ${max} (got "${v}")` });
      return fallback;
    }
    return Number(v);
  };
  const f: Filters = {
    start_date: text('start_date'),
    end_date: text('end_date'),
    provider_npi: text('provider_npi'),
    status: text('status'),
    limit: integer('limit', LEDGER_DEFAULT_LIMIT, 1, LEDGER_MAX_LIMIT),
    offset: integer('offset', 0, 0, Number.MAX_SAFE_INTEGER),
  };
  for (const name of ['start_date', 'end_date'] as const) {
    const problem = f[name] === undefined ? undefined : isoDateProblem(f[name]);
    if (problem) errors.push({ field: name, message: problem });
  }
  if (f.start_date && f.end_date && f.end_date < f.start_date && errors.length === 0) errors.push({ field: 'end_date', message: 'is before start_date' });
  const npi = f.provider_npi === undefined ? undefined : npiProblem(f.provider_npi);
  if (npi) errors.push({ field: 'provider_npi', message: npi });
  if (f.status !== undefined && !(LEDGER_STATUSES as readonly string[]).includes(f.status)) {
    errors.push({ field: 'status', message: `must be one of ${LEDGER_STATUSES.join(', ')}` });
  }
  if (errors.length > 0) throw new HttpError(400, { errors });
  return f;
}

function pageUrl(req: EngineRequest, f: Filters, offset: number): string {
  const q = new URLSearchParams();
  for (const key of ['start_date', 'end_date', 'provider_npi', 'status'] as const) if (f[key] !== undefined) q.set(key, f[key]);
  q.set('limit', String(f.limit));
  q.set('offset', String(offset));
  const path = `${req.path}?${q.toString()}`;
  // Over HTTP the links are absolute; in-process there is no host, so they are paths as served.
  const host = req.headers.host;
  return host ? `${req.headers['x-forwarded-proto'] ?? 'http'}://${host}${path}` : path;
}

export function listLedger(ctx: EngineContext, req: EngineRequest): EngineResponse {
  const f = readFilters(req.query);
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (f.start_date) (where.push('e.service_date >= @start'), (params.start = f.start_date));
  if (f.end_date) (where.push('e.service_date <= @end'), (params.end = f.end_date));
  if (f.status) (where.push('e.status = @status'), (params.status = f.status));
  if (f.provider_npi) (where.push('e.id IN (SELECT encounter_id FROM encounter_providers WHERE npi = @npi)'), (params.npi = f.provider_npi));
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const count = ctx.db.prepare(`SELECT COUNT(*) FROM encounters e ${clause}`).pluck().get(params) as number;
  const rows = ctx.db
    .prepare(`SELECT e.* FROM encounters e ${clause} ORDER BY e.service_date DESC, e.submitted_at DESC, e.rowid DESC LIMIT @limit OFFSET @offset`)
    .all({ ...params, limit: f.limit, offset: f.offset }) as EncounterRow[];
  const progressions = statusProgressions(ctx.db, rows.map((r) => r.id));
  return respond(200, {
    count,
    next: f.offset + f.limit < count ? pageUrl(req, f, f.offset + f.limit) : null,
    previous: f.offset > 0 ? pageUrl(req, f, Math.max(0, f.offset - f.limit)) : null,
    results: rows.map((row) => listItem(ctx.db, row, progressions.get(row.id) ?? [])),
  });
}

function statusProgressions(db: Db, ids: string[]): Map<string, { status: string; timestamp: string }[]> {
  const map = new Map<string, { status: string; timestamp: string }[]>();
  if (ids.length === 0) return map;
  const rows = db
    .prepare(`SELECT encounter_id, status, timestamp FROM status_events WHERE encounter_id IN (${ids.map(() => '?').join(',')}) ORDER BY encounter_id, seq`)
    .all(...ids) as { encounter_id: string; status: string; timestamp: string }[];
  for (const r of rows) {
    const list = map.get(r.encounter_id) ?? [];
    list.push({ status: r.status, timestamp: r.timestamp });
    map.set(r.encounter_id, list);
  }
  return map;
}

interface PayerRow {
  payer_id: string;
  payer_name: string;
}

function payerOf(db: Db, memberId: string): { name: string; id: string } {
  const p = db.prepare('SELECT p.payer_id, p.payer_name FROM members m JOIN plans p ON p.id = m.plan_id WHERE m.member_id = ?').get(memberId) as PayerRow | undefined;
  return { name: p?.payer_name ?? 'Unknown payer', id: p?.payer_id ?? 'UNKNOWN' };
}

function cptDescription(db: Db, code: string): string {
  return (db.prepare('SELECT description FROM cpt_codes WHERE code = ?').pluck().get(code) as string | undefined) ?? `CPT ${code}`;
}

/** Amounts are null until the claim is adjudicated (SPEC.md "Ledger entry"). */
function summaryAmounts(row: EncounterRow, a: Adjudication): Record<string, number | null> {
  const done = row.completed_at !== null;
  const amount = (cents: number) => (done ? centsToAmount(cents) : null);
  const t = a.totals;
  return {
    charges: centsToAmount(t.chargeCents),
    allowed_amount: amount(t.allowedCents),
    deductible_applied: amount(t.deductibleCents),
    copay_applied: amount(t.copayCents),
    coinsurance_applied: amount(t.coinsuranceCents),
    patient_responsibility: amount(t.patientResponsibilityCents),
    benefit_amount: amount(t.benefitCents),
    payer_responsibility: amount(t.benefitCents),
  };
}

function providerOf(db: Db, npi: string, fallbackName: string | null) {
  const p = providerByNpi(db, npi);
  return { npi, name: p?.name ?? fallbackName ?? `NPI ${npi}`, role: p?.role ?? null, facility_npi: p?.facility_npi ?? null };
}

function listItem(db: Db, row: EncounterRow, progression: { status: string; timestamp: string }[]): Record<string, unknown> {
  const data = encounterData(row);
  const first = data.claim.lines[0]!;
  const provider = providerOf(db, row.provider_npi, data.claim.providerName);
  return {
    id: row.ledger_id,
    encounter_id: row.id,
    encounter_number: row.encounter_number,
    ssp_code: first.cptCode,
    ssp_name: cptDescription(db, first.cptCode),
    provider: { npi: provider.npi, name: provider.name, role: provider.role },
    payer: payerOf(db, row.member_id),
    service_date: row.service_date,
    status: row.status,
    status_progression: progression,
    financial_summary: summaryAmounts(row, data.adjudication),
  };
}

export function ledgerDetail(ctx: EngineContext, _req: EngineRequest, params: Record<string, string>): EngineResponse {
  const encounterId = params.encounter_id!;
  const row = encounterById(ctx.db, encounterId);
  if (!row) return respond(404, { error: 'encounter_not_found', encounter_id: encounterId, message: `No ledger entry for encounter ${encounterId}` });
  const { db } = ctx;
  const data = encounterData(row);
  const { claim, adjudication: a, benefits } = data;
  const t = a.totals;
  const done = row.completed_at !== null;
  const amount = (cents: number) => (done ? centsToAmount(cents) : null);
  const member = db.prepare('SELECT member_id, name, dob FROM members WHERE member_id = ?').get(row.member_id) as { member_id: string; name: string; dob: string } | undefined;
  const provider = providerOf(db, row.provider_npi, claim.providerName);
  const facility = provider.facility_npi ? providerByNpi(db, provider.facility_npi) : undefined;
  const settlement = settlementFor(db, row.id);
  const entries = db.prepare('SELECT seq, type, timestamp, reference, description, financial_impact_json FROM history_entries WHERE encounter_id = ? ORDER BY timestamp, seq').all(row.id) as {
    seq: number;
    type: string;
    timestamp: string;
    reference: string | null;
    description: string;
    financial_impact_json: string | null;
  }[];
  const providers = lineProviders(db, data);
  const settled = settlement?.status === 'COMPLETED' ? settlement.total_amount_cents : 0;
  const balanceStatus = !done ? 'PENDING_ADJUDICATION' : row.status === 'DENIED' ? 'DENIED' : row.status === 'PENDED' ? 'PENDED' : !settlement ? (t.benefitCents === 0 ? 'SETTLED' : 'OPEN') : settlement.status === 'INITIATED' ? 'IN_TRANSIT' : settlement.status === 'COMPLETED' ? 'SETTLED' : settlement.status;
  return respond(200, {
    encounter: {
      id: row.id,
      encounter_number: row.encounter_number,
      status: row.status,
      service_date: row.service_date,
      submission_date: row.submitted_at.slice(0, 10),
      patient: { member_id: row.member_id, name: member?.name ?? null, dob: member?.dob ?? null },
      provider: { npi: provider.npi, name: provider.name, role: provider.role, facility_npi: provider.facility_npi, facility_name: facility?.name ?? null },
      payer: payerOf(db, row.member_id),
    },
    entries: entries.map((e, i) => ({
      sequence: i + 1,
      type: e.type,
      timestamp: e.timestamp,
      reference: e.reference,
      description: e.description,
      financial_impact: e.financial_impact_json ? JSON.parse(e.financial_impact_json) : null,
    })),
    financial_summary: {
      service_date: row.service_date,
      submitted_charges: centsToAmount(t.chargeCents),
      allowed_amount: amount(t.allowedCents),
      adjustments: { contractual_adjustment: amount(t.chargeCents - t.allowedCents), other_adjustments: amount(0) },
      deductible: {
        plan_deductible: benefits ? centsToAmount(benefits.deductibleCents) : null,
        deductible_met_prior: benefits ? centsToAmount(Math.min(benefits.deductibleMetCents, benefits.deductibleCents)) : null,
        deductible_applied: amount(t.deductibleCents),
      },
      copay: { plan_copay: benefits ? centsToAmount(benefits.copayCents) : null, copay_applied: amount(t.copayCents) },
      coinsurance: { plan_coinsurance_percentage: benefits?.coinsurancePercent ?? null, coinsurance_applied: amount(t.coinsuranceCents) },
      patient_responsibility: {
        total: amount(t.patientResponsibilityCents),
        copay: amount(t.copayCents),
        coinsurance: amount(t.coinsuranceCents),
        deductible: amount(t.deductibleCents),
        non_covered: amount(t.nonCoveredCents),
      },
      payer_responsibility: { total: amount(t.benefitCents), benefit_amount: amount(t.benefitCents) },
      balance: { running_balance: amount(t.benefitCents - settled), status: balanceStatus },
    },
    service_lines: a.lines.map((line) => {
      const p = providers.find((x) => x.sequence === line.sequence)!;
      return {
        sequence: line.sequence,
        cpt_code: line.cptCode,
        cpt_description: cptDescription(db, line.cptCode),
        quantity: line.quantity,
        submitted_charge: centsToAmount(line.chargeCents),
        allowed_amount: amount(line.allowedCents),
        deductible_applied: amount(line.deductibleCents),
        copay_applied: amount(line.copayCents),
        coinsurance_applied: amount(line.coinsuranceCents),
        patient_responsibility: amount(line.patientResponsibilityCents),
        benefit_amount: amount(line.benefitCents),
        status: !done ? 'PENDING' : a.disposition === 'DENIED' ? 'DENIED' : a.disposition === 'PENDING_REVIEW' ? 'PENDED' : line.status,
        provider_npi: p.providerNpi,
        provider_name: p.providerName,
        provider_role: p.providerRole,
      };
    }),
    reconciliation: {
      claim_match_status: settlement?.reconciliation_status ?? 'PENDING',
      aeob_reference: row.aeob_reference,
      processor_trace_id: row.processor_trace_id,
      settlement_record_id: settlement?.id ?? null,
      external_claim_id: row.id,
    },
  });
}
