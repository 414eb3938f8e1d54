// The contract builder (docs/api-routes.md "The contract builder" endpoints): the SSP catalog, a rate schedule per
// builder instance, its preview, and finalization into contract rate records that lookups and
// adjudication then use (docs/local.md "Rate schedules").
import { shiftDate } from '../../domain/adjudication.js';
import type { FieldError } from '../../domain/errors.js';
import { CATALOG_DEFAULT_PAGE_SIZE } from '../../domain/page-size.js';
import { centsToAmount, checkRateRatio, formatCentsGrouped, MAX_AMOUNT_CENTS } from '../../domain/money.js';
import {
  allowedOverMax,
  isScheduleBundleType,
  isScheduleRateType,
  rateOfNoTypeProblem,
  SCHEDULE_BUNDLE_TYPES,
  SCHEDULE_RATE_TYPE_NAMES,
  SCHEDULE_SETTING_CHOICES,
  scheduleRate,
  type ScheduleRateType,
} from '../../domain/schedule-rates.js';
import { characterCount, isoDateProblem } from '../../domain/validation.js';
import { nounFor } from '../../domain/words.js';
import { isoSeconds } from '../clock.js';
import type { EngineContext } from '../context.js';
import { HttpError, jsonBody, queryWholeNumber, respond, servedLink, type EngineRequest, type EngineResponse } from '../exchange.js';
import { newId } from '../ids.js';
import {
  addCatalogItems,
  appendScheduleItem,
  builderInstance,
  catalogEntryById,
  catalogMatches,
  catalogVersionExists,
  countCatalogMatches,
  dearestCatalogEntry,
  deleteScheduleItem,
  insertContractRateRecord,
  insertSchedule,
  markScheduleFinalized,
  scheduleIdOfInstance,
  scheduleItemId,
  scheduleItems as items,
  scheduleOfInstance,
  updateScheduleItem,
  updateScheduleSettings,
  type ItemRow,
  type ScheduleRow,
  type SspRow,
} from '../store/builder.js';
import { CURRENT_CATALOG_VERSION } from '../store/catalog-seed.js';
import {
  codesRatedFrom,
  codesRequiringPreauthorization,
  contractById,
  deleteRatesStartingFrom,
  endRatesBefore,
  insertOpenRate,
  preauthorizationsOf,
  setBuilderSettings,
} from '../store/contracts.js';
import type { Db } from '../store/db.js';
import { appendAudit } from './audit.js';

export const CATALOG_MAX_PAGE_SIZE = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** docs/local.md "Rate schedules": init defaults. */
const SCHEDULE_DEFAULTS = {
  ssp_reference_type: 'INDIVIDUAL',
  scope_of_care: 'FACILITY_AND_PROFESSIONAL',
  service_logic: 'ELECTIVE_ONLY',
  elective_advance_hours: 72,
  non_elective_fallback: 'PERCENT_MEDICARE',
  non_elective_fallback_percent: '1.25',
  default_rate_type: 'PERCENT_MEDICARE',
  default_rate_value: '1.5',
};
type ScheduleSettings = typeof SCHEDULE_DEFAULTS;

const sspBody = (r: SspRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  level: r.level,
  medicare_rate: centsToAmount(r.medicare_rate_cents),
  base_weight: Number(r.base_weight),
  primary_cpt_code: r.primary_cpt_code,
  requires_anesthesia: r.requires_anesthesia === 1,
});

function fail(status: number, error: string, extra: Record<string, unknown> = {}): never {
  throw new HttpError(status, { error, ...extra });
}

function invalid(errors: FieldError[]): void {
  if (errors.length > 0) throw new HttpError(400, { error: 'validation_error', message: errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors });
}

// ---- catalog ----

