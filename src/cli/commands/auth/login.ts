// tpa auth login: save a profile and its credential, once the service has accepted it. A key is
// taken only from a masked prompt, stdin or TPA_API_KEY, never from an argument, and never printed
// or logged.
import type { Profile } from '../../../auth/config.js';
import { readConfig, setDefaultProfile, httpsUnlessLoopback } from '../../../auth/config.js';
import type { Health } from '../../../client/types.js';
import { keyFormatProblem, maskKey } from '../../../domain/api-keys.js';
import { AuthError, TpaError, UsageError } from '../../../errors.js';
import type { TableTools } from '../../../render/output.js';
import { productionTls, profileTls, readPem, remoteTransport, type Context } from '../../context.js';
import { option, verb, type OptionValues } from '../../verb.js';
import { healthTable } from '../health/health.js';

const options = {
  env: option.withDefault('--env <env>', 'sandbox, staging (API key) or production (OAuth over mutual TLS)', 'sandbox', {
    values: ['sandbox', 'staging', 'production'],
  }),
  baseUrl: option.text('--base-url <url>', 'the service, e.g. http://127.0.0.1:4010 for tpa local serve'),
  withKeyStdin: option.flag('--with-key-stdin', 'read the API key from stdin (never pass a key as an argument)'),
  authUrl: option.text('--auth-url <url>', 'production: where POST /oauth2/token is (default: the base URL)'),
  clientId: option.text('--client-id <id>', 'production: the OAuth client id (the client certificate names it)'),
  cert: option.text('--cert <file>', 'production: the client certificate (PEM)'),
  key: option.text('--key <file>', 'production: its private key (PEM; the passphrase of an encrypted one is kept in the keychain)'),
  ca: option.text('--ca <file>', "the service's CA (PEM), kept in the profile: a private CA's, as a shared sandbox's (every --env)"),
  scopes: option.list('--scopes <scope...>', 'production: the scopes to ask tokens for (default: all the client is registered for)'),
  legacyTls: option.flag('--legacy-tls', 'allow TLS 1.2 for a legacy service (TLS 1.3 otherwise)'),
  passphraseStdin: option.flag('--passphrase-stdin', 'production: read the client key passphrase from stdin'),
  setDefault: option.flag('--set-default', 'make this profile the default: commands without -p use it (otherwise the default stays)'),
};

type LoginOptions = OptionValues<typeof options>;

