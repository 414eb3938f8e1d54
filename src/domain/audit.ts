// The audit chain (docs/api.md: audit trails use SHA-256): each record's hash covers the previous
// record's hash and its own canonical content (sorted keys, amounts in cents), so that changing,
// deleting or reordering any record breaks the chain from there on. Pure: the engine stores it.
// The chain alone cannot tell a rewrite whose every hash was recomputed: a head kept outside the
// database (`tpa local audit head`) can, as the chain must still hold it (`verify --expect-head`).
import { canonicalJson, sha256Hex } from './canonical.js';

/** The hash before the first record. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * Who acted: `api_key:<key id>`, `oauth:<client id>`, `local:<profile>` for the CLI on the
 * embedded engine, `engine` for what the engine clock made due. Records made before actors were
 * recorded have none, and their hashes leave it out, so they verify as they always did.
 */
export type AuditActor = string;

export interface AuditContent {
  seq: number;
  at: string;
  type: string;
  subject: string;
  data: Record<string, unknown>;
  actor?: AuditActor | null;
}

export interface StoredAudit {
  seq: number;
  at: string;
  type: string;
  subject: string;
  data_json: string;
  prev_hash: string;
  hash: string;
  actor: AuditActor | null;
}

export function auditHash(prevHash: string, content: AuditContent): string {
  // No actor: the key is left out (canonicalJson skips undefined), as in records made before actors.
  return sha256Hex(`${prevHash}\n${canonicalJson({ ...content, actor: content.actor ?? undefined })}`);
}

/** Not whole: `seq` is the first record that does not verify, or null when every record does but the expected head is not among them. */
export type ChainVerdict = { whole: true; count: number; head: string } | { whole: false; count: number; seq: number | null; reason: string };

/** The last record of the chain (seq 0 and the genesis hash when there is none). */
export interface AuditHead {
  seq: number;
  hash: string;
}

/** A hash as `tpa local audit head` prints it: 64 lowercase hex digits. */
export const isAuditHash = (text: string): boolean => /^[0-9a-f]{64}$/.test(text);

/** The response header of a fund release on the embedded engine: the head after it, `<seq> <hash>`. */
export const AUDIT_HEAD_HEADER = 'x-audit-head';

export const formatAuditHead = (head: AuditHead): string => `${head.seq} ${head.hash}`;

/** The head an answer carries (AUDIT_HEAD_HEADER), or undefined (a service that does not send it). */
export function parseAuditHead(text: string | undefined): AuditHead | undefined {
  const m = /^(\d+) ([0-9a-f]{64})$/.exec(text ?? '');
  return m ? { seq: Number(m[1]), hash: m[2]! } : undefined;
}

/**
 * Walks the records in order of `seq`: the first that does not verify is named, with why. With
 * `expectHead` (a head kept outside the database), a whole chain must also hold a record of that hash:
 * the chain as it stood then, extended since. A rewrite that recomputed every hash after it loses it.
 */
export function verifyChain(records: Iterable<StoredAudit>, expectHead?: string): ChainVerdict {
  let prev = GENESIS_HASH;
  let expected = 1;
  let count = 0;
  let anchored = expectHead === undefined || expectHead === GENESIS_HASH;
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
    if (auditHash(prev, { seq: r.seq, at: r.at, type: r.type, subject: r.subject, data, actor: r.actor }) !== r.hash) {
      return { whole: false, count, seq: r.seq, reason: 'its content does not match its hash: it was edited' };
    }
    if (r.hash === expectHead) anchored = true;
    prev = r.hash;
    expected++;
    count++;
  }
  if (!anchored) {
    return {
      whole: false,
      count,
      seq: null,
      reason: `no record has the expected head ${expectHead}: the chain was rewritten (every hash recomputed) or cut back since that head was taken`,
    };
  }
  return { whole: true, count, head: prev };
}