export function listCatalog(ctx: EngineContext, req: EngineRequest): EngineResponse {
  const errors: FieldError[] = [];
  const page = queryWholeNumber(req.query, 'page', 1, 1, Number.MAX_SAFE_INTEGER, errors);
  const pageSize = queryWholeNumber(req.query, 'page_size', CATALOG_DEFAULT_PAGE_SIZE, 1, CATALOG_MAX_PAGE_SIZE, errors);
  const version = req.query.get('version') || CURRENT_CATALOG_VERSION;
  if (!catalogVersionExists(ctx.db, version)) errors.push({ field: 'version', message: `unknown catalog version "${version}"` });
  if (errors.length > 0) throw new HttpError(400, { errors });
  const search = (req.query.get('search') ?? '').trim();
  const count = countCatalogMatches(ctx.db, version, search);
  const rows = catalogMatches(ctx.db, version, search, pageSize, (page - 1) * pageSize);
  const link = (p: number) => {
    const q = new URLSearchParams();
    if (search) q.set('search', search);
    if (req.query.get('version')) q.set('version', version);
    q.set('page', String(p));
    q.set('page_size', String(pageSize));
    return servedLink(req, `${req.path}?${q.toString()}`);
  };
  return respond(200, {
    count,
    next: page * pageSize < count ? link(page + 1) : null,
    previous: page > 1 ? link(Math.min(page - 1, Math.max(1, Math.ceil(count / pageSize)))) : null,
    results: rows.map(sspBody),
  });
}

// ---- schedule ----

function instance(db: Db, id: string): { id: string; contract_id: string } {
  return builderInstance(db, id) ?? fail(404, `Builder instance ${id} not found`, { instance_id: id });
}

function schedule(db: Db, instanceId: string): ScheduleRow {
  instance(db, instanceId);
  return (
    scheduleOfInstance(db, instanceId) ??
    fail(404, `Builder instance ${instanceId} has no rate schedule yet; initialize it first (POST .../rate-schedule/init/)`, { instance_id: instanceId })
  );
}

function editable(db: Db, instanceId: string): ScheduleRow {
  const s = schedule(db, instanceId);
  if (s.finalized_at !== null)
    fail(409, `The rate schedule of ${instanceId} was finalized on ${s.finalized_at} and can no longer be changed`, { instance_id: instanceId });
  return s;
}

/** Schedule settings from a body: every field optional, each checked; unknown fields refused. */
function readSettings(body: Record<string, unknown>): Partial<ScheduleSettings> {
  const errors: FieldError[] = [];
  const out: Partial<ScheduleSettings> = {};
  for (const key of Object.keys(body)) {
    if (!(key in SCHEDULE_DEFAULTS)) errors.push({ field: key, message: 'is not a rate schedule setting' });
  }
  for (const [key, choices] of Object.entries(SCHEDULE_SETTING_CHOICES) as [keyof typeof SCHEDULE_SETTING_CHOICES, readonly string[]][]) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !choices.includes(v)) errors.push({ field: key, message: `must be one of ${choices.join(', ')}` });
    else out[key] = v;
  }
  const hours = body.elective_advance_hours;
  if (hours !== undefined) {
    if (!Number.isInteger(hours) || (hours as number) < 0 || (hours as number) > 8760)
      errors.push({ field: 'elective_advance_hours', message: 'must be a whole number of hours from 0 to 8760' });
    else out.elective_advance_hours = hours as number;
  }
  const fallback = body.non_elective_fallback_percent;
  if (fallback !== undefined) {
    const checked = checkRateRatio(fallback);
    if ('problem' in checked) errors.push({ field: 'non_elective_fallback_percent', message: checked.problem });
    else out.non_elective_fallback_percent = checked.text;
  }
  // The default rate is money or a ratio by the default rate type, which may come in the same body
  // or stay as it is: checked by checkRate once the settings are merged.
  const rate = body.default_rate_value;
  if (rate !== undefined) {
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) errors.push({ field: 'default_rate_value', message: 'must be a number ≥ 0' });
    else out.default_rate_value = String(rate);
  }
  invalid(errors);
  return out;
}

/**
 * A rate as its type reads it (schedule-rates.ts; docs/money-rules.md "Bounds"): the text to store.
 * The type was checked before (a setting, an item's field) or stored so: an unknown one is an error.
 */
function checkRate(rateType: string, value: unknown, field: string, errors: FieldError[]): string | undefined {
  const checked = scheduleRate(rateType).check(value);
  if ('problem' in checked) return void errors.push({ field, message: checked.problem });
  return checked.text;
}

