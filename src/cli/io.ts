// The one object that owns stdout (data) and stderr (everything else), knows which are terminals
// and whether prompting is allowed. Tests run commands in-process through it (test/helpers/cli.ts).
import { fstatSync, writeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { screen as screenText } from '../render/screen.js';

export interface Stream {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Terminal width, or 80 when not a terminal. */
  readonly columns: number;
  /** Whether the reader went away (EPIPE): a long listing can stop fetching. */
  readonly closed?: boolean;
  /** The descriptor written to, for the process's own streams: a pager can take its place (pager.ts). */
  readonly fd?: number;
}

export interface IO {
  stdout: Stream;
  stderr: Stream;
  readonly stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  readStdin(): Promise<string>;
  /** Stdin as a stream, for input read as it arrives (claims as NDJSON). */
  stdinStream(): Readable;
  /** Whether stdout goes to a pager (pager.ts): a progress line on stderr would be drawn over it. */
  readonly paging?: boolean;
}

/**
 * Whether a descriptor is a terminal. Only a character device can be one, and asking fstat first
 * spares loading node:tty (which loads net) for pipes and files, the common case for scripts.
 */
function fdIsTTY(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return process.getBuiltinModule('node:tty').isatty(fd);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes straight to the descriptor, synchronously: output is never lost at exit, never reordered,
 * and needs no stream objects at start-up. A reader that went away (`tpa ... | head`) ends the
 * output quietly instead of crashing with EPIPE.
 */
function fdStream(fd: 1 | 2): Stream {
  let tty: boolean | undefined;
  let closed = false;
  return {
    write(text) {
      if (closed || text === '') return;
      const buf = Buffer.from(text, 'utf8');
      let offset = 0;
      while (offset < buf.length) {
        try {
          offset += writeSync(fd, buf, offset);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EAGAIN') {
            Atomics.wait(sleeper, 0, 0, 2); // a non-blocking pipe is full: let the reader catch up
            continue;
          }
          if (code === 'EPIPE') {
            closed = true;
            return;
          }
          throw err;
        }
      }
    },
    get isTTY() {
      return (tty ??= fdIsTTY(fd));
    },
    get columns() {
      return this.isTTY ? (fd === 1 ? process.stdout.columns : process.stderr.columns) || 80 : 80;
    },
    get closed() {
      return closed;
    },
    fd,
  };
}

/**
 * `stream` for a person's eyes (docs/design.md "Text from outside is data"): control characters in what is
 * written show as escapes, tpa's own escapes pass (render/screen.ts). `tabs` false escapes tabs too.
 */
export function screenedStream(stream: Stream, tabs: boolean): Stream {
  return writingThrough(stream, (text) => stream.write(screenText(text, tabs)));
}

/** `stream` with its writes going through `write`: what else it says (a terminal? how wide?) is the stream's own. */
export function writingThrough(stream: Stream, write: (text: string) => void): Stream {
  return {
    write,
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    get closed() {
      return stream.closed;
    },
  };
}

/** `io` with other streams; its lazy parts (whether stdin is a terminal) stay lazy. */
export function withStreams(io: IO, streams: Partial<Pick<IO, 'stdout' | 'stderr'>>): IO {
  const own = Object.entries(streams).map(([name, stream]) => [name, { value: stream, enumerable: true }] as const);
  return Object.create(io, Object.fromEntries(own)) as IO;
}

/** The width tables on `stream` must fit: its columns on a terminal; none when piped (a file or a pipe has no width). */
export function terminalWidth(stream: Stream): number | undefined {
  return stream.isTTY ? stream.columns : undefined;
}

export function processIO(): IO {
  let stdinTTY: boolean | undefined;
  return {
    stdout: fdStream(1),
    stderr: fdStream(2),
    get stdinIsTTY() {
      return (stdinTTY ??= fdIsTTY(0));
    },
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdinStream: () => process.stdin,
  };
}
