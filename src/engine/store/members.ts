// Members, their plans (benefits and payer) and the deductible each has met by plan year.
import type { Db } from './db.js';

export interface MemberRow {
  member_id: string;
  name: string;
  plan_id: string;
  coverage_start: string;
  coverage_end: string | null;
  deductible_cents: number;
  copay_cents: number;
  coinsurance_percent: number;
  plan_year_start: string;
  /** The payer of the member's plan (plans.payer_id). */
  payer_id: string;
  /** What every plan year starts with, met before any claim on this engine (the fixtures' figure). */
  deductible_met_cents: number;
  /** The deductible met by claims so far, by plan year, as a JSON object. */
  met_json: string;
}

type PlanColumns = 'deductible_cents' | 'copay_cents' | 'coinsurance_percent' | 'plan_year_start' | 'payer_id';

/**
 * The member with their plan's benefits and the deductible met so far. Two lookups by primary key,
 * not one join: in a join's WHERE, SQLite's constant propagation takes a bound parameter
 * (`m.member_id = ?`) for a constant and marks the statement to be compiled again whenever that
 * parameter's value changes, and better-sqlite3 binds anew on every run, so the joined statement was
 * compiled again for every claim (45-60 µs, a tenth of a claim's time).
 */
export function memberWithBenefits(db: Db, memberId: string): MemberRow | undefined {
  const member = db
    .prepare(
      `SELECT member_id, name, plan_id, coverage_start, coverage_end, deductible_met_cents,
         (SELECT json_group_object(plan_year, met_cents) FROM member_deductibles d WHERE d.member_id = m.member_id) AS met_json
       FROM members m WHERE member_id = ?`,
    )
    .get(memberId) as Omit<MemberRow, PlanColumns> | undefined;
  if (!member) return undefined;
  const plan = db.prepare('SELECT deductible_cents, copay_cents, coinsurance_percent, plan_year_start, payer_id FROM plans WHERE id = ?').get(member.plan_id) as
    | Pick<MemberRow, PlanColumns>
    | undefined;
  // members.plan_id references plans (migration 1): the inner join dropped a member without a plan.
  return plan && { ...member, ...plan };
}

/** Adds to the deductible a member has met in a plan year. */
export function addDeductibleMet(db: Db, memberId: string, planYear: string, cents: number): void {
  db.prepare(
    'INSERT INTO member_deductibles (member_id, plan_year, met_cents) VALUES (?, ?, ?) ON CONFLICT (member_id, plan_year) DO UPDATE SET met_cents = met_cents + excluded.met_cents',
  ).run(memberId, planYear, cents);
}

/** The deductible met by claims in one plan year, if any. */
export function deductibleMetIn(db: Db, memberId: string, planYear: string): number | undefined {
  return db.prepare('SELECT met_cents FROM member_deductibles WHERE member_id = ? AND plan_year = ?').pluck().get(memberId, planYear) as number | undefined;
}

/** The patient as the ledger shows them, with their subscriber when they are a dependent (NULL otherwise). */
export function memberIdentity(db: Db, memberId: string): { member_id: string; name: string; dob: string; subscriber_id: string | null } | undefined {
  return db.prepare('SELECT member_id, name, dob, subscriber_id FROM members WHERE member_id = ?').get(memberId) as
    | { member_id: string; name: string; dob: string; subscriber_id: string | null }
    | undefined;
}

/** Whether a member of this id is enrolled. */
export function memberExists(db: Db, memberId: string): boolean {
  return db.prepare('SELECT 1 FROM members WHERE member_id = ?').get(memberId) !== undefined;
}

/** The members enrolled as dependents of a subscriber, by member id. */
export function dependentsOf(db: Db, subscriberId: string): { member_id: string; name: string; dob: string }[] {
  return db.prepare('SELECT member_id, name, dob FROM members WHERE subscriber_id = ? ORDER BY member_id').all(subscriberId) as {
    member_id: string;
    name: string;
    dob: string;
  }[];
}

export interface MemberFixtureRow {
  member_id: string;
  name: string;
  dob: string;
  /** The member's subscriber when they are a dependent, else null. */
  subscriber_id: string | null;
  coverage_start: string;
  coverage_end: string | null;
  plan_year_start: string;
  deductible_met_cents: number;
  plan_id: string;
  plan_name: string;
  deductible_cents: number;
  copay_cents: number;
  coinsurance_percent: number;
}

/** Every member with their plan, by member id (`tpa local fixtures`). */
export function membersWithPlans(db: Db): MemberFixtureRow[] {
  return db
    .prepare(
      `SELECT m.member_id, m.name, m.dob, m.subscriber_id, m.coverage_start, m.coverage_end, m.deductible_met_cents, p.plan_year_start, p.id AS plan_id, p.name AS plan_name,
                p.deductible_cents, p.copay_cents, p.coinsurance_percent
         FROM members m JOIN plans p ON p.id = m.plan_id ORDER BY m.member_id`,
    )
    .all() as MemberFixtureRow[];
}

/**
 * What the deductibles met are derived from: each claim neither replaced nor voided (its status
 * SUPERSEDED or VOIDED), with its member's plan year start; and the accumulators held.
 */
export function deductibleSources(db: Db): {
  claims: Iterable<{ member_id: string; outcome_json: string; plan_year_start: string }>;
  held: { member_id: string; plan_year: string; met_cents: number }[];
} {
  const claims = db
    .prepare(
      `SELECT e.member_id, e.outcome_json, p.plan_year_start FROM encounters e
       JOIN members m ON m.member_id = e.member_id JOIN plans p ON p.id = m.plan_id
       WHERE e.status NOT IN ('SUPERSEDED', 'VOIDED')`,
    )
    .all() as { member_id: string; outcome_json: string; plan_year_start: string }[];
  const held = db.prepare('SELECT member_id, plan_year, met_cents FROM member_deductibles ORDER BY member_id, plan_year').all() as {
    member_id: string;
    plan_year: string;
    met_cents: number;
  }[];
  return { claims, held };
}
