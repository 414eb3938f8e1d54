// `tpa` under a real pseudo-terminal (test/helpers/pty-drive.py types into it), and the screen a
// person would see at a given moment, drawn by a headless terminal emulator (@xterm/headless), so
// that a test can say "the total is on screen above the prompt at 80×30", not only "it was printed".
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import xterm from '@xterm/headless';
import { testEnv, TPA_BIN } from './cli.js';

const DRIVER = fileURLToPath(new URL('./pty-drive.py', import.meta.url));

export interface Step {
  /** Text to wait for (ANSI stripped), after the previous step's text. */
  expect?: string;
  /** Keystrokes to type once it appeared; a list is typed piece by piece. */
  send?: string | string[];
  /** A file to create once the text appeared, before typing: releases a process a test holds (hold-hook.mjs). */
  touch?: string;
}

export interface PtyResult {
  exit_code: number | null;
  signal: number | null;
  /** Everything written to the terminal, escapes stripped, CRLF as LF. */
  output: string;
  /** Everything written to the terminal as it arrived, escapes kept. */
  raw: string;
  /** For each step reached, how much of `raw` had arrived when its text was seen. */
  marks: number[];
  timed_out: boolean;
  error: string | null;
  failed_step: number | null;
}

export interface PtyOptions {
  /** TPA_HOME, and the working directory unless `cwd` says otherwise. */
  home: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  cols?: number;
  rows?: number;
}

export const ENTER = '\r';
export const BACKSPACE = '\x7f';
export const CTRL_C = '\x03';

/** The two terminal sizes every screen test is run at. */
export const SIZES = [
  { cols: 80, rows: 30 },
  { cols: 120, rows: 40 },
] as const;

/**
 * Runs `tpa <args>` under a pty, typing `steps`. The driver's time limits are for a program that
 * hangs, never for a slow machine: a minute a step, two and a half in all.
 */
export function ptyRun(args: string[], steps: Step[], options: PtyOptions): Promise<PtyResult> {
  // None of the parent's tpa settings leak in (the keychain policy is tpa's own default here), and
  // prompts stay enabled.
  // No pager unless a test asks for one (test/cli/pager.test.ts): a screen is what tpa itself drew.
  const env = testEnv({ home: options.home, env: { TPA_KEYRING: undefined, TERM: 'xterm-256color', PAGER: 'cat', ...options.env } });
  delete env.FORCE_COLOR;
  delete env.CI;
  // A variable the test sets to undefined is unset, whatever this process has.
  for (const [name, value] of Object.entries(options.env ?? {})) if (value === undefined) delete env[name];
  const script = {
    argv: [process.execPath, TPA_BIN, ...args],
    cwd: options.cwd ?? options.home,
    steps,
    cols: options.cols ?? 120,
    rows: options.rows ?? 40,
    step_timeout: 60,
    timeout: 150,
  };
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [DRIVER], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(stdout) as PtyResult);
      } catch {
        reject(new Error(`pty-drive.py exited ${code} without a report\nstdout: ${stdout}\nstderr: ${stderr}`));
      }
    });
    child.stdin.end(JSON.stringify(script));
  });
}

/**
 * The visible screen (its `rows` lines, trailing blanks trimmed) after a terminal of that size
 * received `raw`: what a person sees, with redrawn lines redrawn and scrolled-off lines gone.
 */
export async function screenOf(raw: string, cols: number, rows: number): Promise<string[]> {
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  // A pty turns LF into CRLF on the way out; the driver's raw text already holds what arrived.
  await new Promise<void>((resolve) => term.write(raw, resolve));
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) lines.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? '');
  term.dispose();
  return lines;
}

/** The screen at the moment step `index` saw its text (a prompt, for instance). */
export function screenAtStep(r: PtyResult, index: number, cols: number, rows: number): Promise<string[]> {
  const mark = r.marks[index];
  if (mark === undefined) throw new Error(`step ${index} was never reached:\n${r.error}\n${r.output}`);
  return screenOf(r.raw.slice(0, mark), cols, rows);
}
