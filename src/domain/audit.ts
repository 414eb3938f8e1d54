// The audit chain (SPEC.md: audit trails use SHA-256): each record's hash covers the previous
// record's hash and its own canonical content (sorted keys, amounts in cents), so that changing,
// deleting or reordering any record breaks the chain from there on. Pure: the engine stores it.
import { canonicalJson, sha256Hex } from './canonical.js';

/** The hash before the first record. */
export const GENESIS_HASH = '0'.repeat(64);

export interface AuditContent {
  seq: number;
  at: string;
  type: string;
  subject: string;
  data: Record<string, unknown>;
}

export interface StoredAudit {
  seq: number;
  at: string;
  type: string;
  subject: string;
  data_json: string;
  prev_hash: string;
  hash: string;
}

export function auditHash(prevHash: string, content: AuditContent): string {
  return sha256Hex(`${prevHash}\n${canonicalJson(content)}`);
}

export type ChainVerdict = { whole: true; count: number; head: string } | { whole: false; count: number; seq: number; reason: string };

/** Walks the records in order of `seq`: the first that does not verify is named, with why. */
export function verifyChain(records: Iterable<StoredAudit>): ChainVerdict {
  let prev = GENESIS_HASH;
  let expected = 1;
  let count = 0;
  for (const r of records) {
    if (r.seq !== expected) {
      return {
        whole: false,
        count,
        seq: expected,
        reason: r.seq > expected ? `record ${expected} is missing (the next is ${r.seq}): deleted` : `record ${r.seq} is out of order`,
      };
    }
    if (r.prev_hash !== prev)
      return { whole: false, count, seq: r.seq, reason: 'its link to the record before does not match: a record before it was changed, removed or moved' };
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(r.data_json) as Record<string, unknown>;
    } catch {
      return { whole: false, count, seq: r.seq, reason: 'its content is not JSON: it was edited' };
    }
    if (auditHash(prev, { seq: r.seq, at: r.at, type: r.type, subject: r.subject, data }) !== r.hash) {
      return { whole: false, count, seq: r.seq, reason: 'its content does not match its hash: it was edited' };
    }
    prev = r.hash;
    expected++;
    count++;
  }
  return { whole: true, count, head: prev };
}
