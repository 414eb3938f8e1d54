// A claim batch on the embedded engine commits its claims in groups (one write transaction, each
// claim a savepoint with its Idempotency-Key). Killed with SIGKILL while it works, a run loses the
// group it had not committed, whole; the journal never holds an acknowledgment the database does not,
// and the batch run again sends what was lost with the same Idempotency-Keys: every claim once.
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distinctClaim } from '../helpers/claims.js';
import { runTpa } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { journalRecords, killRepeatedly } from '../helpers/kill.js';

const CLAIMS = 1000;
const env = { TPA_CLOCK: '2027-06-30T12:00:00Z', TPA_ADJUDICATION_DELAY: '0' };
let home: ReturnType<typeof tempDir>;
beforeAll(() => {
  home = tempDir();
});
afterAll(() => home.remove());

interface JournalView {
  /** Each claim's Idempotency-Key, as its announcement gave it. */
  keyOf: Map<string, string>;
  /** Claims whose request went out (a `sent` record). */
  sent: Set<string>;
  /** Claims acknowledged, with their encounter. */
  acked: Map<string, string>;
}

/** The journal's records (a line cut by the kill is left out: it was never a record). */
function readJournal(file: string): JournalView {
  const view: JournalView = { keyOf: new Map(), sent: new Set(), acked: new Map() };
  if (!existsSync(file)) return view;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let r: Record<string, string>;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (r.type === 'sending') view.keyOf.set(r.claim!, r.idempotency_key!);
    if (r.type === 'sent') view.sent.add(r.claim!);
    if (r.type === 'acknowledged') view.acked.set(r.claim!, r.external_claim_id!);
  }
  return view;
}

/** What the database committed: its encounters, and the Idempotency-Keys of claim submissions. */
function committed(): { encounters: Set<string>; keys: Set<string> } {
  const file = join(home.dir, 'local.sqlite');
  if (!existsSync(file)) return { encounters: new Set(), keys: new Set() };
  const db = new Database(file, { readonly: true });
  try {
    const encounters = new Set(db.prepare('SELECT id FROM encounters').pluck().all() as string[]);
    const keys = new Set(db.prepare("SELECT key FROM idempotency_keys WHERE route = 'claims.submit'").pluck().all() as string[]);
    return { encounters, keys };
  } finally {
    db.close();
  }
}

describe('a claim batch killed while its groups commit', () => {
  it('loses only uncommitted groups, never acknowledges what is not committed, and sends the lost claims again with their keys: each claim once', async () => {
    /** Kills after which claims sent (not acknowledged) were missing from the database: a group lost whole. */
    let lostGroups = 0;
    const check = (journal: string, after: string) => {
      const j = readJournal(journal);
      const db = committed();
      // Each committed claim came with its own key, in the same transaction.
      expect(db.keys.size, after).toBe(db.encounters.size);
      // Nothing acknowledged that the database does not hold.
      for (const [claim, encounter] of j.acked) expect(db.encounters.has(encounter), `${after}: ${claim} acknowledged, not committed`).toBe(true);
      const lost = [...j.sent].filter((c) => !j.acked.has(c) && !db.keys.has(j.keyOf.get(c)!));
      if (lost.length > 1) lostGroups++;
    };
    // Batches of distinct claims, each killed at instants inside its work (once its journal's `sent`
    // records grow) until a kill has lost a group of more than one claim; a batch that ends first
    // is followed by another.
    const batches: string[] = [];
    for (let rounds = 0; lostGroups === 0 && rounds < 40; ) {
      const name = `batch-${batches.length}`;
      batches.push(name);
      const first = (batches.length - 1) * CLAIMS;
      writeFileSync(join(home.dir, `${name}.ndjson`), `${Array.from({ length: CLAIMS }, (_, i) => JSON.stringify(distinctClaim(first + i))).join('\n')}\n`);
      const journal = join(home.dir, `${name}.journal`);
      const args = ['claim', 'submit', `${name}.ndjson`, '--journal', `${name}.journal`, '--concurrency', '50', '-o', 'ndjson'];
      for (let finished = false; !finished && lostGroups === 0 && rounds < 40; rounds++) {
        ({ finished } = await killRepeatedly(args, {
          home: home.dir,
          env,
          kills: 1,
          minMs: 0,
          spreadMs: 300,
          progress: () => journalRecords(journal, 'sent'),
          onExit: (code) => expect(code).toBe(0),
          afterKill: async (k) => check(journal, `${name}, round ${rounds}, kill ${k}`),
        }));
      }
    }
    expect(lostGroups, 'no kill fell while a group of claims was uncommitted').toBeGreaterThan(0);

    // Run again, each batch sends what it lost, with the keys its journal gave.
    const keys = new Set<string>();
    for (const name of batches) {
      const args = ['claim', 'submit', `${name}.ndjson`, '--journal', `${name}.journal`, '--concurrency', '50', '-o', 'ndjson'];
      const done = await runTpa(args, { home: home.dir, env });
      expect(done.code, done.stderr).toBe(0);
      const journal = join(home.dir, `${name}.journal`);
      check(journal, `${name}, completed`);
      const j = readJournal(journal);
      expect(j.keyOf.size).toBe(CLAIMS);
      expect(j.acked.size).toBe(CLAIMS);
      for (const key of j.keyOf.values()) keys.add(key);
    }
    const db = committed();
    expect(db.encounters.size).toBe(CLAIMS * batches.length);
    // Every claim committed under the one key its journal gave it, and nothing else was.
    expect(db.keys).toEqual(keys);
  }, 600_000);
});
