// An API key goes over plain http only to this machine: a loopback address or localhost, never a
// name that merely starts like one (127.0.0.1.example.com resolves wherever its owner likes).
import { describe, expect, it } from 'vitest';
import { httpsUnlessLoopback } from '../../src/auth/config.js';
import { UsageError } from '../../src/errors.js';

describe('plain http', () => {
  it('is allowed to a loopback address, in any of its spellings, and to localhost', () => {
    for (const url of [
      'http://127.0.0.1:4010',
      'http://127.1:4010',
      'http://127.255.0.9',
      'http://0x7f000001/',
      'http://localhost:8080',
      'http://[::1]:4010',
      'https://tpa.example.com',
    ])
      expect(() => httpsUnlessLoopback(url), url).not.toThrow();
  });

  it('is refused to any other host, however it starts', () => {
    for (const url of [
      'http://127.0.0.1.nip.io:4010',
      'http://127.0.0.1.evil.test',
      'http://127.example.com',
      'http://localhost.evil.com',
      'http://128.0.0.1',
      'http://10.0.0.1',
    ])
      expect(() => httpsUnlessLoopback(url), url).toThrow(UsageError);
  });
});
