// tpa auth status: the profile, where its credential is kept, the key by prefix and last four, and
// its scopes as the service sees them; without -p, every profile that has a saved credential.
import type { Profile } from '../../../auth/config.js';
import type { Health } from '../../../client/types.js';
import { maskKey } from '../../../domain/api-keys.js';
import { AuthError, TpaError } from '../../../errors.js';
import type { TableTools } from '../../../render/output.js';
import type { Context } from '../../context.js';
import { verb } from '../../verb.js';
import { loggedInProfiles } from './profiles.js';

/**
 * With -p (or TPA_PROFILE), that profile; without, every profile that has a saved credential, as
 * `gh auth status` does (the embedded engine when none has).
 */
export const status = verb({
  name: 'status',
  description: 'the profile, where its key is kept (keychain or file), the key by prefix and last four, its scopes; exit 5 when not logged in',
  fields: ['profile', 'environment', 'logged_in', 'credential'],
  examples: ['tpa auth status -p sandbox'],
  async run(ctx, _args, _opts, cmd) {
    if (ctx.profileExplicit) return profileStatus(ctx);
    const profiles = await loggedInProfiles(ctx);
    if (profiles.length === 0) {
      ctx.note('no profile has a saved credential: log in with tpa auth login --env sandbox --base-url <url>');
      return profileStatus(ctx);
    }
    const { createContext } = await import('../../context.js');
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
  },
});

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
  const { findApiKey } = await import('../../../auth/credentials.js');
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
  const { openStore } = await import('../../../auth/credentials.js');
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
