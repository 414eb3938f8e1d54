// What every command handler receives (docs/development.md "One command, one module"): io, the resolved output format and colour,
// the active profile, and a lazily built client.
import { httpsUnlessLoopback, readConfig, reservedNameProblem, resolvePaths, resolveProfile, type Paths, type Profile } from '../auth/config.js';
import type { TpaClient } from '../client/client.js';
import { AuthError, UsageError } from '../errors.js';
import { wrapProse } from '../render/text.js';
import { screenedStream, terminalWidth, withStreams, writingThrough, type IO, type Stream } from './io.js';
import type { HttpOptions } from '../client/http.js';
import type { RetryOptions } from '../client/retry.js';
import type { TlsMaterial } from '../client/tls.js';
import { readFileSync } from 'node:fs';

import type { OutputFormat } from './formats.js';
import type { OutputShape } from '../render/shape.js';
import { SHAPE_OPTIONS } from './command-word.js';
import { StatusLine } from './status-line.js';
import { setPlainPrompts } from './prompt-color.js';

export type { OutputFormat };

export interface GlobalOptions {
  profile?: string;
  output?: string;
  /** --json alone (true), or the fields of --json <fields> (program.ts jsonFields). */
  json?: boolean | string[];
  jq?: string;
  template?: string;
  color?: boolean;
  debug?: boolean;
  yes?: boolean;
  caFile?: string;
  /** false with --no-pager (pager.ts). */
  pager?: boolean;
}

export interface Context {
  io: IO;
  format: OutputFormat;
  /** Whether -o, --json, --jq, --template or TPA_OUTPUT chose the format (else it follows whether stdout is a terminal). */
  formatChosen: boolean;
  /** --json <fields>, --jq or --template (cli/shape.ts): the records shaped for a script; set before the command runs. */
  shape?: OutputShape;
  /** --json <fields>, --jq, --template as given, as argv words: a suggested command repeats them (options.ts outputArgs). */
  shapeArgs?: readonly string[];
  /** A filter that failed on records of what was done (listing.ts recordWriter): the error, and what was done. */
  filterFailure?: { err: UsageError; done: string };
  /** Colours on stdout: a terminal, no NO_COLOR, no --no-color. */
  color: boolean;
  /** Colours on stderr, by the same rules. */
  colorErr: boolean;
  debug: boolean;
  yes: boolean;
  /** --ca-file / TPA_CA_FILE: an extra CA to trust for HTTPS, for every profile. */
  caFile: string | undefined;
  paths: Paths;
  profileName: string;
  /** Whether --profile or TPA_PROFILE named the profile (else it is the default, local). */
  profileExplicit: boolean;
  canPrompt: boolean;
  profile(): Profile;
  client(): Promise<TpaClient>;
  /** The one progress line of a long job on stderr (src/cli/status-line.ts); notes go above it. */
  status: StatusLine;
  /** A note on stderr, always (warnings, hints, "showing 20 of 1,234"). */
  note(text: string): void;
  /**
   * Set by a command whose stdout is a document of another kind (an X12 file): a service's error body
   * is then never written there, only the error summary on stderr.
   */
  stdoutIsDocument?: boolean;
  close(): void;
}

/**
 * --json, --jq or --template: json (ndjson with -o ndjson: one record a line); else --output (or
 * TPA_OUTPUT, both checked by commander), else table on a terminal and json otherwise.
 */
export function outputFormat(opts: GlobalOptions, io: IO): OutputFormat {
  if (shaping(opts)) return opts.output === 'ndjson' ? 'ndjson' : 'json';
  const chosen = opts.output;
  return chosen ? (chosen as OutputFormat) : io.stdout.isTTY ? 'table' : 'json';
}

/** Whether --json, --jq or --template is given. */
export function shaping(opts: GlobalOptions): boolean {
  return SHAPE_OPTIONS.some((o) => opts[o.slice(2) as 'json' | 'jq' | 'template'] !== undefined);
}

