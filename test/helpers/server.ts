// Starts `tpa local serve` on a free port of 127.0.0.1 for a test, and stops it after.
import { spawn, type ChildProcess } from 'node:child_process';
import { TPA_BIN, tpa } from './cli.js';

export interface Served {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<number | null>;
}

export async function serve(home: string, args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TPA_')) childEnv[k] = v;
  Object.assign(childEnv, { TPA_HOME: home, TPA_ADJUDICATION_DELAY: '0', ...env });
  const child = spawn(process.execPath, [TPA_BIN, 'local', 'serve', '--port', '0', '--host', '127.0.0.1', ...args], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tpa local serve did not start: ${stderr}`)), 15_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.on('exit', (code) => reject(new Error(`tpa local serve exited ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
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
  const r = await tpa(['local', 'keys', 'create', ...args], { home });
  if (r.code !== 0) throw new Error(`keys create failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** Logs a profile named `sandbox` in to the server with a new key; returns the key. */
export async function login(home: string, url: string): Promise<string> {
  const key = await createKey(home);
  const r = await tpa(['auth', 'login', '--env', 'sandbox', '--base-url', url, '--with-key-stdin'], { home, input: key });
  if (r.code !== 0) throw new Error(`auth login failed: ${r.stderr}`);
  return key;
}
