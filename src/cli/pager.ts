// Long listings through a pager on a terminal, as gh and git do (docs/design.md "Paging"): $TPA_PAGER,
// else $PAGER, else `less -FRX` when less is installed; `cat` or an empty value, --no-pager, or a
// stdout that is not a terminal mean none. The pager starts once the output is taller than the
// screen, so that progress and errors before it show as usual and a short listing needs none; tpa
// waits for it to be closed.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { displayWidth } from '../render/text.js';
import { type IO, screenedStream, type Stream } from './io.js';

/**
 * The commands whose output may run past a screen: their paths in the tree, and a flag when only
 * that use of the command is a listing (`fund run --dry-run`; `fund run` itself asks questions).
 */
export const PAGED_COMMANDS: readonly string[] = [
  'ledger list',
  'ledger show',
  'fund history',
  'fund run --dry-run',
  'settlement report',
  'ratesheet catalog',
  'ratesheet show',
  'ratesheet preview',
  'local fixtures',
  'local audit list',
  'activity',
  'jobs list',
  'jobs show',
];

/** Whether the command at `path` (its words), given the flags `given` (commander's attribute names set), is a listing that pages. */
export function isPaged(path: string, given: (attribute: string) => boolean): boolean {
  return PAGED_COMMANDS.some((entry) => {
    const [words, flag] = entry.split(' --');
    if (words !== path) return false;
    return flag === undefined || given(flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
  });
}

/** The pager to run for `io`, as argv (a $PAGER value runs through sh), or none. */
export function pagerCommand(io: IO, enabled: boolean): string[] | undefined {
  if (!enabled || io.stdout.fd === undefined || !io.stdout.isTTY) return undefined;
  const chosen = io.env.TPA_PAGER ?? io.env.PAGER;
  if (chosen !== undefined) return chosen.trim() === '' || chosen.trim() === 'cat' ? undefined : ['sh', '-c', chosen];
  const onPath = (io.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'less')));
  return onPath ? ['less', '-FRX'] : undefined;
}

export interface Paging {
  /** `io` with stdout going to the pager (started at the first write). */
  io: IO;
  /** Ends the pager's input and waits for it to exit. */
  finish(): Promise<void>;
}

/** The terminal's height, when stdout is this process's own terminal. */
export function screenRows(io: IO): number | undefined {
  return io.stdout.fd === 1 && io.stdout.isTTY ? process.stdout.rows || undefined : undefined;
}

/**
 * Pages the stdout of `io` through `argv`; the rest of `io` is unchanged. Given the screen's
 * `rows`, the pager starts only once the output is taller than the screen: until then it is held
 * (with what goes to stderr after it, in order) and, if it ends shorter, printed as it is, so that
 * a short listing never opens a pager, whatever the pager (less -F, more, most).
 */
export function startPaging(io: IO, argv: string[], rows?: number): Paging {
  let child: ChildProcess | undefined;
  let closed = false;
  let held: { err: boolean; text: string }[] | undefined = rows === undefined ? undefined : [];
  let heldLines = 0;
  // The screen lines a text takes: a line wider than the terminal takes more than one.
  const linesOf = (text: string) =>
    text
      .split('\n')
      .reduce((n, line, i, all) => n + (i === all.length - 1 ? 0 : Math.max(1, Math.ceil(displayWidth(line) / Math.max(1, io.stdout.columns)))), 0);
  let exited: Promise<void> = Promise.resolve();
  // Ctrl-C while the pager shows the listing stops the listing, not tpa: it waits for the pager to be
  // closed, so that the shell does not take the terminal back from under it.
  const onSignal = () => {
    closed = true;
    child?.stdin?.end();
  };
  const start = () => {
    const { spawn } = process.getBuiltinModule('node:child_process');
    // As git and gh do: less quits when the text fits one screen, keeps colours, leaves it on screen.
    const env = { ...io.env, LESS: io.env.LESS ?? 'FRX' };
    const proc = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'inherit', 'inherit'], env });
    exited = new Promise((resolve) => {
      proc.on('close', () => resolve());
      proc.on('error', () => resolve());
    });
    proc.on('close', () => (closed = true));
    proc.on('error', () => (closed = true));
    // A pager closed before the end (q in less) is a reader gone away, as `| head` is.
    proc.stdin?.on('error', () => (closed = true));
    process.on('SIGINT', onSignal);
    child = proc;
  };
  // Held output, once taller than the screen, goes to the pager, in the order it was written.
  const release = () => {
    const waiting = held ?? [];
    held = undefined;
    start();
    for (const w of waiting) (w.err ? intoPager : child!.stdin!).write(w.text);
  };
  const stdout: Stream = {
    write(text) {
      if (closed || text === '') return;
      if (held) {
        held.push({ err: false, text });
        heldLines += linesOf(text);
        if (heldLines >= rows! - 1) release();
        return;
      }
      if (!child) start();
      child!.stdin!.write(text);
    },
    isTTY: true,
    get columns() {
      return io.stdout.columns;
    },
    get closed() {
      return closed;
    },
  };
  // Once the pager shows the output, what goes to stderr (the page hint, a warning) goes there too,
  // after the lines it follows: drawn beside the pager, it would be drawn over its screen.
  const intoPager = screenedStream({ write: (text) => child?.stdin?.write(text), isTTY: true, columns: io.stderr.columns }, true);
  const stderr: Stream = {
    write(text) {
      // After held output, held with it, so that a note after a listing stays after it.
      if (held && held.length > 0) held.push({ err: true, text });
      else if (child && !closed) intoPager.write(text);
      else io.stderr.write(text);
    },
    get isTTY() {
      return io.stderr.isTTY;
    },
    get columns() {
      return io.stderr.columns;
    },
  };
  const paged = Object.create(io, {
    stdout: { value: stdout, enumerable: true },
    stderr: { value: stderr, enumerable: true },
    paging: { value: true, enumerable: true },
  }) as IO;
  return {
    io: paged,
    async finish() {
      // Shorter than the screen: printed as it is, no pager.
      if (held) for (const w of held.splice(0)) (w.err ? io.stderr : io.stdout).write(w.text);
      held = undefined;
      if (!child) return;
      child.stdin?.end();
      await exited;
      process.removeListener('SIGINT', onSignal);
    },
  };
}
