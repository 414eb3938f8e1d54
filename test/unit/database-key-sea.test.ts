// The key lookup in a build with no keychain (the single executable): an encrypted data directory
// is told apart from a keychain that did not answer; no Secret Service is named.
import { describe, expect, it } from 'vitest';
import { NoKeychainInThisBuild } from '../../src/auth/credentials.js';
import { keychainProblem } from '../../src/auth/database-key.js';

describe('the database key in the single executable', () => {
  it('without TPA_DB_KEY: says this build has no encryption, never the Secret Service', () => {
    const err = keychainProblem(new NoKeychainInThisBuild('the single executable of tpa has no keychain (the npm package has it)'));
    expect(err.message).toContain('this build of tpa (the single executable) has no encryption and no keychain');
    expect(err.hint).toContain('tpa installed from npm');
    expect(`${err.message} ${err.hint}`).not.toContain('Secret Service');
  });

  it('a keychain that did not answer in the npm build still says to unlock or start it', () => {
    const err = keychainProblem(new Error('timed out'));
    expect(err.hint).toContain('Secret Service');
  });
});
