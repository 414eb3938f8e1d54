// Answers of read-only routes whose body depends only on the stored data (a ledger page, a catalog
// page), kept until the database changes: a write by this connection (total_changes()) or a commit
// by any other process (PRAGMA data_version) empties the cache. Busy pages are then served without
// running their queries again. An answer is kept only when its request comes a second time: pages
// asked for once (a listing walking the ledger) would only fill the cache, and every answer kept
// outlives V8's young generation, which made the collector's work grow with the traffic.
import type { EngineResponse } from './exchange.js';
import type { Db } from './store/db.js';

const MAX_ENTRIES = 256;
/** The requests seen once since the data last changed, whose answers are kept when they come again. */
const MAX_SEEN = 4096;

export class ReadCache {
  private version = '';
  private readonly entries = new Map<string, EngineResponse>();
  private readonly seen = new Set<string>();

  constructor(private readonly db: Db) {}

  private currentVersion(): string {
    const dataVersion = this.db.prepare('PRAGMA data_version').pluck().get() as number;
    const ownChanges = this.db.prepare('SELECT total_changes()').pluck().get() as number;
    return `${dataVersion}:${ownChanges}`;
  }

  answer(key: string, compute: () => EngineResponse): EngineResponse {
    // A request never seen (every page of a listing): answered, and noted, without asking the
    // database its version; a note left from older data only keeps an answer one request earlier.
    if (!this.seen.has(key) && !this.entries.has(key)) {
      const response = compute();
      if (response.status === 200) this.note(key);
      return response;
    }
    const version = this.currentVersion();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const hit = this.entries.get(key);
    if (hit) return hit;
    const response = compute();
    if (response.status !== 200) return response;
    if (!this.seen.has(key)) {
      this.note(key);
      return response;
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, response);
    return response;
  }

  /** Remembers a request seen once (the oldest notes go all at once when there are too many). */
  private note(key: string): void {
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    this.seen.add(key);
  }
}
