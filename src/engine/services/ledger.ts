// The encounter ledger (docs/api-routes.md "GET /v1/ledger/entries/" and ".../{encounter_id}/").
import type { LineAdjudication } from '../../domain/adjudication.js';
import type { FieldError } from '../../domain/errors.js';
import { JsonRow } from '../../domain/json-row.js';
import { isClosedStatus, isDisposition, LEDGER_STATUS_OF_DISPOSITION, LEDGER_STATUSES } from '../../domain/ledger.js';
import { centsToAmount, centsToJson } from '../../domain/money.js';
import { type ClaimLine, HCPCS_LEVEL_II } from '../../domain/fhir-claim.js';
import { isoDateProblem, npiProblem } from '../../domain/validation.js';
import { onceInSnapshot, type EngineContext } from '../context.js';
import { HttpError, queryWholeNumber, respond, servedLink, type EngineRequest, type EngineResponse } from '../exchange.js';
import type { Db } from '../store/db.js';
import { claimProviderName, encounterById, historyOf, type EncounterRow } from '../store/encounters.js';
import { ledgerCounts, pageRowids, pageRowsOf, type LedgerQuery, type PageRow, type Span } from '../store/ledger.js';
import { memberIdentity } from '../store/members.js';
import { providerByNpi } from '../store/providers.js';
import { reference, type Reference } from '../store/reference.js';
import { settlementFor, type SettlementRow } from '../store/settlements.js';
import { PageBody } from '../page-body.js';
import { encounterData, lineProviders, type EncounterData } from './encounters.js';

export const LEDGER_DEFAULT_LIMIT = 20;
export const LEDGER_MAX_LIMIT = 100;

