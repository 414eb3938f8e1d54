// `tpa jobs show --failed-to <file>`: the claims of a journal that were invalid or refused, one
// compact claim a line (the NDJSON that `claim submit` reads), to fix and send again.
import type { JobItem } from '../../../jobs/job-journals.js';
import { writeNewWhole } from '../../../files/write-whole.js';
import { UsageError } from '../../../errors.js';
import { oneLine, screen } from '../../../render/screen.js';
import type { Context } from '../../context.js';

export function writeFailedClaims(ctx: Context, items: readonly JobItem[], file: string, force: boolean): void {
  const lines: string[] = [];
  const missing: string[] = [];
  let invalid = 0;
  let refused = 0;
  for (const item of items) {
    if (item.status !== 'INVALID' && item.status !== 'FAILED') continue;
    let line: string | undefined;
    if (item.text !== undefined) {
      const text = item.text.replace(/^\uFEFF/, '');
      try {
        line = JSON.stringify(JSON.parse(text));
      } catch {
        // Not JSON: kept as it was when it is one line, to be fixed there.
        line = text.includes('\n') || text.trim() === '' ? undefined : text;
      }
    }
    if (line === undefined) {
      missing.push(item.source);
      continue;
    }
    lines.push(line);
    if (item.status === 'INVALID') invalid++;
    else refused++;
  }
  if (lines.length === 0 && missing.length === 0) {
    ctx.note('no claim of this job was invalid or refused: nothing to write');
    return;
  }
  let done: 'written' | 'exists';
  try {
    // Whole or not at all; an existing file is never replaced without --force (the check and the creation are one step).
    done = writeNewWhole(file, lines.map((l) => `${l}\n`).join(''), force);
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${(err as Error).message}`);
  }
  if (done === 'exists') throw new UsageError(`${file} exists: not replaced`, { hint: 'name another file, or add --force to replace it' });
  const named = /\.(ndjson|jsonl)$/i.test(file) ? '' : ` (name it *.ndjson for claim submit to read it a line at a time)`;
  ctx.note(
    `wrote ${lines.length} claim(s) to ${oneLine(file)}: ${invalid} invalid, ${refused} refused${named}; fix them, then: tpa claim submit ${oneLine(file)}`,
  );
  for (const source of missing)
    ctx.note(screen(`${oneLine(source)}: its text is not in the journal (too large, not one line, or written by an older tpa): fix it in its own file`));
}
