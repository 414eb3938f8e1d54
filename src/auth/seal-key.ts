// The key that seals a confirmed payment run: one per user, 32 random bytes kept
// with the user's other secrets (the OS keychain, or credentials.json, mode 0600, in the config dir;
// TPA_KEYRING chooses as for keys), never in a journal or the data directory. Whoever can edit a
// journal but not read this user's secrets cannot make a plan the journal's seal accepts.
import { randomBytes } from 'node:crypto';
import type { Paths } from './config.js';
import { openStore, type SecretStore } from './credentials.js';

/** The store account of the key: one for all of a user's profiles. */
export const RUN_SEAL_ACCOUNT = 'payment-run-seal';

/**
 * The user's payment-run seal key, made and saved first when `create` is set; undefined when there is
 * none and `create` is not set. `where` is the store it was looked for in (for messages).
 */
export async function runSealKey(
  paths: Paths,
  env: NodeJS.ProcessEnv,
  note: (text: string) => void,
  create: boolean,
): Promise<{ key: Buffer | undefined; where: SecretStore }> {
  const { primary } = await openStore(paths, env, note);
  const stored = await primary.get(RUN_SEAL_ACCOUNT);
  if (stored) return { key: Buffer.from(stored, 'base64'), where: primary };
  if (!create) return { key: undefined, where: primary };
  const key = randomBytes(32);
  await primary.set(RUN_SEAL_ACCOUNT, key.toString('base64'));
  return { key, where: primary };
}
