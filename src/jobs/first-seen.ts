// Where each X12 identity of a run was first met, held compactly: a run of 100,000 claims keeps
// every identity (one identity is one claim, docs/x12.md "837 in", its Journal), and as JavaScript
// strings in a Map they were the largest thing a conversion held (about 175 bytes a claim, and
// the collector's headroom over them: docs/numbers-history.md "After the X12 pass"). Here an identity is
// its 16-byte digest (the first half of its SHA-256: two of a million identities collide with a
// chance of about one in 10^26) in typed arrays, and the first claim's source, needed only for the
// refusal of a second one, is kept as UTF-8 bytes after its file's name (kept once); none of it is
// in the heap the collector walks.
import { createHash } from 'node:crypto';

/** Words of an entry: the digest (4), the source's prefix (its number plus one, 0: none), its rest's offset and byte length. */
const ENTRY_WORDS = 7;
/** Distinct prefixes kept (a folder of this many files); a source past them is kept whole. */
const MAX_PREFIXES = 65_536;

export class FirstSeen {
  /** Open addressing: each slot holds an entry's number plus one (0: empty); a power of two long. */
  private slots = new Uint32Array(1024);
  private entries = new Uint32Array(512 * ENTRY_WORDS);
  private count = 0;
  /** The sources' rests, as UTF-8, one after another. */
  private bytes = Buffer.allocUnsafeSlow(64 * 1024);
  private used = 0;
  /**
   * A source's text up to its first ": " (an X12 claim's is its file's, `file.837: ST 0001, CLM
   * P1`), kept once for all the claims of the file.
   */
  private readonly prefixes: string[] = [];
  private readonly prefixNumbers = new Map<string, number>();

  /** How many identities are held. */
  get size(): number {
    return this.count;
  }

  /**
   * The source of the first claim of `identity` met before, or undefined when this is the first
   * (then `source` is kept as its first).
   */
  firstOf(identity: string, source: string): string | undefined {
    const d = createHash('sha256').update(identity).digest();
    const d0 = d.readUInt32LE(0);
    const d1 = d.readUInt32LE(4);
    const d2 = d.readUInt32LE(8);
    const d3 = d.readUInt32LE(12);
    const mask = this.slots.length - 1;
    let i = d0 & mask;
    for (let slot = this.slots[i]!; slot !== 0; i = (i + 1) & mask, slot = this.slots[i]!) {
      const at = (slot - 1) * ENTRY_WORDS;
      const e = this.entries;
      if (e[at] === d0 && e[at + 1] === d1 && e[at + 2] === d2 && e[at + 3] === d3) return this.sourceAt(at);
    }
    this.add(i, d0, d1, d2, d3, source);
    return undefined;
  }

  private add(slot: number, d0: number, d1: number, d2: number, d3: number, source: string): void {
    if ((this.count + 1) * ENTRY_WORDS > this.entries.length) {
      const grown = new Uint32Array(this.entries.length * 2);
      grown.set(this.entries);
      this.entries = grown;
    }
    const cut = source.indexOf(': ');
    let prefix = cut === -1 ? undefined : this.prefixNumbers.get(source.slice(0, cut + 2));
    if (cut !== -1 && prefix === undefined && this.prefixes.length < MAX_PREFIXES) {
      prefix = this.prefixes.push(source.slice(0, cut + 2)) - 1;
      this.prefixNumbers.set(this.prefixes[prefix]!, prefix);
    }
    const rest = prefix === undefined ? source : source.slice(cut + 2);
    const length = Buffer.byteLength(rest);
    if (this.used + length > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + length));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.bytes.write(rest, this.used, 'utf8');
    this.entries.set([d0, d1, d2, d3, prefix === undefined ? 0 : prefix + 1, this.used, length], this.count * ENTRY_WORDS);
    this.used += length;
    this.slots[slot] = ++this.count;
    // At most half full: a miss ends within a few slots.
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
  }

  private rehash(length: number): void {
    const slots = new Uint32Array(length);
    const mask = length - 1;
    for (let n = 0; n < this.count; n++) {
      let i = this.entries[n * ENTRY_WORDS]! & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = n + 1;
    }
    this.slots = slots;
  }

  private sourceAt(at: number): string {
    const e = this.entries;
    const rest = this.bytes.toString('utf8', e[at + 5]!, e[at + 5]! + e[at + 6]!);
    return e[at + 4] === 0 ? rest : this.prefixes[e[at + 4]! - 1]! + rest;
  }
}