export function createContext(given: IO, opts: GlobalOptions): Context {
  const format = outputFormat(opts, given);
  // A table, or anything on a terminal, is read by a person: its control characters are shown, not
  // obeyed. Piped json, ndjson and csv are data for scripts and go out exactly as they are.
  const screened: IO = format === 'table' || given.stdout.isTTY ? withStreams(given, { stdout: screenedStream(given.stdout, format !== 'table') }) : given;
  // The progress line is drawn on stderr as it is; whatever else reaches the terminal clears it first.
  const status = new StatusLine(screened.stderr);
  const io = withStreams(screened, { stdout: clearing(screened.stdout, status, true), stderr: clearing(screened.stderr, status, false) });
  const noColor = opts.color === false || (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '');
  const paths = resolvePaths(io.env);
  // --profile, else TPA_PROFILE (both in opts.profile), else the config's default_profile, else local.
  const explicit = opts.profile !== undefined && opts.profile !== '';
  const profileName = explicit ? opts.profile! : (readConfig(paths).default_profile ?? 'local');
  const reserved = reservedNameProblem(profileName, 'a profile name');
  if (reserved) throw new UsageError(explicit ? `--profile: ${reserved}` : `default_profile: ${reserved}`);
  let client: TpaClient | undefined;
  let profile: Profile | undefined;
  // The prompts (cli/prompt.ts) follow --no-color and NO_COLOR as the rest of stderr does.
  setPlainPrompts(!(io.stderr.isTTY && !noColor));
  const ctx: Context = {
    io,
    format,
    formatChosen: Boolean(shaping(opts) || opts.output),
    shapeArgs: [
      ...(Array.isArray(opts.json) && opts.json.length > 0 ? ['--json', opts.json.join(',')] : []),
      ...(opts.jq !== undefined ? ['--jq', opts.jq] : []),
      ...(opts.template !== undefined ? ['--template', opts.template] : []),
    ],
    color: io.stdout.isTTY && !noColor,
    colorErr: io.stderr.isTTY && !noColor,
    debug: opts.debug === true,
    yes: opts.yes === true,
    caFile: opts.caFile,
    paths,
    profileName,
    profileExplicit: explicit,
    // Asked only by a command that may prompt: telling whether stdin is a terminal loads node:tty
    // (with net and streams) whenever stdin is a character device, /dev/null included.
    get canPrompt() {
      return canPrompt(io);
    },
    profile: () => (profile ??= resolveProfile(paths, profileName)),
    async client() {
      client ??= await clientOf(ctx);
      return client;
    },
    status,
    note(text) {
      // On a terminal, wrapped at spaces to its width (render/text.ts), never mid-word; above the progress line.
      status.above(wrapProse(text, terminalWidth(io.stderr)));
    },
    close() {
      status.clear();
      client?.close();
    },
  };
  return ctx;
}

/** The client of the context's profile: in-process for a local one, else over HTTPS with its credential. */
async function clientOf(ctx: Context): Promise<TpaClient> {
  const { io, paths } = ctx;
  const p = ctx.profile();
  // The profile's key, once known, never shows in a --debug line, whatever carries it.
  const known: string[] = [];
  const { withoutKnown } = await import('../domain/secret-headers.js');
  const debug = ctx.debug ? (line: string) => io.stderr.write(`[debug] ${withoutKnown(line, known)}\n`) : undefined;
  const { TpaClient } = await import('../client/client.js');
  if (p.env === 'local') {
    const [{ LocalTransport }, { RetryingTransport }] = await Promise.all([import('../local/transport.js'), import('../client/retry.js')]);
    // The same retry rules in-process as over HTTP (a TPA_FAULT shows them without a server).
    return new TpaClient(new RetryingTransport(new LocalTransport(paths.dataDir, io.env, { note: ctx.note }, `local:${p.name}`), retryOptions(ctx)), {
      debug,
    });
  }
  if (!p.base_url)
    throw new UsageError(`profile "${p.name}" has no base_url`, { hint: `try: tpa auth login --profile ${p.name} --env ${p.env} --base-url <url>` });
  httpsUnlessLoopback(p.base_url);
  if (p.env === 'production') return new TpaClient(await productionTransport(ctx, p), { debug });
  const { findApiKey } = await import('../auth/credentials.js');
  const credential = await findApiKey(paths, p.name, p.env, io.env, ctx.note);
  if (!credential)
    throw new AuthError(`not logged in to profile "${p.name}"`, {
      hint: `try: tpa auth login --profile ${p.name} --env ${p.env} --base-url ${p.base_url} --with-key-stdin`,
    });
  known.push(credential.key);
  return new TpaClient(await remoteTransport(ctx, p.base_url, { apiKey: credential.key, tls: profileTls(ctx, p) }), { debug });
}

/** A PEM file named by a profile or an option; unreadable is a usage error naming it. */
export function readPem(what: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`${what}: cannot read ${file}`);
  }
}

/** The extra CA of --ca-file (or TPA_CA_FILE), for every profile. */
function caFile(ctx: Context): string | undefined {
  return ctx.caFile ? readPem('--ca-file', ctx.caFile) : undefined;
}

/**
 * The client certificate, key and CA of a production profile; the passphrase of an encrypted key is
 * the one given (at login) or the one kept in the credential store.
 */