export const login = verb({
  name: 'login',
  description: 'save a profile and its API key (masked prompt on a terminal, --with-key-stdin for scripts); the key is checked with the service first',
  options,
  examples: [
    'tpa auth login --env sandbox --base-url http://127.0.0.1:4010 --set-default',
    'tpa local keys create | tpa auth login --env sandbox --base-url http://127.0.0.1:4010 --with-key-stdin',
    'tpa local keys create | tpa auth login --env sandbox --base-url https://127.0.0.1:8443 --with-key-stdin --ca ca.pem   # a shared sandbox, its private CA kept',
    'tpa auth login --env production --base-url https://127.0.0.1:8443 --client-id acme-tpa --cert client.pem --key client-key.pem --ca ca.pem',
  ],
  async run(ctx, _args, opts) {
    if (ctx.io.env.TPA_API_KEY) throw new UsageError('TPA_API_KEY is set, and it overrides every saved key: unset it to log in');
    const env = opts.env;
    if (env === 'production') return loginProduction(ctx, opts);
    if (env !== 'sandbox' && env !== 'staging') throw new UsageError('--env must be sandbox, staging or production');
    const name = ctx.profileExplicit ? ctx.profileName : env;
    const stored = (await import('../../../auth/config.js')).readConfig(ctx.paths).profiles?.[name];
    const baseUrl = opts.baseUrl ?? stored?.base_url;
    if (!baseUrl) throw new UsageError('--base-url is required: where the service is, e.g. http://127.0.0.1:4010');
    // Before the key is read: a URL that could never be used asks for nothing.
    httpsUnlessLoopback(baseUrl);
    let key: string;
    if (opts.withKeyStdin) key = (await ctx.io.readStdin()).trim();
    else if (ctx.canPrompt) {
      const { askSecret } = await import('../../prompt.js');
      key = (await askSecret(`API key for ${env}`)).trim();
    } else throw new UsageError('no terminal to ask for the key on: pipe it in with --with-key-stdin (a key is never an argument)');
    const problem = keyFormatProblem(key, env);
    if (problem) throw new UsageError(`that is not a ${env} API key: ${problem}`);
    const [{ TpaClient }, { saveProfile }, { saveApiKey }] = await Promise.all([
      import('../../../client/client.js'),
      import('../../../auth/config.js'),
      import('../../../auth/credentials.js'),
    ]);
    // What the profile says of TLS (its CA, legacy_tls) holds for sandbox and staging as for production:
    // --ca is kept in it, as production keeps it; --ca-file is for this run only (said below).
    const ca = opts.ca ? (await import('node:path')).resolve(opts.ca) : stored?.ca;
    const tlsSettings = {
      ...(ca ? { ca } : {}),
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
    if (ctx.caFile && !ca)
      ctx.note(
        `--ca-file (or TPA_CA_FILE) is not kept in the profile: later commands of "${name}" trust its CA only with it again; keep it with --ca ${ctx.caFile} in place of --ca-file (or tpa config set profiles.${name}.ca FILE)`,
      );
    sayDefault(ctx, name, opts.setDefault === true);
    return {
      data: { profile: name, environment: env, base_url: baseUrl, key_id: health.key_id, scopes: health.scopes },
      table: (t) => healthTable(t, health),
    };
  },
});

/**
 * A login changes the default profile only when asked (--set-default): a new profile that silently
 * became the default would move the next command's money somewhere else. Either way, the note's last
 * line says which profile commands without -p use, and how to choose.
 */
function sayDefault(ctx: Context, name: string, set: boolean): void {
  if (set) setDefaultProfile(ctx.paths, name);
  const configured = readConfig(ctx.paths).default_profile ?? 'local';
  const env = ctx.io.env.TPA_PROFILE;
  if (set) ctx.note(`"${name}" is now the default profile: commands without -p use it (back to the embedded engine: tpa config set default_profile local)`);
  else ctx.note(`the default profile is still "${configured}": use this one with -p ${name}, or make it the default: tpa config set default_profile ${name}`);
  if (env && env !== name) ctx.note(`TPA_PROFILE=${env} is set, and it chooses the profile before the default does`);
}

/** Production: the client certificate gets a token from the token endpoint, which is tried on the service before anything is saved. */
async function loginProduction(ctx: Context, opts: LoginOptions) {
  const name = ctx.profileExplicit ? ctx.profileName : 'production';
  const need = (flag: string, value: string | undefined): string => {
    if (value === undefined || value === '') throw new UsageError(`--env production needs ${flag}`);
    return value;
  };
  const [{ resolve }, { saveProfile }, { openStore }, { TokenSource }, { TpaClient }] = await Promise.all([
    import('node:path'),
    import('../../../auth/config.js'),
    import('../../../auth/credentials.js'),
    import('../../../auth/oauth.js'),
    import('../../../client/client.js'),
  ]);
  const baseUrl = need('--base-url', opts.baseUrl).replace(/\/+$/, '');
  if (!/^https:\/\//.test(baseUrl)) throw new UsageError('production is served over HTTPS: --base-url must start with https://');
  if (opts.authUrl !== undefined && !/^https:\/\//.test(opts.authUrl)) throw new UsageError('--auth-url must start with https:// (tokens are credentials)');
  // The same rule as every base URL (no query, fragment or user name; a plain path), for both.
  httpsUnlessLoopback(baseUrl);
  if (opts.authUrl !== undefined) httpsUnlessLoopback(opts.authUrl);
  const profile: Profile = {
    name,
    env: 'production',
    base_url: baseUrl,
    auth_url: (opts.authUrl ?? baseUrl).replace(/\/+$/, ''),
    client_id: need('--client-id', opts.clientId),
    cert: resolve(need('--cert', opts.cert)),
    key: resolve(need('--key', opts.key)),
    ...(opts.ca ? { ca: resolve(opts.ca) } : {}),
    ...(opts.scopes ? { scopes: (await import('../../options.js')).listValue(opts.scopes) } : {}),
    ...(opts.legacyTls ? { legacy_tls: true } : {}),
  };
  const store = (await openStore(ctx.paths, ctx.io.env, ctx.note)).primary;
  let passphrase: string | undefined;
  if (/ENCRYPTED/.test(readPem('--key', profile.key!))) {
    if (opts.passphraseStdin) passphrase = (await ctx.io.readStdin()).replace(/\r?\n$/, '');
    else if (ctx.canPrompt) {
      const { askSecret } = await import('../../prompt.js');
      passphrase = await askSecret('Passphrase of the client key');
    } else throw new UsageError('the client key is encrypted: give its passphrase with --passphrase-stdin (it is kept in the keychain)');
  }
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
  sayDefault(ctx, name, opts.setDefault === true);
  return {
    data: { profile: name, environment: 'production', base_url: baseUrl, client_id: profile.client_id, scopes: health.scopes },
    table: (t: TableTools) => healthTable(t, health),
  };
}