/** The contract rate an item makes must be money too: the ratio times the Medicare rate, at most MAX_AMOUNT_CENTS. */
function checkAllowed(rateType: string, rateValue: string, medicareCents: number, field: string, what: string, errors: FieldError[]): void {
  const allowed = allowedOverMax(scheduleRate(rateType), rateValue, medicareCents);
  if (allowed !== undefined)
    errors.push({
      field,
      message: `${rateValue} × the Medicare rate ${formatCentsGrouped(medicareCents)} of ${what} is ${formatCentsGrouped(allowed)}, more than ${formatCentsGrouped(MAX_AMOUNT_CENTS)}, the most one contract rate may be`,
    });
}

export function initSchedule(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const id = params.instance_id!;
  const body = req.body && req.body.trim() !== '' ? jsonBody(req) : {};
  return ctx.db
    .transaction(() => {
      instance(ctx.db, id);
      const existing = scheduleIdOfInstance(ctx.db, id);
      if (existing) return respond(200, { rate_schedule_id: existing, message: `Rate schedule already initialized for ${id}` });
      const settings = { ...SCHEDULE_DEFAULTS, ...readSettings(body) };
      const errors: FieldError[] = [];
      settings.default_rate_value = checkRate(settings.default_rate_type, settings.default_rate_value, 'default_rate_value', errors) ?? '';
      invalid(errors);
      const scheduleId = newId('rs_');
      insertSchedule(ctx.db, { ...settings, id: scheduleId, instance: id, now: isoSeconds(ctx.clock.now()) });
      return respond(200, { rate_schedule_id: scheduleId, message: `Rate schedule initialized for ${id}` });
    })
    .immediate();
}

const itemBody = (i: ItemRow) => ({
  id: i.id,
  ssp_id: i.ssp_id,
  ssp_code: i.code,
  ssp_name: i.name,
  rate_type: i.rate_type,
  rate_value: Number(i.rate_value),
  is_bundle_eligible: i.is_bundle_eligible === 1,
  bundle_type: i.bundle_type,
  notes: i.notes,
  sort_order: i.sort_order,
});

function settingsBody(s: ScheduleRow) {
  return {
    ssp_reference_type: s.ssp_reference_type,
    scope_of_care: s.scope_of_care,
    service_logic: s.service_logic,
    elective_advance_hours: s.elective_advance_hours,
    non_elective_fallback: s.non_elective_fallback,
    non_elective_fallback_percent: Number(s.non_elective_fallback_percent),
    default_rate_type: s.default_rate_type,
    default_rate_value: Number(s.default_rate_value),
  };
}

export function getSchedule(ctx: EngineContext, _req: EngineRequest, params: Record<string, string>): EngineResponse {
  const s = schedule(ctx.db, params.instance_id!);
  return respond(200, {
    rate_schedule: {
      id: s.id,
      ...settingsBody(s),
      status: s.finalized_at ? 'FINALIZED' : 'DRAFT',
      finalized_at: s.finalized_at,
      items: items(ctx.db, s.id).map(itemBody),
    },
  });
}

export function configureSchedule(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const body = jsonBody(req);
  return ctx.db
    .transaction(() => {
      const s = editable(ctx.db, params.instance_id!);
      const changes = readSettings(body);
      const keys = Object.keys(changes) as (keyof ScheduleSettings)[];
      if (keys.length === 0) fail(400, 'Nothing to change: send one or more rate schedule settings');
      const merged = { ...s, ...changes };
      const errors: FieldError[] = [];
      const rate = checkRate(merged.default_rate_type, merged.default_rate_value, 'default_rate_value', errors);
      invalid(errors);
      if (changes.default_rate_value !== undefined) changes.default_rate_value = rate!;
      updateScheduleSettings(ctx.db, s.id, changes);
      return respond(200, { message: `Updated ${keys.join(', ')}` });
    })
    .immediate();
}

function catalogEntry(db: Db, sspId: string): SspRow {
  const row = catalogEntryById(db, sspId);
  if (!row) fail(404, `SSP ${sspId} is not in the catalog`, { ssp_id: sspId });
  if (row.active !== 1 || row.level !== 'ENCOUNTER')
    fail(400, `SSP ${row.code} (${sspId}) is ${row.active !== 1 ? 'inactive' : `${row.level}-level`}; only active ENCOUNTER-level SSPs can be scheduled`, {
      ssp_id: sspId,
    });
  return row;
}

function readSspId(body: Record<string, unknown>): string {
  const id = body.ssp_id;
  if (typeof id !== 'string' || !UUID.test(id)) fail(400, `ssp_id must be a valid UUID (got ${JSON.stringify(id ?? null)})`);
  return id.toLowerCase();
}

