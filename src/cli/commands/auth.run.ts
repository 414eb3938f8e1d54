// Handlers of `tpa auth` and `tpa health` (declared in auth.ts). A key is taken only from a masked
// prompt, stdin or TPA_API_KEY, never from an argument, and never printed or logged.
import type { Profile } from '../../auth/config.js';
import type { Health } from '../../client/types.js';
import { defaultProfileIfUnset, httpsUnlessLoopback, savedProfiles } from '../../auth/config.js';
import { keyFormatProblem, maskKey } from '../../domain/api-keys.js';
import { AuthError, TpaError, UsageError } from '../../errors.js';
import type { TableTools } from '../../render/output.js';
import type { Handler, Options } from '../action.js';
import { profileTls, readPem, remoteTransport, type Context } from '../context.js';

const masked = (id: string | null, prefix?: string, last4?: string) => (prefix && last4 ? `${prefix}…${last4}` : (id ?? '—'));

function healthTable(t: TableTools, h: Health): string {
  return t.keyValues([
    ['Status', h.status === 'ok' ? t.c.green('ok') : t.c.red(h.status)],
    ['Environment', h.environment],
    ['Key', h.key_id ?? '—'],
    ['Scopes', h.scopes.join(', ')],
    ['Service time', h.time],
  ]);
}

export const login: Handler = async (ctx, _args, opts) => {
  if (ctx.io.env.TPA_API_KEY) throw new UsageError('TPA_API_KEY is set, and it overrides every saved key: unset it to log in');
  const env = String(opts.env);
  if (env === 'production') return loginProduction(ctx, opts);
  if (env !== 'sandbox' && env !== 'staging') throw new UsageError('--env must be sandbox, staging or production');
  const name = ctx.profileExplicit ? ctx.profileName : env;
  const stored = (await import('../../auth/config.js')).readConfig(ctx.paths).profiles?.[name];
  const baseUrl = (opts.baseUrl as string | undefined) ?? stored?.base_url;
  if (!baseUrl) throw new UsageError('--base-url is required: where the service is, e.g. http://127.0.0.1:4010');
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new UsageError(`--base-url: "${baseUrl}" is not an http(s) URL`);
  }
  let key: string;
  if (opts.withKeyStdin) key = (await ctx.io.readStdin()).trim();
  else if (ctx.canPrompt) {
    const { askSecret } = await import('../prompt.js');
    key = (await askSecret(`API key for ${env}`)).trim();
  } else throw new UsageError('no terminal to ask for the key on: pipe it in with --with-key-stdin (a key is never an argument)');
  const problem = keyFormatProblem(key, env);
  if (problem) throw new UsageError(`that is not a ${env} API key: ${problem}`);
  httpsUnlessLoopback(baseUrl);
  const [{ TpaClient }, { saveProfile }, { saveApiKey }] = await Promise.all([
    import('../../client/client.js'),
    import('../../auth/config.js'),
    import('../../auth/credentials.js'),
  ]);
  // What the profile says of TLS (its CA, legacy_tls) holds for sandbox and staging as for production.
  const tlsSettings = {
    ...(stored?.ca ? { ca: stored.ca } : {}),
    ...(opts.legacyTls || stored?.legacy_tls === true ? { legacy_tls: true } : {}),
  };
  const client = new TpaClient(await remoteTransport(ctx, baseUrl, { apiKey: key, tls: profileTls(ctx, { name, ...tlsSettings }) }));
  let health: Health;
  try {
    health = (await client.health()).body;
  } catch (err) {
    if (err instanceof TpaError && err.exitCode === 5) throw new AuthError(`the service at ${baseUrl} refused the key: ${err.message}; nothing was saved`);
    throw err;
  }
  const profile: Profile = { name, env, base_url: baseUrl, ...tlsSettings };
  const store = await saveApiKey(ctx.paths, name, key, ctx.io.env, ctx.note);
  saveProfile(ctx.paths, profile);
  ctx.note(`saved profile "${name}"; its key (${maskKey(key)}) is in ${store.location}`);
  sayDefault(ctx, name);
  return { data: { profile: name, environment: env, base_url: baseUrl, key_id: health.key_id, scopes: health.scopes }, table: (t) => healthTable(t, health) };
};

/**
 * The first profile logged in to becomes the default (commands without -p use it), as `gh` does;
 * a default already chosen stays. Either way, the note says how to choose.
 */
