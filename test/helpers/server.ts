// Starts `tpa local serve` on a free port of 127.0.0.1 for a test, and stops it after.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { until } from './barrier.js';
import { type RunResult, runTpa, TPA_BIN, testEnv } from './cli.js';
import { tempDir } from './engine.js';
import { collectMismatches } from './openapi.js';

/** The preload that checks every exchange of the server against docs/openapi.yaml (test/helpers/openapi-hook.mjs). */
const OPENAPI_HOOK = new URL('./openapi-hook.mjs', import.meta.url).pathname;

export interface Served {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /**
   * Resolves once the access log (stderr) holds every request answered so far. The server writes a
   * line once an answer is sent, which may be after the answer arrived at the client: a marker
   * request is sent, and its line, written after theirs, awaited. TLS servers that ask for a client
   * certificate take PEM files for one.
   */
  settled(tls?: { cert: string; key: string; ca: string }): Promise<void>;
  stop(): Promise<number | null>;
}

/** The scopes of the contract (docs/api.md), which the tests' OAuth client acme-tpa is registered with. */
export const SPEC_SCOPES = ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access'];

export async function serve(home: string, args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  // A mutual-TLS server gives tokens to registered clients only: the tests log in as acme-tpa (the
  // client of test/helpers/certs.ts), registered here as its operator would, with the four scopes
  // of the contract (docs/api.md). Tests of registration itself use other client ids.
  if (args.includes('--client-ca')) await registerClient(home, 'acme-tpa', SPEC_SCOPES);
  const childEnv = testEnv({ home, env });
  // A port and a host of the test's own replace these (an option is given once).
  const defaults = [...(args.includes('--port') ? [] : ['--port', '0']), ...(args.includes('--host') ? [] : ['--host', '127.0.0.1'])];
  const child = spawn(process.execPath, ['--import', OPENAPI_HOOK, TPA_BIN, 'local', 'serve', ...defaults, ...args], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    collectMismatches(d);
  });
  // However long it takes to start: the test's own timeout is the bound.
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) resolve(line.trim());
    });
    child.on('exit', (code) => reject(new Error(`tpa local serve exited ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async settled(tls) {
      const marker = `/settled-${Math.random().toString(36).slice(2)}`;
      await new Promise<void>((resolve, reject) => {
        const done = (res: import('node:http').IncomingMessage) => {
          res.resume();
          res.on('end', resolve);
        };
        const req = url.startsWith('https:')
          ? httpsRequest(
              `${url}${marker}`,
              {
                agent: false,
                ...(tls ? { cert: readFileSync(tls.cert), key: readFileSync(tls.key), ca: readFileSync(tls.ca) } : { rejectUnauthorized: false }),
              },
              done,
            )
          : httpRequest(`${url}${marker}`, { agent: false }, done);
        req.on('error', reject);
        req.end();
      });
      await until(() => stderr.includes(`GET ${marker} `));
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        // Only for a server that hangs on SIGTERM.
        const kill = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.once('exit', (code) => {
          clearTimeout(kill);
          resolve(code);
        });
        child.kill('SIGTERM');
      }),
  };
}

/** A new API key from `tpa local keys create`. */
export async function createKey(home: string, ...args: string[]): Promise<string> {
  const r = await runTpa(['local', 'keys', 'create', ...args], { home });
  if (r.code !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Logs a profile named `sandbox` in to the server with a new key; returns the key. */
export async function login(home: string, url: string): Promise<string> {
  const key = await createKey(home);
  // Made the default, as the tests that use it expect: commands without -p go to the server.
  const r = await runTpa(['auth', 'login', '--env', 'sandbox', '--base-url', url, '--with-key-stdin', '--set-default'], { home, input: key });
  if (r.code !== 0) throw new Error(`auth login failed: ${r.stderr}`);
  return key;
}

/** Registers an OAuth client of the mutual-TLS server with `tpa local clients register`. */
export async function registerClient(home: string, clientId: string, scopes: string[]): Promise<void> {
  const r = await runTpa(['local', 'clients', 'register', clientId, '--scopes', ...scopes], { home });
  if (r.code !== 0) throw new Error(`clients register failed: ${r.stderr}`);
}

type Hook = (fn: () => Promise<void> | void) => void;

/** What `useServedHome` keeps for a file: a fresh home, `tpa local serve` on it, and a sandbox key of it. */
export interface ServedHome {
  home: { dir: string; remove: () => void };
  server: Served;
  key: string;
}

/**
 * A served home for a whole file, made and stopped by the hooks given (beforeAll/afterAll): `set`
 * receives it once started, so that a file keeps its own names for the three.
 */
export function useServedHome(before: Hook, after: Hook, set: (served: ServedHome) => void): void {
  let served: ServedHome | undefined;
  before(async () => {
    const home = tempDir();
    const server = await serve(home.dir);
    served = { home, server, key: await createKey(home.dir) };
    set(served);
  });
  after(async () => {
    await served?.server.stop();
    served?.home.remove();
  });
}

/** The same commands in-process and over `tpa local serve`, on one home (`useServedSides`). */
export interface ServedSides {
  /** The TPA_HOME both sides share. */
  readonly dir: string;
  /** runTpa in the home, on the local engine. */
  local(args: string[]): Promise<RunResult>;
  /** runTpa in the home, through the server with the sandbox profile logged in to it. */
  remote(args: string[]): Promise<RunResult>;
}

/**
 * A fresh home with its stored engine clock set to `clock` (which the server and in-process commands
 * share), `tpa local serve` on it and the sandbox profile logged in, made and stopped by the hooks
 * given (beforeEach/afterEach for one per test).
 */
export function useServedSides(before: Hook, after: Hook, clock: string): ServedSides {
  let home: ReturnType<typeof tempDir> | undefined;
  let server: Served | undefined;
  const dir = () => {
    if (!home) throw new Error('useServedSides: no home outside its hooks');
    return home.dir;
  };
  const sides: ServedSides = {
    get dir() {
      return dir();
    },
    local: (args) => runTpa(args, { home: dir() }),
    remote: (args) => runTpa(args, { home: dir(), env: { TPA_PROFILE: 'sandbox' } }),
  };
  before(async () => {
    home = tempDir();
    const set = await sides.local(['local', 'clock', 'set', clock]);
    if (set.code !== 0) throw new Error(`local clock set failed: ${set.stderr}`);
    server = await serve(home.dir);
    await login(home.dir, server.url);
  });
  after(async () => {
    await server?.stop();
    home?.remove();
  });
  return sides;
}