export function addSsp(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const body = jsonBody(req);
  const sspId = readSspId(body);
  const errors: FieldError[] = [];
  const rateType = body.rate_type;
  const knownType = isScheduleRateType(rateType);
  if (!knownType) errors.push({ field: 'rate_type', message: `is required: ${SCHEDULE_RATE_TYPE_NAMES.join(' or ')}` });
  let rateValue: string | undefined;
  if (body.rate_value === undefined) errors.push({ field: 'rate_value', message: 'is required: a number ≥ 0' });
  else if (typeof body.rate_value !== 'number') errors.push({ field: 'rate_value', message: 'must be a number ≥ 0' });
  // A rate is read by its own type's rule; with no type known, it is refused when no type takes it.
  else if (knownType) rateValue = checkRate(rateType, body.rate_value, 'rate_value', errors);
  else {
    const problem = rateOfNoTypeProblem(body.rate_value);
    if (problem !== undefined) errors.push({ field: 'rate_value', message: problem });
  }
  const eligible = body.is_bundle_eligible ?? false;
  if (typeof eligible !== 'boolean') errors.push({ field: 'is_bundle_eligible', message: 'must be true or false' });
  const bundleType = body.bundle_type ?? null;
  if (bundleType !== null && !isScheduleBundleType(bundleType))
    errors.push({ field: 'bundle_type', message: `must be ${SCHEDULE_BUNDLE_TYPES.join(' or ')}, or null` });
  if (eligible === true && bundleType === null)
    errors.push({ field: 'bundle_type', message: `is required when is_bundle_eligible is true: ${SCHEDULE_BUNDLE_TYPES.join(' or ')}` });
  const notes = body.notes ?? '';
  if (typeof notes !== 'string') errors.push({ field: 'notes', message: 'must be text of at most 500 characters' });
  else if (characterCount(notes) > 500) errors.push({ field: 'notes', message: `must be text of at most 500 characters (got ${characterCount(notes)})` });
  invalid(errors);
  return ctx.db
    .transaction(() => {
      const s = editable(ctx.db, params.instance_id!);
      const ssp = catalogEntry(ctx.db, sspId);
      const tooMuch: FieldError[] = [];
      checkAllowed(rateType as ScheduleRateType, rateValue!, ssp.medicare_rate_cents, 'rate_value', ssp.code, tooMuch);
      invalid(tooMuch);
      const existing = scheduleItemId(ctx.db, s.id, sspId);
      const values = { rateType: rateType as ScheduleRateType, rateValue: rateValue!, eligible: eligible ? 1 : 0, bundleType, notes: notes as string };
      if (existing) {
        updateScheduleItem(ctx.db, existing, values);
        return respond(200, { rate_schedule_item_id: existing, ssp_id: sspId, message: `Updated ${ssp.code} in the rate schedule` });
      }
      const id = newId('rsi_');
      appendScheduleItem(ctx.db, { ...values, id, schedule: s.id, ssp: sspId });
      return respond(200, { rate_schedule_item_id: id, ssp_id: sspId, message: `Added ${ssp.code} to the rate schedule` });
    })
    .immediate();
}

export function removeSsp(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const sspId = readSspId(jsonBody(req));
  return ctx.db
    .transaction(() => {
      const s = editable(ctx.db, params.instance_id!);
      if (!deleteScheduleItem(ctx.db, s.id, sspId)) fail(404, `SSP ${sspId} is not in the rate schedule`, { ssp_id: sspId });
      return respond(200, { message: `Removed SSP ${sspId} from the rate schedule` });
    })
    .immediate();
}

