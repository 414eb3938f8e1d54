// What a folder given to `claim submit`, `claim validate` or `claim convert` holds that is not read:
// said once, with how many entries and why, never skipped without a word.
import { count } from '../../../render/format.js';
import { oneLine, screen } from '../../../render/screen.js';

/** One note for the entries of a folder that are not read: how many, the first few by name, and why. */
export function skippedNote(folder: string, names: readonly string[], why: string): string | undefined {
  if (names.length === 0) return undefined;
  const sorted = [...names].sort();
  const shown = sorted.slice(0, 3).map(oneLine).join(', ') + (sorted.length > 3 ? ', …' : '');
  // File names are data: screened before they reach a terminal, each on the line it is named on.
  return screen(`${oneLine(folder)}: ${count(names.length)} other ${names.length === 1 ? 'entry' : 'entries'} skipped (${shown}): ${why}`);
}

/**
 * A note of the claim commands on stderr, told from a refusal at a glance: `note: <file>: …` (a
 * refusal is `<file>: …`, with no prefix). What is said, and sent (an attending left out, a folder's
 * skipped entries, a claim the engine would deny), never what stops a claim.
 */
export function noteText(message: string): string {
  return message.startsWith('note: ') ? message : `note: ${message}`;
}
