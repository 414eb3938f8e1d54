// An installed tpa comes without the encryption package (docs/packaging.md "Package"): the
// message for a missing one names the command that installs it where this tpa will find it.
// test/package/package.test.ts runs that command for real, in an installed package.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CipherPackageMissing } from '../../src/engine/errors.js';
import { EXIT, fromEngineError } from '../../src/errors.js';
import { cipherInstallCommand } from '../../src/cli/cipher-install.js';
import { CIPHER_PACKAGE } from '../../src/engine/store/cipher.js';

describe('the command that installs the encryption package', () => {
  it('installs it beside a global tpa, in the same prefix', () => {
    expect(cipherInstallCommand('/opt/tools/lib/node_modules/tpa', CIPHER_PACKAGE, '13.0.3')).toBe(
      'npm install -g --prefix /opt/tools better-sqlite3-multiple-ciphers@13.0.3',
    );
  });

  it('installs it in the project of which tpa is a dependency', () => {
    expect(cipherInstallCommand('/home/ana/claims/node_modules/tpa', CIPHER_PACKAGE, '13.0.3')).toBe(
      'npm install --prefix /home/ana/claims better-sqlite3-multiple-ciphers@13.0.3',
    );
  });

  it("in a clone, runs the project's own install, where it is a devDependency", () => {
    expect(cipherInstallCommand('/home/ana/src/tpa', CIPHER_PACKAGE, '13.0.3')).toBe('npm install --prefix /home/ana/src/tpa');
  });

  it('quotes a folder with a space or a quote so that it pastes back as one word', () => {
    expect(cipherInstallCommand("/Users/Ana O'Neil/lib/node_modules/tpa", CIPHER_PACKAGE, '13.0.3')).toBe(
      "npm install -g --prefix '/Users/Ana O'\\''Neil' better-sqlite3-multiple-ciphers@13.0.3",
    );
  });

  it('names the version package.json gives, by default', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { devDependencies: Record<string, string> };
    expect(cipherInstallCommand('/p/lib/node_modules/tpa', CIPHER_PACKAGE)).toBe(
      `npm install -g --prefix /p better-sqlite3-multiple-ciphers@${pkg.devDependencies['better-sqlite3-multiple-ciphers']}`,
    );
  });

  it('is the hint the CLI gives when the engine finds the package missing (the engine itself names no command)', () => {
    const engine = new CipherPackageMissing('an encrypted database needs the package', CIPHER_PACKAGE);
    expect(engine.hint).toBeUndefined();
    const err = fromEngineError(engine);
    expect(err.exitCode).toBe(EXIT.USAGE);
    expect(err.message).toBe('an encrypted database needs the package');
    // In a clone: the project's own install.
    expect(err.hint).toBe(`install it with: npm install --prefix ${fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')}`);
  });
});