export async function productionTls(ctx: Context, p: Profile, given?: string): Promise<TlsMaterial> {
  if (!p.cert || !p.key)
    throw new UsageError(`profile "${p.name}" has no client certificate and key`, { hint: `try: tpa auth login --profile ${p.name} --env production ...` });
  const key = readPem(`profile ${p.name} key`, p.key);
  let passphrase = given;
  if (passphrase === undefined && /ENCRYPTED/.test(key)) {
    const { openStore } = await import('../auth/credentials.js');
    passphrase = (await (await openStore(ctx.paths, ctx.io.env, ctx.note)).primary.get(`passphrase:${p.name}`)) ?? undefined;
    if (passphrase === undefined)
      throw new AuthError(`the client key of profile "${p.name}" is encrypted, and no passphrase is saved for it`, {
        hint: `try: tpa auth login --profile ${p.name} --env production ... --passphrase-stdin`,
      });
  }
  return { ...profileTls(ctx, p), cert: readPem(`profile ${p.name} cert`, p.cert), key, passphrase };
}

/**
 * What every profile that speaks HTTPS trusts and accepts, whatever its environment: its own CA (in
 * place of the system's store), --ca-file added, and TLS 1.2 when it says legacy_tls.
 */
export function profileTls(ctx: Context, p: Pick<Profile, 'name' | 'ca' | 'legacy_tls'>): TlsMaterial {
  const extraCa = caFile(ctx);
  return {
    ...(p.ca ? { ca: readPem(`profile ${p.name} ca`, p.ca) } : {}),
    ...(extraCa ? { extraCa } : {}),
    legacyTls: p.legacy_tls === true,
  };
}

async function productionTransport(ctx: Context, p: Profile) {
  if (!p.auth_url || !p.client_id)
    throw new UsageError(`profile "${p.name}" has no auth_url or client_id`, { hint: `try: tpa auth login --profile ${p.name} --env production ...` });
  // Tokens are credentials too: the token endpoint follows the same rule as the service.
  httpsUnlessLoopback(p.auth_url);
  const [{ TokenSource }, { openStore }] = await Promise.all([import('../auth/oauth.js'), import('../auth/credentials.js')]);
  const tls = await productionTls(ctx, p);
  const debug = ctx.debug ? (line: string) => ctx.io.stderr.write(`[debug] ${line}\n`) : undefined;
  const store = (await openStore(ctx.paths, ctx.io.env, ctx.note)).primary;
  const bearer = new TokenSource({ authUrl: p.auth_url, clientId: p.client_id, scopes: p.scopes, tls, store, account: `token:${p.name}`, debug });
  return remoteTransport(ctx, p.base_url!, { bearer, tls });
}

/** HTTP to a service, with the retry rules; waits for a rate limit are said on stderr. */
export async function remoteTransport(ctx: Context, baseUrl: string, credential: { apiKey?: string; bearer?: HttpOptions['bearer']; tls?: TlsMaterial }) {
  const [{ HttpTransport }, { RetryingTransport }] = await Promise.all([import('../client/http.js'), import('../client/retry.js')]);
  const debug = ctx.debug ? (line: string) => ctx.io.stderr.write(`[debug] ${line}\n`) : undefined;
  const extraCa = caFile(ctx);
  const tls = credential.tls ?? (extraCa ? { extraCa } : {});
  return new RetryingTransport(new HttpTransport({ baseUrl, apiKey: credential.apiKey, bearer: credential.bearer, tls, debug }), retryOptions(ctx));
}

/** Waits for a retry are said on stderr: inside the progress line while a job shows one. */
function retryOptions(ctx: Context): RetryOptions {
  return {
    onWait: ({ reason, waitMs, attempt, attempts }) => {
      const current = ctx.status.current;
      if (ctx.status.live && current) {
        const text = reason === 'rate limited' ? 'rate limited, resuming in' : `${reason}, trying again (${attempt + 1} of ${attempts}) in`;
        ctx.status.show({ ...current, wait: { untilMs: Date.now() + waitMs, text } }, true);
      } else ctx.note(`${reason}: waiting ${(waitMs / 1000).toFixed(1)}s before trying again (${attempt + 1} of ${attempts})`);
    },
  };
}

/**
 * `stream` with the progress line cleared before each write: stderr always, stdout when it is the
 * same terminal (a table printed over a half-drawn line would start mid-line).
 */
function clearing(stream: Stream, status: StatusLine, onlyOnTerminal: boolean): Stream {
  return writingThrough(stream, (text) => {
    if (!onlyOnTerminal || stream.isTTY) status.hide();
    stream.write(text);
  });
}

/** Prompts only when stdin and stdout are terminals and TPA_PROMPT_DISABLED is unset (docs/config.md "Credentials and config"). */
export function canPrompt(io: IO): boolean {
  return io.stdinIsTTY && io.stdout.isTTY && !io.env.TPA_PROMPT_DISABLED;
}
