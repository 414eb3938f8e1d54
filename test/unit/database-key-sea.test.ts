// The key lookup in a build with no keychain (the single executable): an encrypted data directory
// is told apart from a keychain that did not answer; no Secret Service is named.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/auth/credentials.js', async (original) => {
  const real = await original<typeof import('../../src/auth/credentials.js')>();
  return {
    ...real,
    keychainStore: () => ({
      get: async () => {
        throw new real.NoKeychainInThisBuild('the single executable of tpa has no keychain (the npm package has it)');
      },
    }),
  };
});

describe('the database key in the single executable', () => {
  it('without TPA_DB_KEY: says this build has no encryption, never the Secret Service', async () => {
    const { findDatabaseKey } = await import('../../src/auth/database-key.js');
    const err = (await findDatabaseKey('/tmp/nowhere-tpa', {}).catch((e: unknown) => e)) as Error & { hint?: string };
    expect(err.message).toContain('this build of tpa (the single executable) has no encryption and no keychain');
    expect(err.hint).toContain('tpa installed from npm');
    expect(`${err.message} ${err.hint}`).not.toContain('Secret Service');
  });
});