function sayDefault(ctx: Context, name: string): void {
  if (defaultProfileIfUnset(ctx.paths, name)) {
    ctx.note(`"${name}" is now the default profile: commands without -p use it (tpa config set default_profile local to use the embedded engine again)`);
  } else ctx.note(`use it with -p ${name} or TPA_PROFILE=${name} (or make it the default: tpa config set default_profile ${name})`);
}

/** Production: the client certificate gets a token from the token endpoint, which is tried on the service before anything is saved. */
async function loginProduction(ctx: Context, opts: Options) {
  const name = ctx.profileExplicit ? ctx.profileName : 'production';
  const need = (flag: string, value: unknown): string => {
    if (typeof value !== 'string' || value === '') throw new UsageError(`--env production needs ${flag}`);
    return value;
  };
  const [{ resolve }, { saveProfile }, { openStore }, { TokenSource }, { TpaClient }] = await Promise.all([
    import('node:path'),
    import('../../auth/config.js'),
    import('../../auth/credentials.js'),
    import('../../auth/oauth.js'),
    import('../../client/client.js'),
  ]);
  const baseUrl = need('--base-url', opts.baseUrl).replace(/\/+$/, '');
  if (!/^https:\/\//.test(baseUrl)) throw new UsageError('production is served over HTTPS: --base-url must start with https://');
  if (opts.authUrl !== undefined && !/^https:\/\//.test(String(opts.authUrl)))
    throw new UsageError('--auth-url must start with https:// (tokens are credentials)');
  const profile: Profile = {
    name,
    env: 'production',
    base_url: baseUrl,
    auth_url: ((opts.authUrl as string | undefined) ?? baseUrl).replace(/\/+$/, ''),
    client_id: need('--client-id', opts.clientId),
    cert: resolve(need('--cert', opts.cert)),
    key: resolve(need('--key', opts.key)),
    ...(opts.ca ? { ca: resolve(String(opts.ca)) } : {}),
    ...(opts.scopes ? { scopes: (await import('../options.js')).listValue(opts.scopes) } : {}),
    ...(opts.legacyTls ? { legacy_tls: true } : {}),
  };
  const store = (await openStore(ctx.paths, ctx.io.env, ctx.note)).primary;
  let passphrase: string | undefined;
  if (/ENCRYPTED/.test(readPem('--key', profile.key!))) {
    if (opts.passphraseStdin) passphrase = (await ctx.io.readStdin()).replace(/\r?\n$/, '');
    else if (ctx.canPrompt) {
      const { askSecret } = await import('../prompt.js');
      passphrase = await askSecret('Passphrase of the client key');
    } else throw new UsageError('the client key is encrypted: give its passphrase with --passphrase-stdin (it is kept in the keychain)');
  }
  const { productionTls } = await import('../context.js');
  const tls = await productionTls(ctx, profile, passphrase);
  const debug = ctx.debug ? (line: string) => ctx.io.stderr.write(`[debug] ${line}\n`) : undefined;
  const bearer = new TokenSource({
    authUrl: profile.auth_url!,
    clientId: profile.client_id!,
    scopes: profile.scopes,
    tls,
    store,
    account: `token:${name}`,
    debug,
  });
  await bearer.token(true);
  const health = (await new TpaClient(await remoteTransport(ctx, baseUrl, { bearer, tls })).health()).body;
  if (passphrase !== undefined) await store.set(`passphrase:${name}`, passphrase);
  saveProfile(ctx.paths, profile);
  ctx.note(`saved production profile "${name}"; its access token${passphrase !== undefined ? ' and key passphrase are' : ' is'} kept in ${store.location}`);
  sayDefault(ctx, name);
  return {
    data: { profile: name, environment: 'production', base_url: baseUrl, client_id: profile.client_id, scopes: health.scopes },
    table: (t: TableTools) => healthTable(t, health),
  };
}

export const health: Handler = async (ctx) => {
  const h = (await (await ctx.client()).health()).body;
  return { data: h, table: (t) => healthTable(t, h) };
};

export const keys: Handler = async (ctx) => {
  const body = (await (await ctx.client()).keys()).body;
  return {
    data: body,
    items: body.keys,
    table: (t) =>
      t.table(
        ['Id', 'Key', 'Scopes', 'Created', 'Expires'],
        body.keys.map((k) => [k.id, masked(k.id, k.prefix, k.last4), k.scopes.join(', '), k.created_at, k.expires_at ?? 'never']),
      ),
  };
};

export const rotate: Handler = async (ctx) => {
  const profile = ctx.profile();
  if (profile.env === 'local')
    throw new UsageError('the embedded engine in-process has no API key to rotate: use a profile that talks to a service (-p sandbox)');
  if (profile.env === 'production') throw new UsageError('production uses OAuth tokens, not API keys: there is no key to rotate');
  const { saveApiKey, openStore } = await import('../../auth/credentials.js');
  // Make sure the new key can be kept before the service issues it.
  await openStore(ctx.paths, ctx.io.env, ctx.note);
  const body = (await (await ctx.client()).rotateKey()).body;
  const fromEnv = Boolean(ctx.io.env.TPA_API_KEY);
  if (fromEnv) {
    // The key in use came from the environment, so there is nowhere to save the new one but the terminal.
    ctx.note('TPA_API_KEY is set, so the new key is not saved: it is printed once on stdout; put it where TPA_API_KEY comes from');
    ctx.io.stdout.write(`${body.api_key}\n`);
    return { exitCode: 0 };
  }
  let store;
  try {
    store = await saveApiKey(ctx.paths, profile.name, body.api_key, ctx.io.env, ctx.note);
  } catch (err) {
    // The old key dies in 24 hours: the new one must not be lost. Shown once, on stderr.
    ctx.note(`could not save the new key (${(err as Error).message}); here it is, once: ${body.api_key}`);
    throw new AuthError('the new key was issued but not saved: save it yourself (TPA_API_KEY or tpa auth login --with-key-stdin)');
  }
  ctx.note(`saved the new key for profile "${profile.name}" in ${store.location}; the old key stops working at ${body.previous_key_expires_at}`);
  const out = { key_id: body.key_id, previous_key_expires_at: body.previous_key_expires_at, saved_to_profile: profile.name };
  return {
    data: out,
    table: (t) =>
      t.keyValues([
        ['New key', body.key_id],
        ['Old key stops working', body.previous_key_expires_at],
        ['Saved to profile', profile.name],
      ]),
  };
};

/** The saved profiles with a credential saved (keychain or file), in the config's order. */
async function loggedInProfiles(ctx: Context): Promise<Profile[]> {
  const { hasSavedCredential } = await import('../../auth/credentials.js');
  const found: Profile[] = [];
  for (const p of savedProfiles(ctx.paths)) if (p.env !== 'local' && (await hasSavedCredential(ctx.paths, p.name, ctx.io.env, ctx.note))) found.push(p);
  return found;
}

/**
 * With -p (or TPA_PROFILE), that profile; without, every profile that has a saved credential, as
 * `gh auth status` does (the embedded engine when none has).
 */
export const status: Handler = async (ctx, _args, _opts, cmd) => {
  if (ctx.profileExplicit) return profileStatus(ctx);
  const profiles = await loggedInProfiles(ctx);
  if (profiles.length === 0) {
    ctx.note('no profile has a saved credential: log in with tpa auth login --env sandbox --base-url <url>');
    return profileStatus(ctx);
  }
  const { createContext } = await import('../context.js');
  const results: { data: unknown; table: (t: TableTools) => string; failure?: TpaError }[] = [];
  for (const p of profiles) {
    const sub = createContext(ctx.io, { ...cmd.optsWithGlobals(), profile: p.name });
    try {
      const out = await profileStatus(sub);
      results.push({ data: out.data, table: out.table });
    } catch (err) {
      if (!(err instanceof TpaError)) throw err;
      const data = { profile: p.name, environment: p.env, base_url: p.base_url ?? null, error: err.message };
      results.push({
        data,
        table: (t) =>
          t.keyValues([
            ['Profile', p.name],
            ['Environment', p.env],
            ['Service', p.base_url ?? '—'],
            ['Problem', t.c.red(err.message)],
          ]),
        failure: err,
      });
    } finally {
      sub.close();
    }
  }
  const failure = results.find((r) => r.failure)?.failure;
  return { data: results.map((r) => r.data), table: (t) => results.map((r) => r.table(t)).join('\n\n'), exitCode: failure?.exitCode ?? 0 };
};

/** Profile, environment, where the key is kept, the key by prefix and last four, scopes from the service. */
async function profileStatus(ctx: Context): Promise<{ data: unknown; table: (t: TableTools) => string }> {
  const profile = ctx.profile();
  if (profile.env === 'local') {
    return {
      data: { profile: profile.name, environment: 'local', logged_in: true, credential: null },
      table: (t: TableTools) => t.keyValues([['Profile', `${profile.name} (the embedded engine: no credentials needed)`]]),
    };
  }
  if (profile.env === 'production') return productionStatus(ctx, profile);
  const { findApiKey } = await import('../../auth/credentials.js');
  const found = await findApiKey(ctx.paths, profile.name, profile.env, ctx.io.env, ctx.note);
  if (!found)
    throw new AuthError(`not logged in to profile "${profile.name}"`, {
      hint: `try: tpa auth login --profile ${profile.name} --env ${profile.env}${profile.base_url ? ` --base-url ${profile.base_url}` : ''}`,
    });
  const where = found.source === 'TPA_API_KEY' ? 'TPA_API_KEY (environment)' : found.source.location;
  let health: Health | undefined;
  let problem: string | undefined;
  try {
    health = (await (await ctx.client()).health()).body;
  } catch (err) {
    if (err instanceof TpaError && err.exitCode === 5) throw err;
    problem = (err as Error).message;
  }
  const data = {
    profile: profile.name,
    environment: profile.env,
    base_url: profile.base_url ?? null,
    credential: { stored_in: where, key: maskKey(found.key) },
    key_id: health?.key_id ?? null,
    scopes: health?.scopes ?? null,
    ...(problem ? { service_error: problem } : {}),
  };
  return {
    data,
    table: (t: TableTools) =>
      t.keyValues([
        ['Profile', profile.name],
        ['Environment', profile.env],
        ['Service', profile.base_url ?? '—'],
        ['Key', data.credential.key],
        ['Stored in', where],
        ['Scopes', health ? health.scopes.join(', ') : `unknown (${problem})`],
      ]),
  };
}

async function productionStatus(ctx: Context, profile: Profile) {
  const { openStore } = await import('../../auth/credentials.js');
  const store = (await openStore(ctx.paths, ctx.io.env, ctx.note)).primary;
  const cached = await store.get(`token:${profile.name}`);
  const expires = cached ? new Date((JSON.parse(cached) as { expires_at: number }).expires_at).toISOString() : null;
  const health = (await (await ctx.client()).health()).body;
  const data = {
    profile: profile.name,
    environment: 'production',
    base_url: profile.base_url ?? null,
    client_id: profile.client_id ?? null,
    certificate: profile.cert ?? null,
    credential: { stored_in: store.location, token_expires_at: expires },
    scopes: health.scopes,
  };
  return {
    data,
    table: (t: TableTools) =>
      t.keyValues([
        ['Profile', profile.name],
        ['Environment', 'production (OAuth over mutual TLS)'],
        ['Service', profile.base_url ?? '—'],
        ['Client', `${profile.client_id ?? '—'} (certificate ${profile.cert ?? '—'})`],
        ['Token cached in', `${store.location}${expires ? `, until ${expires}` : ''}`],
        ['Scopes', health.scopes.join(', ')],
      ]),
  };
}

/**
 * Removes the profile's key from wherever it is (keychain, file); the profile itself stays. Without
 * -p: the one profile that has a saved credential, or the one chosen on a terminal among several.
 */
export const logout: Handler = async (ctx) => {
  let profile = ctx.profileExplicit ? ctx.profile() : undefined;
  if (!profile) {
    const profiles = await loggedInProfiles(ctx);
    if (profiles.length === 0) throw new UsageError('no profile has a saved credential: there is nothing to log out of');
    if (profiles.length === 1) profile = profiles[0]!;
    else if (ctx.canPrompt) {
      const { choose } = await import('../prompt.js');
      const name = await choose(
        'Log out of which profile?',
        profiles.map((p) => ({ name: `${p.name} (${p.env}, ${p.base_url ?? '—'})`, value: p.name })),
      );
      profile = profiles.find((p) => p.name === name)!;
    } else {
      throw new UsageError(`several profiles have a saved credential (${profiles.map((p) => p.name).join(', ')}): name one with -p`);
    }
  }
  if (profile.env === 'local') throw new UsageError('the embedded engine has no credentials to remove: name a profile with -p');
  const { removeApiKey, openStore } = await import('../../auth/credentials.js');
  const removed = await removeApiKey(ctx.paths, profile.name, ctx.io.env, ctx.note);
  // A production profile's cached token and key passphrase go too.
  const { primary } = await openStore(ctx.paths, ctx.io.env, ctx.note);
  for (const account of [`token:${profile.name}`, `passphrase:${profile.name}`]) if (await primary.delete(account)) removed.push(primary);
  if (ctx.io.env.TPA_API_KEY) ctx.note('TPA_API_KEY is still set in this environment, and it overrides every store');
  const from = removed.map((s) => s.location);
  return {
    data: { profile: profile.name, removed_from: from },
    table: () => (from.length > 0 ? `logged out of "${profile.name}": key removed from ${from.join(' and ')}` : `no key was saved for "${profile.name}"`),
  };
};
