// The approvals made from this machine (`tpa fund history`), whatever the profile or transport:
// an append-only journal in the data directory. Each approval is written, on the disk, before its
// request is sent, and its outcome after; one whose answer was lost stays UNKNOWN until a later
// `fund approve` or payment run finds out what happened and records it.
import { join } from 'node:path';
import { Journal, type JournalRecord } from './journal.js';

export type HistoryOutcome = 'APPROVED' | 'SKIPPED' | 'FAILED' | 'UNKNOWN';

export interface ApprovalRecord {
  id: string;
  at: string;
  profile: string;
  environment: string;
  encounter_id: string;
  /** The amount as sent (a JSON number of dollars, as SPEC.md's body has it). */
  amount: number;
  authorization_code: string;
  outcome: HistoryOutcome;
  processor_transfer_id: string | null;
  message: string | null;
}

export function historyPath(dataDir: string): string {
  return join(dataDir, 'journals', 'fund-history.ndjson');
}

export class FundHistory {
  private constructor(private readonly journal: Journal) {}

  static open(dataDir: string): FundHistory {
    return new FundHistory(Journal.open(historyPath(dataDir), () => undefined));
  }

  /** Every approval, its latest outcome folded in, in the order they were begun. */
  static read(dataDir: string): ApprovalRecord[] {
    const byId = new Map<string, ApprovalRecord>();
    const journal = Journal.open(historyPath(dataDir), (r: JournalRecord) => {
      if (r.type === 'approval') byId.set(String(r.id), { ...(r.record as ApprovalRecord), outcome: 'UNKNOWN', processor_transfer_id: null, message: null });
      if (r.type === 'outcome') {
        const a = byId.get(String(r.id));
        if (a) Object.assign(a, { outcome: r.outcome, processor_transfer_id: r.processor_transfer_id ?? null, message: r.message ?? null });
      }
    });
    journal.close();
    return [...byId.values()];
  }

  /** Before the request: on the disk, so that an approval whose answer is lost is still listed. */
  begin(record: Omit<ApprovalRecord, 'outcome' | 'processor_transfer_id' | 'message'>): void {
    this.journal.append({ type: 'approval', id: record.id, record });
  }

  end(id: string, outcome: HistoryOutcome, processorTransferId: string | null, message?: string): void {
    this.journal.append({ type: 'outcome', id, outcome, processor_transfer_id: processorTransferId, ...(message ? { message } : {}) });
  }

  /**
   * Settles the approvals of `records` (as `read` gave them) of an encounter left UNKNOWN, now that
   * the ledger says which authorization code funded it.
   */
  resolve(records: readonly ApprovalRecord[], encounterId: string, fundedBy: string | null, transfer: string | null): void {
    for (const a of records) {
      if (a.encounter_id !== encounterId || a.outcome !== 'UNKNOWN') continue;
      if (fundedBy === a.authorization_code) this.end(a.id, 'APPROVED', transfer, 'found in the ledger after the answer was lost');
      else this.end(a.id, 'FAILED', null, fundedBy ? `not this approval: the ledger shows ${fundedBy}` : 'the ledger shows no fund release from it');
    }
  }

  close(): void {
    this.journal.close();
  }
}
