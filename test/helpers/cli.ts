// Runs bin/tpa as a real process with its own TPA_HOME, and collects what it printed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
  timeoutMs?: number;
}

export function tpa(args: string[], options: RunOptions): Promise<RunResult> {
  const env: Record<string, string> = {};
  // Nothing of the parent's tpa settings leaks in: each test states its own.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('TPA_') && k !== 'NO_COLOR') env[k] = v;
  // No keychain unless a test asks for one: the keychain tests run apart, inside their own D-Bus session.
  for (const [k, v] of Object.entries({ TPA_HOME: options.home, TPA_ADJUDICATION_DELAY: '0', TPA_KEYRING: 'off', ...options.env })) if (v !== undefined) env[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TPA_BIN, ...args], { env, cwd: options.cwd ?? options.home, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr,
        json<T>() {
          return JSON.parse(stdout) as T;
        },
      });
    });
    child.stdin.end(options.input ?? '');
  });
}
