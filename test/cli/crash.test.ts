// Crash safety, proven by killing: the CLI is killed (SIGKILL) at instants a seeded
// generator picks, 100 times in all, while it submits a batch of claims, approves a payment run, and
// brings settlements due on a moved clock; after every kill the database must be whole and every
// record explained. An instant can fall anywhere, from the process's first moment (before it has
// made the database) on. The seed is printed: TPA_CRASH_SEED=<seed> replays the same instants
// (on a machine of another speed they land elsewhere in the work).
import Database from 'better-sqlite3';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimTemplate } from '../../src/domain/claim-template.js';
import { verifyChain, type StoredAudit } from '../../src/domain/audit.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { killRepeatedly } from '../helpers/kill.js';

const SEED = Number(process.env.TPA_CRASH_SEED ?? Date.now() % 1_000_000);
/** mulberry32: small, seeded, good enough to spread instants. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CLOCK = '2026-06-30T12:00:00Z';
let home: ReturnType<typeof tempDir>;
beforeAll(() => {
  home = tempDir();
  console.log(`crash test seed: ${SEED} (TPA_CRASH_SEED=${SEED} replays it)`);
});
afterAll(() => home.remove());

/**
 * Every invariant of a whole database; throws naming the first that fails. Killed before the
 * database was made, there is none; killed while it was made, it has no schema yet (the schema and
 * its reference data come in one transaction): both are whole.
 */
function checkWhole(after: string): void {
  const file = join(home.dir, 'local.sqlite');
  if (!existsSync(file)) return;
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true }), after).toBe('ok');
    if (db.pragma('user_version', { simple: true }) === 0) {
      expect(db.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'").pluck().get(), `${after}: a schema half made`).toBe(0);
      return;
    }
    const q = (sql: string) => db.prepare(sql).pluck().get() as number;
    expect(
      q(`SELECT COUNT(*) FROM encounters e WHERE NOT EXISTS (SELECT 1 FROM history_entries h WHERE h.encounter_id = e.id AND h.type = 'SUBMISSION')`),
      `${after}: an encounter without its SUBMISSION`,
    ).toBe(0);
    // A status the history does not explain: funded or reconciled without a fund release.
    expect(
      q(
        `SELECT COUNT(*) FROM encounters e WHERE e.status IN ('FUNDED', 'RECONCILED') AND NOT EXISTS (SELECT 1 FROM history_entries h WHERE h.encounter_id = e.id AND h.type = 'FUNDING_APPROVED')`,
      ),
      `${after}: funded without FUNDING_APPROVED`,
    ).toBe(0);
    // No fund release without its settlement record, and the reverse.
    expect(
      q(
        `SELECT COUNT(*) FROM encounters e WHERE (SELECT COUNT(*) FROM history_entries h WHERE h.encounter_id = e.id AND h.type = 'FUNDING_APPROVED') <> (SELECT COUNT(*) FROM settlements s WHERE s.encounter_id = e.id)`,
      ),
      `${after}: approvals and settlements differ`,
    ).toBe(0);
    // Every transfer's payouts sum to it.
    expect(
      q(`SELECT COUNT(*) FROM settlements s WHERE s.total_amount_cents <> (SELECT COALESCE(SUM(amount_cents), 0) FROM payouts p WHERE p.settlement_id = s.id)`),
      `${after}: payouts that do not sum to their transfer`,
    ).toBe(0);
    const chain = verifyChain(
      db.prepare('SELECT seq, at, type, subject, data_json, prev_hash, hash, actor FROM audit_log ORDER BY seq').iterate() as Iterable<StoredAudit>,
    );
    expect(chain, after).toMatchObject({ whole: true });
  } finally {
    db.close();
  }
}