/** The filters of a ledger query string, or the 400 naming what is wrong (exported for the plan test). */
export function readFilters(query: URLSearchParams): LedgerQuery {
  const errors: FieldError[] = [];
  const text = (name: string) => {
    const v = query.get(name);
    return v === null || v === '' ? undefined : v;
  };
  const f: LedgerQuery = {
    start_date: text('start_date'),
    end_date: text('end_date'),
    provider_npi: text('provider_npi'),
    status: text('status'),
    limit: queryWholeNumber(query, 'limit', LEDGER_DEFAULT_LIMIT, 1, LEDGER_MAX_LIMIT, errors),
    offset: queryWholeNumber(query, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, errors),
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

function pageUrl(req: EngineRequest, f: LedgerQuery, offset: number): string {
  const q = new URLSearchParams();
  for (const key of ['start_date', 'end_date', 'provider_npi', 'status'] as const) if (f[key] !== undefined) q.set(key, f[key]);
  q.set('limit', String(f.limit));
  q.set('offset', String(offset));
  return servedLink(req, `${req.path}?${q.toString()}`);
}

/** The days of `month` (YYYY-MM) inside the filters' date range: [from, to]. */
function daysOf(f: LedgerQuery, month: string): [string, string] {
  const from = f.start_date && f.start_date > `${month}-01` ? f.start_date : `${month}-01`;
  const to = f.end_date && f.end_date < `${month}-31` ? f.end_date : `${month}-31`;
  return [from, to];
}

/** Every month in the filters' range, newest first, with the days of a month the range cuts counted alone. */
function monthCounts(db: Db, f: LedgerQuery): Span[] {
  const first = (f.start_date ?? '0000-01-01').slice(0, 7);
  const last = (f.end_date ?? '9999-12-31').slice(0, 7);
  return ledgerCounts(db, f, 'month', first, last)
    .map((m) => (m.key === first || m.key === last ? { key: m.key, n: ledgerCounts(db, f, 'day', ...daysOf(f, m.key)).reduce((sum, d) => sum + d.n, 0) } : m))
    .filter((m) => m.n > 0);
}

interface Located {
  day: string;
  before: number;
}

/**
 * For each position (0-based, newest first, ascending), the service day holding that entry and how
 * many entries of the day come before it: one walk down the month counts, then the day counts of
 * the months the positions fall in.
 */
function locate(db: Db, f: LedgerQuery, months: Span[], positions: number[]): Located[] {
  const found: Located[] = [];
  let skipped = 0;
  for (const m of months) {
    if (found.length === positions.length) break;
    if (skipped + m.n <= positions[found.length]!) {
      skipped += m.n;
      continue;
    }
    for (const d of ledgerCounts(db, f, 'day', ...daysOf(f, m.key))) {
      while (found.length < positions.length && skipped + d.n > positions[found.length]!)
        found.push({ day: d.key, before: positions[found.length]! - skipped });
      skipped += d.n;
    }
  }
  if (found.length < positions.length) throw new Error(`ledger counts do not reach position ${positions.at(-1)}`);
  return found;
}

export function listLedger(ctx: EngineContext, req: EngineRequest): EngineResponse {
  const f = readFilters(req.query);
  // A listing's pages in one snapshot share the month counts: read once, not once a page.
  const months = onceInSnapshot(ctx, `ledger months ${f.start_date} ${f.end_date} ${f.provider_npi} ${f.status}`, () => monthCounts(ctx.db, f));
  const count = months.reduce((sum, m) => sum + m.n, 0);
  const rows = f.offset < count ? pageRows(ctx.db, f, months, count) : [];
  const ref = reference(ctx.db);
  // The claim's own name for a billing provider the plan does not know: the rare row, read alone, now.
  const claimNames = new Map<string, string | null>();
  for (const [id, , , npi] of rows) if (!ref.providers.has(npi)) claimNames.set(id, claimProviderName(ctx.db, id));
  const link = (offset: number | null) => (offset === null ? null : pageUrl(req, f, offset));
  const head = {
    count,
    next: link(f.offset + f.limit < count ? f.offset + f.limit : null),
    previous: link(f.offset > 0 ? Math.max(0, f.offset - f.limit) : null),
  };
  return respond(200, new LedgerPage({ head, rows, ref, claimNames }));
}

interface PageParts {
  head: { count: number; next: string | null; previous: string | null };
  rows: PageRow[];
  ref: Reference;
  /** By encounter id, for a billing provider the plan does not know. */
  claimNames: ReadonlyMap<string, string | null>;
}

/**
 * A ledger page (docs/api-resources.md "Ledger entry"), keys in the order the service gives them; the stored
 * status progression is JSON already. Amounts are null until adjudicated. Written as JSON text for
 * the transports, built as values for an in-process caller (page-body.ts).
 */
class LedgerPage extends PageBody<PageParts> {
  protected write({ head, rows, ref, claimNames }: PageParts): string {
    const q = JSON.stringify;
    return (
      `{"count":${head.count},"next":${q(head.next)},"previous":${q(head.previous)},` +
      `"results":[${rows.map((row) => listItemJson(row, ref, claimNames)).join(',')}]}`
    );
  }

  protected build({ head, rows, ref, claimNames }: PageParts): unknown {
    return { ...head, results: rows.map((row) => listItem(row, ref, claimNames)) };
  }

  protected override rowTexts({ head, rows, ref, claimNames }: PageParts): unknown {
    return { ...head, results: rows.map((row) => new JsonRow(row[0], listItemJson(row, ref, claimNames))) };
  }
}

/**
 * A page's rows: the days it spans come from the counts; its rowids from the narrow listing index
 * over those days only (never the wide rows it skips); then each row by its rowid.
 */
function pageRows(db: Db, f: LedgerQuery, months: Span[], count: number): PageRow[] {
  const [first, last] = locate(db, f, months, [f.offset, Math.min(f.offset + f.limit, count) - 1]) as [Located, Located];
  return pageRowsOf(db, pageRowids(db, f, last.day, first.day, first.before));
}

/**
 * The member's payer as the detail names it (store/reference.ts keeps it per connection), with its
 * profile (tpa's addition, docs/api.md): tax id, address and technical contact, null when not configured.
 */
function payerOf(ref: Reference, memberId: string): Record<string, unknown> {
  const p = ref.payers.get(memberId);
  const profile = p ? ref.payerProfiles.get(p.id) : undefined;
  return {
    name: p?.name ?? 'Unknown payer',
    id: p?.id ?? 'UNKNOWN',
    tax_id: profile?.tax_id ?? null,
    address: profile?.address ?? null,
    technical_contact: profile?.technical_contact ?? null,
  };
}

function providerOf(db: Db, npi: string, fallbackName: string | null) {
  const p = providerByNpi(db, npi);
  return { npi, name: p?.name ?? fallbackName ?? `NPI ${npi}`, role: p?.role ?? null, facility_npi: p?.facility_npi ?? null };
}

/**
 * Whether the encounter has an adjudication: not before its completion, and never when it was
 * pended or denied (docs/api.md: an entry that has no adjudication yet has null amounts).
 */
function adjudicated(completedAt: string | null, disposition: string): boolean {
  return completedAt !== null && isDisposition(disposition) && LEDGER_STATUS_OF_DISPOSITION[disposition] === 'ADJUDICATED';
}

/** The name of a list item's code the reference does not know: a HCPCS Level II code's, or none (revenue codes only). */
function listCodeName(code: string): string {
  if (code === '') return 'Revenue codes only, no procedure code';
  return HCPCS_LEVEL_II.test(code) ? `HCPCS ${code}` : `CPT ${code}`;
}

/** A ledger list item as JSON text. */
function listItemJson(row: PageRow, ref: Reference, claimNames: PageParts['claimNames']): string {
  const [id, ledgerId, encounterNumber, npi, memberId, serviceDate, status, completedAt, disposition, cpt, ...amounts] = row;
  const [chargeCents, allowedCents, deductibleCents, copayCents, coinsuranceCents, patientCents, benefitCents, progressionJson, supersededBy] = amounts;
  const q = JSON.stringify;
  const has = adjudicated(completedAt, disposition);
  const amount = (cents: number) => (has ? centsToJson(cents) : 'null');
  const provider = ref.providers.get(npi);
  const payer = ref.payers.get(memberId);
  return (
    `{"id":${q(ledgerId)},"encounter_id":${q(id)},"encounter_number":${q(encounterNumber)},` +
    `"ssp_code":${q(cpt)},"ssp_name":${ref.cptDescriptions.get(cpt)?.json ?? q(listCodeName(cpt))},` +
    `"provider":{"npi":${q(npi)},"name":${provider?.nameJson ?? q(claimNames.get(id) ?? `NPI ${npi}`)},"role":${provider?.roleJson ?? 'null'}},` +
    `"payer":{"name":${payer?.nameJson ?? '"Unknown payer"'},"id":${payer?.idJson ?? '"UNKNOWN"'}},` +
    `"service_date":${q(serviceDate)},"status":${q(status)},"status_progression":${progressionJson},` +
    `"financial_summary":{"charges":${centsToJson(chargeCents)},"allowed_amount":${amount(allowedCents)},` +
    `"deductible_applied":${amount(deductibleCents)},"copay_applied":${amount(copayCents)},"coinsurance_applied":${amount(coinsuranceCents)},` +
    `"patient_responsibility":${amount(patientCents)},"benefit_amount":${amount(benefitCents)},"payer_responsibility":${amount(benefitCents)}}` +
    // tpa's, on a pended entry sent again (docs/money-funding.md "The finance desk's report").
    `${supersededBy ? `,"superseded_by":${q(supersededBy)}` : ''}}`
  );
}

/** A ledger list item as values: what JSON.parse of listItemJson gives, key for key. */
function listItem(row: PageRow, ref: Reference, claimNames: PageParts['claimNames']): Record<string, unknown> {
  const [id, ledgerId, encounterNumber, npi, memberId, serviceDate, status, completedAt, disposition, cpt, ...amounts] = row;
  const [chargeCents, allowedCents, deductibleCents, copayCents, coinsuranceCents, patientCents, benefitCents, progressionJson, supersededBy] = amounts;
  const has = adjudicated(completedAt, disposition);
  const amount = (cents: number) => (has ? centsToAmount(cents) : null);
  const provider = ref.providers.get(npi);
  const payer = ref.payers.get(memberId);
  return {
    id: ledgerId,
    encounter_id: id,
    encounter_number: encounterNumber,
    ssp_code: cpt,
    ssp_name: ref.cptDescriptions.get(cpt)?.description ?? listCodeName(cpt),
    provider: { npi, name: provider?.name ?? claimNames.get(id) ?? `NPI ${npi}`, role: provider?.role ?? null },
    payer: { name: payer?.name ?? 'Unknown payer', id: payer?.id ?? 'UNKNOWN' },
    service_date: serviceDate,
    status,
    status_progression: JSON.parse(progressionJson),
    financial_summary: {
      charges: centsToAmount(chargeCents),
      allowed_amount: amount(allowedCents),
      deductible_applied: amount(deductibleCents),
      copay_applied: amount(copayCents),
      coinsurance_applied: amount(coinsuranceCents),
      patient_responsibility: amount(patientCents),
      benefit_amount: amount(benefitCents),
      payer_responsibility: amount(benefitCents),
    },
    ...(supersededBy ? { superseded_by: supersededBy } : {}),
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
  const hasAdjudication = adjudicated(row.completed_at, row.disposition);
  const amount = (cents: number) => (hasAdjudication ? centsToAmount(cents) : null);
  const ref = reference(db);
  const member = memberIdentity(db, row.member_id);
  const provider = providerOf(db, row.provider_npi, claim.providerName);
  const facility = provider.facility_npi ? providerByNpi(db, provider.facility_npi) : undefined;
  const settlement = settlementFor(db, row.id);
  const entries = historyOf(db, row.id);
  // Read from the entries already read: the SUPERSEDED and SUPERSEDES entries name the other encounter.
  const linked = {
    supersededBy: entries.find((e) => e.type === 'SUPERSEDED')?.reference ?? null,
    supersedes: entries.find((e) => e.type === 'SUPERSEDES')?.reference ?? null,
    // A corrected claim and the claim it replaced (REPLACES and REPLACED entries).
    replaces: entries.find((e) => e.type === 'REPLACES')?.reference ?? null,
    replacedBy: entries.find((e) => e.type === 'REPLACED')?.reference ?? null,
  };
  const providers = lineProviders(db, data);
  // Money on its way is not settled yet; a FAILED or REFUNDED transfer settles nothing.
  const settled = settlement?.status === 'COMPLETED' ? settlement.total_amount_cents : 0;
  return respond(200, {
    encounter: {
      id: row.id,
      encounter_number: row.encounter_number,
      status: row.status,
      service_date: row.service_date,
      submission_date: row.submitted_at.slice(0, 10),
      // A dependent's subscriber is named: the claim was paid under the dependent's own member id.
      patient: {
        member_id: row.member_id,
        name: member?.name ?? null,
        dob: member?.dob ?? null,
        ...(member?.subscriber_id ? { subscriber_id: member.subscriber_id } : {}),
      },
      provider: { npi: provider.npi, name: provider.name, role: provider.role, facility_npi: provider.facility_npi, facility_name: facility?.name ?? null },
      payer: payerOf(ref, row.member_id),
      // tpa's addition (docs/api.md): the claim's own id from its sender (an 837's CLM01).
      patient_control_number: claim.patientControlNumber ?? null,
      // tpa's (docs/api.md): an institutional claim's type of bill as sent (CLM05-1, CLM05-3), for the 835's CLP08/CLP09.
      ...(claim.facilityTypeCode ? { facility_type_code: claim.facilityTypeCode } : {}),
      ...(claim.claimFrequencyCode ? { claim_frequency_code: claim.claimFrequencyCode } : {}),
      // tpa's: the claim came from test data (docs/api.md); absent for production data.
      ...(claim.testData ? { test_data: true } : {}),
      // tpa's (docs/api.md): the claim's type and its diagnoses in the order sent, for the member's
      // explanation of benefits (its CARIN profile and diagnosis list).
      claim_type: claim.type,
      diagnosis_codes: claim.diagnosisCodes ?? [],
      // tpa's: a pended claim sent again and the claim that sent it (docs/money-funding.md "The finance desk's report").
      ...(linked.supersededBy ? { superseded_by: linked.supersededBy } : {}),
      ...(linked.supersedes ? { supersedes: linked.supersedes } : {}),
      // tpa's: a corrected claim (CLM05-3 7) and the claim it replaced (docs/money-funding.md "Corrected and void claims").
      ...(linked.replaces ? { replaces: linked.replaces } : {}),
      ...(linked.replacedBy ? { replaced_by: linked.replacedBy } : {}),
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
        plan_deductible: centsToAmount(benefits.deductibleCents),
        deductible_met_prior: centsToAmount(Math.min(benefits.deductibleMetCents, benefits.deductibleCents)),
        deductible_applied: amount(t.deductibleCents),
      },
      copay: { plan_copay: centsToAmount(benefits.copayCents), copay_applied: amount(t.copayCents) },
      coinsurance: { plan_coinsurance_percentage: benefits.coinsurancePercent, coinsurance_applied: amount(t.coinsuranceCents) },
      patient_responsibility: {
        total: amount(t.patientResponsibilityCents),
        copay: amount(t.copayCents),
        coinsurance: amount(t.coinsuranceCents),
        deductible: amount(t.deductibleCents),
        non_covered: amount(t.nonCoveredCents),
      },
      payer_responsibility: { total: amount(t.benefitCents), benefit_amount: amount(t.benefitCents) },
      // A claim closed by a corrected claim owes nothing (its replacement owes what is owed): 0.00,
      // whatever it was before (denied or never adjudicated too, whose amounts are otherwise null).
      balance: {
        running_balance: isClosedStatus(row.status) ? centsToAmount(0) : amount(t.benefitCents - settled),
        status: balanceStatus(row, settlement, t.benefitCents),
      },
    },
    service_lines: a.lines.map((line) => serviceLine(ref, data, line, providers.find((x) => x.sequence === line.sequence)!, amount)),
    // As the claim response carries them: none before adjudication or for a pended claim, the AEOB
    // only for a denied one; once funded, the trace is the current transfer's.
    reconciliation: {
      claim_match_status: settlement?.reconciliation_status ?? 'PENDING',
      aeob_reference: done && row.disposition !== 'PENDING_REVIEW' ? row.aeob_reference : null,
      processor_trace_id: hasAdjudication ? (settlement?.processor_transfer_id ?? row.processor_trace_id) : null,
      settlement_record_id: settlement?.id ?? null,
      external_claim_id: row.id,
    },
  });
}

/** Where the benefit stands: FAILED and REFUNDED (the latest transfer's) mean it is owed again and can be funded anew. */
function balanceStatus(row: EncounterRow, settlement: SettlementRow | undefined, benefitCents: number): string {
  // Closed by a corrected claim: nothing is owed on it, whatever its adjudication said (or before any).
  if (isClosedStatus(row.status)) return row.status;
  if (row.completed_at === null) return 'PENDING_ADJUDICATION';
  if (row.status === 'DENIED' || row.status === 'PENDED') return row.status;
  if (!settlement) return benefitCents === 0 ? 'SETTLED' : 'OPEN';
  if (settlement.status === 'INITIATED') return 'IN_TRANSIT';
  return settlement.status === 'COMPLETED' ? 'SETTLED' : settlement.status;
}

/** A service line of the detail, amounts null until adjudicated (`amount`). */
function serviceLine(
  ref: Reference,
  { row, claim, adjudication: a }: EncounterData,
  line: LineAdjudication,
  payee: ReturnType<typeof lineProviders>[number],
  amount: (cents: number) => string | number | null,
): Record<string, unknown> {
  const done = row.completed_at !== null;
  const sent = claim.lines.find((l) => l.sequence === line.sequence);
  return {
    sequence: line.sequence,
    // A revenue-code-only line has no procedure code (null); a HCPCS Level II code is given as sent.
    cpt_code: line.cptCode === '' ? null : line.cptCode,
    cpt_description: lineDescription(ref, line.cptCode, sent),
    // The line as sent: its modifiers and the sender's line control number (null when it sent none).
    modifiers: sent?.modifiers ?? [],
    line_control_number: sent?.lineControlNumber ?? null,
    // The quantity as sent (units, to three decimals, or minutes: unit_of_measure MJ).
    quantity: line.quantity,
    ...(sent?.unitOfMeasure === 'MJ' ? { unit_of_measure: 'MJ' } : {}),
    ...(sent?.revenueCode ? { revenue_code: sent.revenueCode } : {}),
    // The line's own date: a claim's lines may be on several days (docs/api.md, tpa's addition).
    service_date: line.serviceDate,
    submitted_charge: centsToAmount(line.chargeCents),
    allowed_amount: amount(line.allowedCents),
    deductible_applied: amount(line.deductibleCents),
    copay_applied: amount(line.copayCents),
    coinsurance_applied: amount(line.coinsuranceCents),
    patient_responsibility: amount(line.patientResponsibilityCents),
    benefit_amount: amount(line.benefitCents),
    // Each line's own outcome (DENIED, NOT_COVERED, BUNDLED) with its reason code; lines stored
    // before line-level outcomes existed take the claim's.
    status: !done ? 'PENDING' : a.disposition === 'PENDING_REVIEW' ? 'PENDED' : a.disposition === 'DENIED' && !line.reasonCode ? 'DENIED' : line.status,
    denial_code: done && a.disposition !== 'PENDING_REVIEW' ? (line.reasonCode ?? (a.disposition === 'DENIED' ? a.denialCode : null)) : null,
    // The remark codes (RARC) of a line denied because tpa does not price its code (the 835's LQ*HE).
    ...(done && line.remarkCodes ? { remark_codes: line.remarkCodes } : {}),
    provider_npi: payee.providerNpi,
    provider_name: payee.providerName,
    provider_role: payee.providerRole,
    // The anesthesia paid on another claim and taken off this line's price (docs/money-rules.md
    // "Anesthesia included"): the 835 adjusts it as included in another payment, not as the contract's.
    ...(done && line.status === 'ALLOWED' && (line.anesthesiaDeductedCents ?? 0) > 0
      ? { anesthesia_deducted: centsToAmount(line.anesthesiaDeductedCents!) }
      : {}),
  };
}

/** A line's description: the CPT code's, else what the line is (a HCPCS Level II code, a revenue code alone). */
function lineDescription(ref: Reference, code: string, sent: ClaimLine | undefined): string {
  const known = ref.cptDescriptions.get(code)?.description;
  if (known) return known;
  if (sent?.unpriced === 'REVENUE_CODE_ONLY') return `Revenue code ${sent.revenueCode ?? ''}`.trim();
  if (sent?.unpriced === 'HCPCS_LEVEL_II') return `HCPCS ${code}`;
  return `CPT ${code}`;
}