export function loadCatalog(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const body = req.body && req.body.trim() !== '' ? jsonBody(req) : {};
  const version = body.version ?? CURRENT_CATALOG_VERSION;
  if (typeof version !== 'string' || !/^v\d+\.\d+$/.test(version))
    throw new HttpError(400, { error: 'validation_error', errors: [{ field: 'version', message: 'must be a catalog version such as v1.0' }] });
  return ctx.db
    .transaction(() => {
      const s = editable(ctx.db, params.instance_id!);
      if (!catalogVersionExists(ctx.db, version)) fail(404, `Catalog version ${version} not found`, { version });
      // Each SSP loaded is rated at the default: the dearest of them must still make a contract rate that is money.
      const dearest = dearestCatalogEntry(ctx.db, version);
      const tooMuch: FieldError[] = [];
      if (dearest) checkAllowed(s.default_rate_type, s.default_rate_value, dearest.medicare_rate_cents, 'default_rate_value', dearest.code, tooMuch);
      invalid(tooMuch);
      // Adds what the schedule lacks; SSPs already scheduled keep the rates someone chose for them.
      const added = addCatalogItems(ctx.db, s.id, version, s.default_rate_type, s.default_rate_value);
      return respond(200, { message: `Loaded ${added} ${nounFor(added, 'SSP')} from catalog ${version}`, count: added });
    })
    .immediate();
}

/** The allowed amount of an item, as its rate type prices it (schedule-rates.ts). */
function itemAllowedCents(rateType: ScheduleRateType, rateValue: string, medicareCents: number): number {
  return scheduleRate(rateType).allowedCents(rateValue, medicareCents);
}

export function previewSchedule(ctx: EngineContext, _req: EngineRequest, params: Record<string, string>): EngineResponse {
  const s = schedule(ctx.db, params.instance_id!);
  return respond(200, {
    items: items(ctx.db, s.id).map((i) => ({
      ssp_code: i.code,
      ssp_name: i.name,
      rate_type: i.rate_type,
      rate_value: Number(i.rate_value),
      calculated_allowed_amount: centsToAmount(itemAllowedCents(i.rate_type, i.rate_value, i.medicare_rate_cents)),
      medicare_rate: centsToAmount(i.medicare_rate_cents),
      bundle_type: i.bundle_type,
    })),
  });
}

/**
 * Finalize (docs/local.md "Rate schedules"): each item becomes a contract rate record on the builder's direct
 * contract (by the SSP's primary CPT code), and the schedule becomes the contract's whole rate set
 * from its effective date E on (docs/money-rules.md "Rates in force on each date"): each code is
 * rated at the item's allowed amount from E, open; the rates in force at E close the day before
 * (those the schedule does not rate too), rates that would only start on or after E are replaced,
 * and earlier rates stay for earlier dates. E is the `effective_date` asked for, else the later of
 * the contract's effective date and tomorrow on the engine clock; today or before only with
 * `allow_retroactive: true`, and never outside the contract's own dates. The schedule's elective and
 * fallback settings are copied to the contract.
 */
