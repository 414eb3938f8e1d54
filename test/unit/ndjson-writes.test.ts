// -o ndjson of a command's list (render/output.ts emit): a line of JSON an item, written a few
// hundred lines at a time. One write a line made `tpa activity`, whose list is every event of its
// span, spend as much time in writes to the pipe as in everything else (docs/numbers.md "Reports in
// flat memory").
import { describe, expect, it } from 'vitest';
import { emit } from '../../src/render/output.js';

describe('-o ndjson of a long list', () => {
  it('writes every item as its own line, in order, a few hundred lines a write', async () => {
    const writes: string[] = [];
    const items = Array.from({ length: 1500 }, (_, i) => ({ n: i, amount: i / 100, text: `line ${i}\nwith a newline` }));
    await emit({ out: { write: (t) => writes.push(t) }, err: { write: () => undefined }, format: 'ndjson', color: false }, { items });
    expect(writes.join('')).toBe(items.map((i) => `${JSON.stringify(i)}\n`).join(''));
    expect(writes.length).toBeLessThanOrEqual(3);
  });

  it('writes nothing for an empty list', async () => {
    const writes: string[] = [];
    await emit({ out: { write: (t) => writes.push(t) }, err: { write: () => undefined }, format: 'ndjson', color: false }, { items: [] });
    expect(writes.join('')).toBe('');
  });
});
