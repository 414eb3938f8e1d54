// A wrong passphrase for an encrypted client key is exit 5 ("the passphrase … is wrong") whichever
// way OpenSSL fails: usually the decryption's padding check (bad decrypt), and about one time in 300
// the padding passes by chance and the decoding of what came out fails (DECODER routines), which
// once made the mTLS test fail one run in 300 with exit 2. The errors here are OpenSSL's own.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tlsError } from '../../src/client/tls.js';
import { AuthError, UsageError } from '../../src/errors.js';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const encrypted = privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 's3cret-phrase' }) as string;

/** OpenSSL's error for a wrong passphrase, of each kind, found by trying wrong ones in turn. */
function wrongPassphraseErrors(): { badDecrypt?: Error; decoder?: Error } {
  const found: { badDecrypt?: Error; decoder?: Error } = {};
  for (let i = 0; i < 20_000 && !(found.badDecrypt && found.decoder); i++) {
    try {
      createPrivateKey({ key: encrypted, passphrase: `wrong-${i}` });
    } catch (err) {
      const text = `${(err as { code?: string }).code} ${(err as Error).message}`;
      if (/bad decrypt/i.test(text)) found.badDecrypt ??= err as Error;
      else if (/DECODER routines/i.test(text)) found.decoder ??= err as Error;
    }
  }
  return found;
}

describe('a wrong passphrase of the client key', () => {
  const { badDecrypt, decoder } = wrongPassphraseErrors();

  it('is said to be wrong (exit 5), whether OpenSSL failed at the padding or at the decoding', () => {
    expect(badDecrypt, 'no wrong passphrase failed at the padding').toBeDefined();
    expect(decoder, 'no wrong passphrase got past the padding in 20,000 tries').toBeDefined();
    for (const err of [badDecrypt!, decoder!]) {
      const e = tlsError(err, 'https://tpa.example', true, true);
      expect(e, err.message).toBeInstanceOf(AuthError);
      expect((e as AuthError).exitCode).toBe(5);
      expect((e as Error).message).toMatch(/passphrase of the client key is wrong/);
    }
  });

  it('a key that does not decode, with no passphrase given, is a key that cannot be used (exit 2)', () => {
    const e = tlsError(decoder!, 'https://tpa.example', true, false);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as Error).message).toMatch(/cannot be used/);
  });
});
