// Group commit: requests of a grouping route (claim submissions, routes.ts `groupCommit`) that
// arrive together are answered in ONE write transaction, each in a savepoint of its own. A commit
// costs the disk's sync, and a claim's other work costs about as much (docs/numbers.md "Claim
// batches, grouped"), so a batch that sends many at once, in-process or to `local serve`, commits
// far fewer times. The rules that keep exactly-once:
//
// - Every request of a group is answered only after the group's transaction committed: no caller
//   (a batch's journal, an HTTP client) hears of a claim the disk may still lose. A process killed
//   mid-group loses the whole uncommitted group, and the batch run again sends those claims with
//   their Idempotency-Keys (the key is stored in the claim's own savepoint, so the two commit or
//   vanish together).
// - A request that fails (a refusal, a bug) rolls back its own savepoint only; the others commit.
// - The transaction itself failing (the disk full, the write lock not had, SQLite rolling the whole
//   transaction back) answers every request of the group 503, whatever it was first going to say:
//   none of them is known to be kept, and each is sent again with its key.
import { respond, type EngineResponse } from './exchange.js';
import { inWriteTransaction, storageProblem, type Db } from './store/db.js';

/** Requests queued at most before a group is answered without waiting for the turn to end. */
export const MAX_GROUP = 100;

interface Queued<R> {
  request: R;
  resolve: (response: EngineResponse) => void;
  reject: (err: unknown) => void;
}

/** What the groups have done so far: groups committed (or failed) and requests in them. */
export interface GroupStats {
  groups: number;
  requests: number;
  largest: number;
}

/** The group's transaction was lost under it (SQLite rolled it back after an error of one request). */
class GroupLost extends Error {}

export class GroupCommit<R> {
  private queue: Queued<R>[] = [];
  private scheduled = false;
  readonly stats: GroupStats = { groups: 0, requests: 0, largest: 0 };

  /** `answer`: one request's answer, as the engine gives it alone (its own savepoint inside the group). */
  constructor(
    private readonly db: Db,
    private readonly answer: (request: R) => EngineResponse,
    private readonly maxGroup = MAX_GROUP,
  ) {}

  /**
   * Queues a request; its group is answered at the end of this turn of the event loop (setImmediate),
   * so every request that arrived in the same turn shares its commit, or at once when the group is full.
   */
  submit(request: R): Promise<EngineResponse> {
    return new Promise<EngineResponse>((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      if (this.queue.length >= this.maxGroup) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const group = this.queue;
    this.queue = [];
    if (group.length === 0) return;
    let answers: EngineResponse[];
    try {
      answers = this.commit(group.map((q) => q.request));
    } catch (err) {
      for (const q of group) q.reject(err);
      return;
    }
    group.forEach((q, i) => q.resolve(answers[i]!));
  }

  /** The group in one write transaction; the answers once it committed, or every one a 503 if it did not. */
  private commit(requests: R[]): EngineResponse[] {
    this.stats.groups += 1;
    this.stats.requests += requests.length;
    this.stats.largest = Math.max(this.stats.largest, requests.length);
    const answers: EngineResponse[] = [];
    try {
      inWriteTransaction(this.db, () => {
        for (const request of requests) {
          answers.push(this.answer(request));
          if (!this.db.inTransaction) throw new GroupLost();
        }
      });
      return answers;
    } catch (err) {
      const problem =
        storageProblem(err, this.db.name) ??
        (err instanceof GroupLost || isSqliteError(err)
          ? 'The storage failed while the claims were being recorded: none of them was kept; send them again'
          : undefined);
      if (problem === undefined) throw err;
      return requests.map(() => respond(503, { error: 'storage_unavailable', message: problem }));
    }
  }
}

function isSqliteError(err: unknown): boolean {
  return typeof (err as { code?: unknown })?.code === 'string' && String((err as { code: string }).code).startsWith('SQLITE_');
}
