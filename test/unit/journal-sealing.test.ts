// Sealing a journal written before the data directory was encrypted (tpa local encrypt): the sealed
// copy replaces the file, and a record appended meanwhile by a writer that takes no lock (the fund
// history: an approval appends to it from any process) is sealed with the rest, never lost.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readJournal, sealingOf } from '../../src/jobs/journal.js';
import { JournalSeal, withJournalSealing } from '../../src/jobs/journal-seal.js';
import { tempDir } from '../helpers/engine.js';

let home: ReturnType<typeof tempDir>;
beforeEach(() => {
  home = tempDir();
});
afterEach(() => home.remove());

it('a record appended between the read and the replacement is sealed too, not lost', () => {
  const seal = new JournalSeal(Buffer.alloc(32, 3));
  const path = join(home.dir, 'fund-history.ndjson');
  writeFileSync(path, `${JSON.stringify({ type: 'approval', n: 1 })}\n`, { mode: 0o600 });
  const write = sealingOf(path, seal);
  expect(write).toBeDefined();
  appendFileSync(path, `${JSON.stringify({ type: 'approval', n: 2 })}\n`);
  write!();
  const text = readFileSync(path, 'utf8');
  expect(text).not.toContain('approval');
  const read: unknown[] = [];
  withJournalSealing({ kind: 'sealed', seal, plainLines: { note: () => {}, told: false } }, () => readJournal(path, (r) => read.push(r)));
  expect(read).toEqual([
    { type: 'approval', n: 1 },
    { type: 'approval', n: 2 },
  ]);
});
