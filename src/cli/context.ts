// What every command handler receives (STYLE.md): io, the resolved output format and colour,
// the active profile, and a lazily built client.
import { resolvePaths, resolveProfile, type Paths, type Profile } from '../auth/config.js';
import type { TpaClient } from '../client/client.js';
import { UsageError } from '../errors.js';
import type { IO } from './io.js';

import type { OutputFormat } from './formats.js';

export type { OutputFormat };

export interface GlobalOptions {
  profile?: string;
  output?: string;
  json?: boolean;
  color?: boolean;
  debug?: boolean;
  yes?: boolean;
}

export interface Context {
  io: IO;
  format: OutputFormat;
  /** Colours on stdout: a terminal, no NO_COLOR, no --no-color. */
  color: boolean;
  /** Colours on stderr, by the same rules. */
  colorErr: boolean;
  debug: boolean;
  yes: boolean;
  paths: Paths;
  profileName: string;
  canPrompt: boolean;
  profile(): Profile;
  client(): Promise<TpaClient>;
  /** A progress line on stderr, only when stderr is a terminal. */
  progress(text: string): void;
  /** A note on stderr, always (warnings, hints, "showing 20 of 1,234"). */
  note(text: string): void;
  close(): void;
}

/** --json, else --output (or TPA_OUTPUT, both checked by commander), else table on a terminal and json otherwise. */
export function outputFormat(opts: GlobalOptions, io: IO): OutputFormat {
  const chosen = opts.json ? 'json' : opts.output;
  return chosen ? (chosen as OutputFormat) : io.stdout.isTTY ? 'table' : 'json';
}

export function createContext(io: IO, opts: GlobalOptions): Context {
  const noColor = opts.color === false || (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '');
  const paths = resolvePaths(io.env);
  const profileName = opts.profile || 'local';
  let client: TpaClient | undefined;
  let profile: Profile | undefined;
  const ctx: Context = {
    io,
    format: outputFormat(opts, io),
    color: io.stdout.isTTY && !noColor,
    colorErr: io.stderr.isTTY && !noColor,
    debug: opts.debug === true,
    yes: opts.yes === true,
    paths,
    profileName,
    canPrompt: canPrompt(io),
    profile: () => (profile ??= resolveProfile(paths, profileName)),
    async client() {
      if (client) return client;
      const p = ctx.profile();
      if (p.env !== 'local') {
        throw new UsageError(`profile "${p.name}" points at ${p.env}; this version of tpa talks only to the embedded engine (profile local)`);
      }
      const [{ TpaClient }, { LocalTransport }] = await Promise.all([import('../client/client.js'), import('../client/local.js')]);
      client = new TpaClient(new LocalTransport(paths.dataDir, io.env), {
        debug: ctx.debug ? (line) => io.stderr.write(`[debug] ${line}\n`) : undefined,
      });
      return client;
    },
    progress(text) {
      if (io.stderr.isTTY) io.stderr.write(`${text}\n`);
    },
    note(text) {
      io.stderr.write(`${text}\n`);
    },
    close() {
      client?.close();
    },
  };
  return ctx;
}

/** Prompts only when stdin and stdout are terminals and TPA_PROMPT_DISABLED is unset (DESIGN.md section 2). */
export function canPrompt(io: IO): boolean {
  return io.stdinIsTTY && io.stdout.isTTY && !io.env.TPA_PROMPT_DISABLED;
}
