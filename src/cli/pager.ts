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
  const pager = new Pager(io, argv, rows);
  const stdout: Stream = {
    write: (text) => pager.write(text),
    isTTY: true,
    get columns() {
      return io.stdout.columns;
    },
    get closed() {
      return pager.closed;
    },
  };
  const stderr: Stream = {
    write: (text) => pager.writeErr(text),
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
  return { io: paged, finish: () => pager.finish() };
}

/** The pager of startPaging: held output until it is taller than the screen, then the pager process. */
class Pager {
  private child: ChildProcess | undefined;
  closed = false;
  private held: { err: boolean; text: string }[] | undefined;
  private heldLines = 0;
  private exited: Promise<void> = Promise.resolve();
  // Once the pager shows the output, what goes to stderr (the page hint, a warning) goes there too,
  // after the lines it follows: drawn beside the pager, it would be drawn over its screen.
  private readonly intoPager: Stream;

  constructor(
    private readonly io: IO,
    private readonly argv: string[],
    private readonly rows: number | undefined,
  ) {
    this.held = rows === undefined ? undefined : [];
    this.intoPager = screenedStream({ write: (text) => this.child?.stdin?.write(text), isTTY: true, columns: io.stderr.columns }, true);
  }

  // Ctrl-C while the pager shows the listing stops the listing, not tpa: it waits for the pager to be
  // closed, so that the shell does not take the terminal back from under it.
  private readonly onSignal = () => {
    this.closed = true;
    this.child?.stdin?.end();
  };

  /** The screen lines a text takes: a line wider than the terminal takes more than one. */
  private linesOf(text: string): number {
    return text
      .split('\n')
      .reduce((n, line, i, all) => n + (i === all.length - 1 ? 0 : Math.max(1, Math.ceil(displayWidth(line) / Math.max(1, this.io.stdout.columns)))), 0);
  }

  private start(): void {
    const { spawn } = process.getBuiltinModule('node:child_process');
    // As git and gh do: less quits when the text fits one screen, keeps colours, leaves it on screen.
    const env = { ...this.io.env, LESS: this.io.env.LESS ?? 'FRX' };
    const proc = spawn(this.argv[0]!, this.argv.slice(1), { stdio: ['pipe', 'inherit', 'inherit'], env });
    this.exited = new Promise((resolve) => {
      proc.on('close', () => resolve());
      proc.on('error', () => resolve());
    });
    proc.on('close', () => (this.closed = true));
    proc.on('error', () => (this.closed = true));
    // A pager closed before the end (q in less) is a reader gone away, as `| head` is.
    proc.stdin?.on('error', () => (this.closed = true));
    process.on('SIGINT', this.onSignal);
    this.child = proc;
  }

  /** Held output, once taller than the screen, goes to the pager, in the order it was written. */
  private release(): void {
    const waiting = this.held ?? [];
    this.held = undefined;
    this.start();
    for (const w of waiting) (w.err ? this.intoPager : this.child!.stdin!).write(w.text);
  }

  write(text: string): void {
    if (this.closed || text === '') return;
    if (this.held) {
      this.held.push({ err: false, text });
      this.heldLines += this.linesOf(text);
      if (this.heldLines >= this.rows! - 1) this.release();
      return;
    }
    if (!this.child) this.start();
    this.child!.stdin!.write(text);
  }

  writeErr(text: string): void {
    // After held output, held with it, so that a note after a listing stays after it.
    if (this.held && this.held.length > 0) this.held.push({ err: true, text });
    else if (this.child && !this.closed) this.intoPager.write(text);
    else this.io.stderr.write(text);
  }

  /** Ends the pager's input and waits for it to exit; output shorter than the screen is printed as it is, no pager. */
  async finish(): Promise<void> {
    if (this.held) for (const w of this.held.splice(0)) (w.err ? this.io.stderr : this.io.stdout).write(w.text);
    this.held = undefined;
    if (!this.child) return;
    this.child.stdin?.end();
    await this.exited;
    process.removeListener('SIGINT', this.onSignal);
  }
}
