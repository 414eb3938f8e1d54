// tpa auth logout: the profile's credential removed from wherever it is kept; the profile stays.
import { UsageError } from '../../../errors.js';
import { verb } from '../../verb.js';
import { loggedInProfiles } from './profiles.js';

/**
 * Removes the profile's key from wherever it is (keychain, file); the profile itself stays. Without
 * -p: the one profile that has a saved credential, or the one chosen on a terminal among several.
 */
export const logout = verb({
  name: 'logout',
  description: "remove the profile's key from wherever it is kept",
  examples: ['tpa auth logout -p sandbox'],
  async run(ctx) {
    let profile = ctx.profileExplicit ? ctx.profile() : undefined;
    if (!profile) {
      const profiles = await loggedInProfiles(ctx);
      if (profiles.length === 0) throw new UsageError('no profile has a saved credential: there is nothing to log out of');
      if (profiles.length === 1) profile = profiles[0]!;
      else if (ctx.canPrompt) {
        const { choose } = await import('../../prompt.js');
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
    const { removeApiKey, openStore } = await import('../../../auth/credentials.js');
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
  },
});