describe('kill -9 at 100 seeded instants', () => {
  it('leaves the database whole and every record explained after each kill, and the work completes when run again', async () => {
    const rand = seeded(SEED);
    const env = { TPA_CLOCK: CLOCK };
    /** 900 distinct claims, from `first` on, twelve a day. */
    const writeBatch = (name: string, first: number) => {
      const lines: string[] = [];
      for (let i = 0; i < 900; i++) {
        const day = new Date(first + Math.floor(i / 12) * 86_400_000).toISOString().slice(0, 10);
        lines.push(
          JSON.stringify(
            claimTemplate({
              type: 'professional',
              npi: '1045782368',
              cpt: [['45378', '45380', '43235'][i % 3]!],
              patient: `MBR-100${1 + (Math.floor(i / 3) % 4)}`,
              serviceDate: day,
            }),
          ),
        );
      }
      writeFileSync(join(home.dir, name), `${lines.join('\n')}\n`);
    };
    writeBatch('month.ndjson', Date.UTC(2026, 0, 1));
    let kills = 0;
    // Each run is killed at an instant of its first 600 ms, or ends by itself once its work is done.
    const phase = async (name: string, args: string[], slow: string, count: number) => {
      const { killed } = await killRepeatedly(args, {
        home: home.dir,
        env: { ...env, TPA_FAULT: slow },
        kills: count,
        minMs: 0,
        spreadMs: 600,
        random: rand,
        onExit: (code) => expect(code, name).toBe(0),
        afterKill: async (k) => checkWhole(`${name}, kill ${k} (seed ${SEED})`),
      });
      kills += killed;
      const done = await runTpa(args, { home: home.dir, env });
      expect(done.code, `${name}: ${done.stderr}`).toBe(0);
      checkWhole(`${name}, completed`);
    };

    // A batch of claims, killed while it submits (two at a time, each a little slowed).
    await phase(
      'claim batch',
      ['claim', 'submit', 'month.ndjson', '--journal', 'month.journal', '--concurrency', '2', '-o', 'ndjson'],
      'slow-20:/claims/submit/',
      45,
    );
    const ledger = (await runTpa(['ledger', 'list', '--all', '-o', 'ndjson'], { home: home.dir, env })).stdout.trim().split('\n');
    expect(ledger).toHaveLength(900);

    // A payment run, killed while it approves.
    const review = (await runTpa(['fund', 'run', '--dry-run', '--limit', '300', '-o', 'json'], { home: home.dir, env })).json<{
      total: string;
      count: number;
    }>();
    await phase(
      'payment run',
      [
        'fund',
        'run',
        '--limit',
        '300',
        '--auth-code-prefix',
        'AUTH-CRASH',
        '--expect-total',
        String(review.total),
        '--yes',
        '--journal',
        'run.journal',
        '-o',
        'ndjson',
      ],
      'slow-30:/funding/approve/',
      45,
    );

    // Settlements brought due by a clock moved on, killed while the arrivals are written.
    const arrivalEnv = { TPA_CLOCK: '2026-07-10T12:00:00Z' };
    let arrivalKills = 0;
    for (let i = 0; arrivalKills < 20 && i < 60; i++) {
      const { killed } = await killRepeatedly(['ledger', 'list', '--all', '-o', 'ndjson'], {
        home: home.dir,
        env: arrivalEnv,
        kills: 1,
        minMs: 0,
        spreadMs: 500,
        random: rand,
        onExit: (code) => expect(code).toBe(0),
        afterKill: async () => checkWhole(`settlement arrivals, kill ${arrivalKills + 1} (seed ${SEED})`),
      });
      arrivalKills += killed;
    }
    kills += arrivalKills;
    const reconciled = (await runTpa(['ledger', 'list', '--all', '--status', 'RECONCILED', '-o', 'ndjson'], { home: home.dir, env: arrivalEnv })).stdout
      .trim()
      .split('\n');
    expect(reconciled).toHaveLength(review.count);
    checkWhole('settlement arrivals, completed');

    // A phase ends when its work is done, which on a fast machine can come before its share of
    // kills: further batches, killed while they submit, make up the hundred.
    for (let round = 0; kills < 100 && round < 6; round++) {
      writeBatch(`more-${round}.ndjson`, Date.UTC(2025, round, 1));
      await phase(
        `more claims ${round + 1}`,
        ['claim', 'submit', `more-${round}.ndjson`, '--journal', `more-${round}.journal`, '--concurrency', '2', '-o', 'ndjson'],
        'slow-20:/claims/submit/',
        100 - kills,
      );
    }
    expect(kills).toBeGreaterThanOrEqual(100);
  }, 600_000);
});