export function finalizeSchedule(ctx: EngineContext, req: EngineRequest, params: Record<string, string>): EngineResponse {
  const body = req.body && req.body.trim() !== '' ? jsonBody(req) : {};
  const errors: FieldError[] = [];
  if (body.effective_date !== undefined) {
    const problem = isoDateProblem(body.effective_date);
    if (problem) errors.push({ field: 'effective_date', message: problem });
  }
  for (const flag of ['allow_retroactive', 'dry_run'] as const) {
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean') errors.push({ field: flag, message: 'must be true or false' });
  }
  invalid(errors);
  return ctx.db
    .transaction(() => {
      const inst = instance(ctx.db, params.instance_id!);
      const s = editable(ctx.db, inst.id);
      const list = items(ctx.db, s.id);
      if (list.length === 0) fail(400, 'The rate schedule has no items: add SSPs (or load the catalog) before finalizing');
      // Items stored before rates were bounded: none becomes a live contract rate that is not money.
      const tooMuch: FieldError[] = [];
      list.forEach((i, n) => checkAllowed(i.rate_type, i.rate_value, i.medicare_rate_cents, `items[${n}].rate_value`, i.code, tooMuch));
      invalid(tooMuch);
      const now = isoSeconds(ctx.clock.now());
      const today = now.slice(0, 10);
      const contract = contractById(ctx.db, inst.contract_id)!;
      // One rate is in force on a date: a schedule finalized today takes effect tomorrow by default,
      // so today's services, claimed or not, keep today's rate (docs/money-rules.md "Rates in force on each date").
      const tomorrow = shiftDate(today, 1);
      const effective = (body.effective_date as string | undefined) ?? [contract.effective_date, tomorrow].sort()[1]!;
      if (effective < contract.effective_date || (contract.termination_date !== null && effective > contract.termination_date)) {
        invalid([
          {
            field: 'effective_date',
            message: `${effective}${body.effective_date === undefined ? ' (the default: tomorrow)' : ''} is outside the contract's own dates (${contract.effective_date} to ${contract.termination_date ?? 'open-ended'})`,
          },
        ]);
      }
      // Today's services may already be rendered and claimed: a rate from today would price one day's
      // services at two rates, so today is retroactive too.
      if (effective <= today && body.allow_retroactive !== true) {
        invalid([
          {
            field: 'effective_date',
            message: `${effective} is ${effective === today ? 'today' : `before today (${today})`}: rates would change for services already rendered, which may be claimed at the rate in force; the first day without that is ${tomorrow}; send allow_retroactive: true (tpa ratesheet finalize --retroactive) to mean it`,
          },
        ]);
      }
      const dayBefore = shiftDate(effective, -1);
      // A code's preauthorization is the code's, not the price's: it carries over to the new rate.
      const preauth = new Map(preauthorizationsOf(ctx.db, inst.contract_id).map((r) => [r.cpt_code, r.requires_preauth]));
      // A code this contract did not rate before needs preauthorization when the plan requires it
      // for that code under any contract (a total knee needs a reference at every facility).
      const planPreauth = new Set(codesRequiringPreauthorization(ctx.db));
      const preauthOf = (cpt: string): number => preauth.get(cpt) ?? (planPreauth.has(cpt) ? 1 : 0);
      // What the approver is told before and after: the codes whose rates in force end the day
      // before, and those of them the schedule does not rate again (no longer covered from then).
      const newCodes = new Set(list.map((i) => i.primary_cpt_code));
      const ending = codesRatedFrom(ctx.db, inst.contract_id, effective);
      const changes = {
        contract_id: inst.contract_id,
        rate_records_created: list.length,
        effective_date: effective,
        codes_rated: [...newCodes].sort(),
        codes_ended: ending,
        codes_dropped: ending.filter((c) => !newCodes.has(c)),
      };
      if (body.dry_run === true) {
        return respond(200, {
          status: 'DRY_RUN',
          ...changes,
          message: `Nothing written: finalizing ${inst.id} would make ${list.length} contract rate ${nounFor(list.length, 'record')} on ${inst.contract_id} in force from ${effective}, end the rates of ${ending.length} ${nounFor(ending.length, 'code')} the day before, and leave ${changes.codes_dropped.length} of them unrated from then`,
        });
      }
      deleteRatesStartingFrom(ctx.db, inst.contract_id, effective);
      endRatesBefore(ctx.db, inst.contract_id, effective, dayBefore);
      const seenCpt = new Set<string>();
      for (const i of list) {
        const allowed = itemAllowedCents(i.rate_type, i.rate_value, i.medicare_rate_cents);
        insertContractRateRecord(ctx.db, {
          id: newId('crr_'),
          contractId: inst.contract_id,
          sspCode: i.code,
          cptCode: i.primary_cpt_code,
          rateType: i.rate_type,
          rateValue: i.rate_value,
          allowedCents: allowed,
          bundleType: i.bundle_type,
          createdAt: now,
          effectiveDate: effective,
        });
        // Two SSPs with one primary code: the first in schedule order sets the live rate.
        if (!seenCpt.has(i.primary_cpt_code)) insertOpenRate(ctx.db, inst.contract_id, i.primary_cpt_code, effective, allowed, preauthOf(i.primary_cpt_code));
        seenCpt.add(i.primary_cpt_code);
      }
      setBuilderSettings(ctx.db, inst.contract_id, JSON.stringify(settingsBody(s)));
      markScheduleFinalized(ctx.db, s.id, now);
      appendAudit(ctx.db, 'SCHEDULE_FINALIZED', inst.contract_id, now, {
        instance_id: inst.id,
        effective_date: effective,
        rates: list.map((i) => ({
          ssp: i.code,
          cpt: i.primary_cpt_code,
          rate_type: i.rate_type,
          rate_value: i.rate_value,
          allowed_cents: itemAllowedCents(i.rate_type, i.rate_value, i.medicare_rate_cents),
        })),
      });
      return respond(200, {
        status: 'FINALIZED',
        ...changes,
        message: `Rate schedule of ${inst.id} finalized: ${list.length} contract rate records on ${inst.contract_id}, in force from ${effective}`,
      });
    })
    .immediate();
}
