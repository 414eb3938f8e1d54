// The contract builder's tables: the SSP catalog, builder instances, their rate schedules and
// items, and the contract rate records a finalized schedule leaves. Named queries; what may be
// scheduled, at which rate, and what finalizing does are the builder service's rules.
import type { ScheduleRateType } from '../../domain/schedule-rates.js';
import type { Db } from './db.js';

export interface SspRow {
  id: string;
  version: string;
  code: string;
  name: string;
  level: string;
  medicare_rate_cents: number;
  base_weight: string;
  primary_cpt_code: string;
  requires_anesthesia: number;
  active: number;
}

/** A schedule's settings as stored (their choices and defaults are the builder service's). */
export interface ScheduleSettingsRow {
  ssp_reference_type: string;
  scope_of_care: string;
  service_logic: string;
  elective_advance_hours: number;
  non_elective_fallback: string;
  non_elective_fallback_percent: string;
  default_rate_type: string;
  default_rate_value: string;
}

export interface ScheduleRow extends ScheduleSettingsRow {
  id: string;
  instance_id: string;
  created_at: string;
  finalized_at: string | null;
}

export interface ItemRow {
  id: string;
  schedule_id: string;
  ssp_id: string;
  rate_type: ScheduleRateType;
  rate_value: string;
  is_bundle_eligible: number;
  bundle_type: string | null;
  notes: string;
  sort_order: number;
  code: string;
  name: string;
  medicare_rate_cents: number;
  primary_cpt_code: string;
}

// ---- catalog ----

/** Active ENCOUNTER-level entries of a catalog version whose name or code contains `search` ('' for all). */
const CATALOG_MATCH = `version = @version AND level = 'ENCOUNTER' AND active = 1 AND (@search = '' OR name LIKE @like ESCAPE '\\' OR code LIKE @like ESCAPE '\\')`;
const catalogParams = (version: string, search: string) => ({ version, search, like: `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` });

export function countCatalogMatches(db: Db, version: string, search: string): number {
  return db.prepare(`SELECT COUNT(*) FROM ssp_catalog WHERE ${CATALOG_MATCH}`).pluck().get(catalogParams(version, search)) as number;
}

/** A page of the matching entries, by code. */
export function catalogMatches(db: Db, version: string, search: string, limit: number, offset: number): SspRow[] {
  return db
    .prepare(`SELECT * FROM ssp_catalog WHERE ${CATALOG_MATCH} ORDER BY code LIMIT @limit OFFSET @offset`)
    .all({ ...catalogParams(version, search), limit, offset }) as SspRow[];
}

export function catalogVersionExists(db: Db, version: string): boolean {
  return db.prepare('SELECT 1 FROM ssp_catalog WHERE version = ? LIMIT 1').get(version) !== undefined;
}

export function catalogEntryById(db: Db, sspId: string): SspRow | undefined {
  return db.prepare('SELECT * FROM ssp_catalog WHERE id = ?').get(sspId) as SspRow | undefined;
}

/** The active ENCOUNTER-level entry of a version with the highest Medicare rate. */
export function dearestCatalogEntry(db: Db, version: string): { code: string; medicare_rate_cents: number } | undefined {
  return db
    .prepare(
      `SELECT code, medicare_rate_cents FROM ssp_catalog WHERE version = ? AND level = 'ENCOUNTER' AND active = 1 ORDER BY medicare_rate_cents DESC LIMIT 1`,
    )
    .get(version) as { code: string; medicare_rate_cents: number } | undefined;
}

/** Each catalog version with its number of active ENCOUNTER-level entries (`tpa local fixtures`). */
export function catalogVersions(db: Db): unknown[] {
  return db
    .prepare(
      `SELECT version, SUM(level = 'ENCOUNTER' AND active = 1) AS active_encounter_ssps, COUNT(*) AS entries FROM ssp_catalog GROUP BY version ORDER BY version`,
    )
    .all();
}

// ---- instances and schedules ----

export function builderInstance(db: Db, id: string): { id: string; contract_id: string } | undefined {
  return db.prepare('SELECT id, contract_id FROM builder_instances WHERE id = ?').get(id) as { id: string; contract_id: string } | undefined;
}

/** Every builder instance with its contract and the state of its schedule (`tpa local fixtures`). */
export function builderInstancesWithStatus(db: Db): unknown[] {
  return db
    .prepare(
      `SELECT b.id AS instance_id, b.name, b.contract_id, c.contract_number, c.npi, c.group_id,
              CASE WHEN s.finalized_at IS NOT NULL THEN 'FINALIZED' WHEN s.id IS NOT NULL THEN 'DRAFT' ELSE 'NOT_INITIALIZED' END AS schedule_status
       FROM builder_instances b JOIN contracts c ON c.id = b.contract_id LEFT JOIN rate_schedules s ON s.instance_id = b.id ORDER BY b.id`,
    )
    .all();
}

export function scheduleOfInstance(db: Db, instanceId: string): ScheduleRow | undefined {
  return db.prepare('SELECT * FROM rate_schedules WHERE instance_id = ?').get(instanceId) as ScheduleRow | undefined;
}

export function scheduleIdOfInstance(db: Db, instanceId: string): string | undefined {
  return db.prepare('SELECT id FROM rate_schedules WHERE instance_id = ?').pluck().get(instanceId) as string | undefined;
}

