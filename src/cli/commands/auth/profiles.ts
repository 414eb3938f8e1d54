// What `auth status` and `auth logout` share: the saved profiles that have a credential saved.
import { savedProfiles, type Profile } from '../../../auth/config.js';
import type { Context } from '../../context.js';

/** The saved profiles with a credential saved (keychain or file), in the config's order. */
export async function loggedInProfiles(ctx: Context): Promise<Profile[]> {
  const { hasSavedCredential } = await import('../../../auth/credentials.js');
  const found: Profile[] = [];
  for (const p of savedProfiles(ctx.paths)) if (p.env !== 'local' && (await hasSavedCredential(ctx.paths, p.name, ctx.io.env, ctx.note))) found.push(p);
  return found;
}
