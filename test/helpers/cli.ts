// Runs tpa for a test, with its own TPA_HOME, and collects what it printed: `runTpa` in this process
// through the entry point (run(args, io) of src/cli/main.ts) with buffers for streams, `tpa` as a
// real process of bin/tpa for what needs one (kills, signals, pipes, terminals, several processes
// at once, start-up).
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { IO, Stream } from '../../src/cli/io.js';
import { tempDir } from './engine.js';

export const TPA_BIN = fileURLToPath(new URL('../../bin/tpa', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

export interface RunOptions {
  home: string;
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  /** How long a real process may take before it is taken for hung and killed. */
  timeoutMs?: number;
}

export interface InProcessOptions extends Omit<RunOptions, 'timeoutMs'> {
  /** Whether stdout and stderr are terminals (stdin never is: prompts need a pty, see fund-interactive). */
  tty?: boolean;
  /** The terminal's width when `tty`; 80 by default. */
  columns?: number;
}

/** The environment a command sees: nothing of the parent's tpa settings, then the test's own. */
export function testEnv(options: Pick<RunOptions, 'home' | 'env'>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TPA_') && k !== 'NO_COLOR') env[k] = v;
  // No keychain unless a test asks for one: the keychain tests run apart, inside their own D-Bus session.
  for (const [k, v] of Object.entries({ TPA_HOME: options.home, TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off', ...options.env }))
    if (v !== undefined) env[k] = v;
  return env;
}

function result(code: number | null, stdout: string, stderr: string): RunResult {
  return {
    code,
    stdout,
    stderr,
    json<T>() {
      return JSON.parse(stdout) as T;
    },
  };
}

/** `tpa <args>` as a real process. */
export function tpa(args: string[], options: RunOptions): Promise<RunResult> {
  const env = testEnv(options);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TPA_BIN, ...args], { env, cwd: options.cwd ?? options.home, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    // Only for a hung process: the result never depends on it.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(result(code, stdout, stderr));
    });
    child.stdin.end(options.input ?? '');
  });
}

/**
 * Options commander reads from process.env itself (Option.env), not from io.env: they are set there
 * for the length of a run, and runs take turns.
 */
const COMMANDER_ENV = ['TPA_PROFILE', 'TPA_OUTPUT', 'TPA_CA_FILE'];
let turn: Promise<unknown> = Promise.resolve();

function bufferStream(tty: boolean, columns: number): Stream & { text: string } {
  return {
    text: '',
    write(text: string) {
      this.text += text;
    },
    isTTY: tty,
    columns: tty ? columns : 80,
    closed: false,
  };
}

/**
 * `tpa <args>` in this process, as `tpa` would run it: the same environment, stdin, working
 * directory (cwd, else the home) and exit code. One run at a time: the working directory and the
 * variables commander reads are the process's.
 */
export function runTpa(args: string[], options: InProcessOptions): Promise<RunResult> {
  const mine = turn.then(() => runNow(args, options));
  turn = mine.catch(() => undefined);
  return mine;
}

async function runNow(args: string[], options: InProcessOptions): Promise<RunResult> {
  const { run } = await import('../../src/cli/main.js');
  const env = testEnv(options);
  const stdout = bufferStream(options.tty ?? false, options.columns ?? 80);
  const stderr = bufferStream(options.tty ?? false, options.columns ?? 80);
  const input = options.input ?? '';
  const io: IO = {
    stdout,
    stderr,
    stdinIsTTY: false,
    env,
    readStdin: async () => input,
    stdinStream: () => Readable.from([Buffer.from(input, 'utf8')], { objectMode: false }),
  };
  const cwd = process.cwd();
  const saved = COMMANDER_ENV.map((k) => [k, process.env[k]] as const);
  for (const k of COMMANDER_ENV) {
    if (env[k] === undefined) delete process.env[k];
    else process.env[k] = env[k];
  }
  process.chdir(options.cwd ?? options.home);
  try {
    const code = await run(args, io);
    return result(code, stdout.text, stderr.text);
  } finally {
    process.chdir(cwd);
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export interface TpaHome {
  /** The TPA_HOME of the test (or of the file). */
  readonly dir: string;
  /** runTpa in this home, with the home's environment and then `env`. */
  run(args: string[], env?: Record<string, string>, input?: string): Promise<RunResult>;
}

type Hook = (fn: () => void) => void;

/**
 * A fresh TPA_HOME, made and removed by the hooks given: beforeEach/afterEach for one per test,
 * beforeAll/afterAll for one per file. `env` goes to every run in it.
 */
export function useTpaHome(before: Hook, after: Hook, env: Record<string, string> = {}): TpaHome {
  let home: ReturnType<typeof tempDir> | undefined;
  before(() => {
    home = tempDir();
  });
  after(() => home?.remove());
  const dir = () => {
    if (!home) throw new Error('useTpaHome: no home outside its hooks');
    return home.dir;
  };
  return {
    get dir() {
      return dir();
    },
    run: (args, more = {}, input) => runTpa(args, { home: dir(), env: { ...env, ...more }, input }),
  };
}