export function insertSchedule(db: Db, s: ScheduleSettingsRow & { id: string; instance: string; now: string }): void {
  db.prepare(
    `INSERT INTO rate_schedules (id, instance_id, ssp_reference_type, scope_of_care, service_logic, elective_advance_hours, non_elective_fallback,
             non_elective_fallback_percent, default_rate_type, default_rate_value, created_at)
           VALUES (@id, @instance, @ssp_reference_type, @scope_of_care, @service_logic, @elective_advance_hours, @non_elective_fallback,
             @non_elective_fallback_percent, @default_rate_type, @default_rate_value, @now)`,
  ).run(s);
}

/** Changes the settings given (their names are the columns'). */
export function updateScheduleSettings(db: Db, scheduleId: string, changes: Partial<ScheduleSettingsRow>): void {
  const keys = Object.keys(changes);
  db.prepare(`UPDATE rate_schedules SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...changes, id: scheduleId });
}

export function markScheduleFinalized(db: Db, scheduleId: string, at: string): void {
  db.prepare('UPDATE rate_schedules SET finalized_at = ? WHERE id = ?').run(at, scheduleId);
}

// ---- schedule items ----

/** A schedule's items with their catalog entries, in schedule order. */
export function scheduleItems(db: Db, scheduleId: string): ItemRow[] {
  return db
    .prepare(
      `SELECT i.*, c.code, c.name, c.medicare_rate_cents, c.primary_cpt_code
       FROM rate_schedule_items i JOIN ssp_catalog c ON c.id = i.ssp_id WHERE i.schedule_id = ? ORDER BY i.sort_order, i.id`,
    )
    .all(scheduleId) as ItemRow[];
}

export function scheduleItemId(db: Db, scheduleId: string, sspId: string): string | undefined {
  return db.prepare('SELECT id FROM rate_schedule_items WHERE schedule_id = ? AND ssp_id = ?').pluck().get(scheduleId, sspId) as string | undefined;
}

export interface ItemValues {
  rateType: string;
  rateValue: string;
  /** 1 or 0. */
  eligible: number;
  bundleType: unknown;
  notes: string;
}

export function updateScheduleItem(db: Db, itemId: string, values: ItemValues): void {
  db.prepare(
    'UPDATE rate_schedule_items SET rate_type = @rateType, rate_value = @rateValue, is_bundle_eligible = @eligible, bundle_type = @bundleType, notes = @notes WHERE id = @id',
  ).run({ ...values, id: itemId });
}

/** Adds an item after the schedule's last. */
export function appendScheduleItem(db: Db, item: ItemValues & { id: string; schedule: string; ssp: string }): void {
  const sortOrder = db.prepare('SELECT COALESCE(MAX(sort_order), 0) + 1 FROM rate_schedule_items WHERE schedule_id = ?').pluck().get(item.schedule) as number;
  db.prepare('INSERT INTO rate_schedule_items VALUES (@id, @schedule, @ssp, @rateType, @rateValue, @eligible, @bundleType, @notes, @sortOrder)').run({
    ...item,
    sortOrder,
  });
}

/** Removes an SSP from a schedule; false when it was not there. */
export function deleteScheduleItem(db: Db, scheduleId: string, sspId: string): boolean {
  return db.prepare('DELETE FROM rate_schedule_items WHERE schedule_id = ? AND ssp_id = ?').run(scheduleId, sspId).changes > 0;
}

/**
 * Adds every active ENCOUNTER-level entry of a catalog version the schedule lacks (by SSP and by
 * code), at the rate given, after its last item in code order; returns how many.
 */
export function addCatalogItems(db: Db, scheduleId: string, version: string, rateType: string, rateValue: string): number {
  return db
    .prepare(
      `INSERT INTO rate_schedule_items (id, schedule_id, ssp_id, rate_type, rate_value, is_bundle_eligible, bundle_type, notes, sort_order)
           SELECT 'rsi_' || lower(hex(randomblob(10))), @schedule, c.id, @rateType, @rateValue, 0, NULL, '',
                  (SELECT COALESCE(MAX(sort_order), 0) FROM rate_schedule_items WHERE schedule_id = @schedule) + ROW_NUMBER() OVER (ORDER BY c.code)
           FROM ssp_catalog c
           WHERE c.version = @version AND c.level = 'ENCOUNTER' AND c.active = 1
             AND c.id NOT IN (SELECT ssp_id FROM rate_schedule_items WHERE schedule_id = @schedule)
             AND c.code NOT IN (SELECT k.code FROM rate_schedule_items i JOIN ssp_catalog k ON k.id = i.ssp_id WHERE i.schedule_id = @schedule)`,
    )
    .run({ schedule: scheduleId, version, rateType, rateValue }).changes;
}

/** The record of a contract rate a finalized schedule made (contract_rate_records). */
export function insertContractRateRecord(
  db: Db,
  r: {
    id: string;
    contractId: string;
    sspCode: string;
    cptCode: string;
    rateType: string;
    rateValue: string;
    allowedCents: number;
    bundleType: string | null;
    createdAt: string;
    effectiveDate: string;
  },
): void {
  db.prepare(
    `INSERT INTO contract_rate_records (id, contract_id, ssp_code, cpt_code, rate_type, rate_value, allowed_amount_cents, bundle_type, created_at, effective_date)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.id, r.contractId, r.sspCode, r.cptCode, r.rateType, r.rateValue, r.allowedCents, r.bundleType, r.createdAt, r.effectiveDate);
}
