// An API key goes over plain http only to this machine: a loopback address or localhost, never a
// name that merely starts like one (127.0.0.1.example.com resolves wherever its owner likes).
import { describe, expect, it } from 'vitest';
import { httpsUnlessLoopback } from '../../src/auth/config.js';
import { envProxyOn } from '../../src/client/tls.js';
import { isLoopbackAddress } from '../../src/domain/loopback.js';
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
      'http://[0:0:0:0:0:0:0:1]:4010',
      'http://[::ffff:127.0.0.1]:4010',
      'http://LOCALHOST:8080',
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
      'http://127.attacker.example/',
      'http://localhost.evil/',
      'http://localhost./',
      'http://128.0.0.1',
      'http://10.0.0.1',
      'http://[::2]:4010',
      'http://[::ffff:10.0.0.1]:4010',
      'http://0.0.0.0:4010',
    ])
      expect(() => httpsUnlessLoopback(url), url).toThrow(UsageError);
  });
});

describe('a loopback address', () => {
  it('is an IPv4 literal in 127.0.0.0/8, ::1, or ::ffff:127.x.y.z, in brackets or not', () => {
    for (const a of ['127.0.0.1', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '[::ffff:7f00:1]'])
      expect(isLoopbackAddress(a), a).toBe(true);
  });

  it('is nothing else: no name, no other address, no malformed literal', () => {
    for (const a of ['localhost', '127.attacker.example', '127.0.0.1.nip.io', '0.0.0.0', '10.0.0.1', '127.0.0.256', '::', '::2', '::ffff:10.0.0.1', ':::1', ''])
      expect(isLoopbackAddress(a), a).toBe(false);
  });
});

describe('a proxy', () => {
  it('Node proxy support is on as Node decides it: the last of --use-env-proxy and --no-use-env-proxy, else NODE_USE_ENV_PROXY=1', () => {
    expect(envProxyOn({ NODE_USE_ENV_PROXY: '1' }, [])).toBe(true);
    expect(envProxyOn({ NODE_USE_ENV_PROXY: 'true' }, [])).toBe(false);
    expect(envProxyOn({}, ['--use-env-proxy'])).toBe(true);
    expect(envProxyOn({ NODE_OPTIONS: '--max-old-space-size=512 --use-env-proxy' }, [])).toBe(true);
    expect(envProxyOn({ NODE_USE_ENV_PROXY: '1' }, ['--no-use-env-proxy'])).toBe(false);
    expect(envProxyOn({ NODE_USE_ENV_PROXY: '0' }, ['--use-env-proxy'])).toBe(true);
    expect(envProxyOn({ NODE_OPTIONS: '--use-env-proxy --no-use-env-proxy' }, [])).toBe(false);
    expect(envProxyOn({ NODE_OPTIONS: '--no-use-env-proxy' }, ['--use-env-proxy'])).toBe(true);
    expect(envProxyOn({ NODE_OPTIONS: '--use-env-proxy' }, ['--no-use-env-proxy'])).toBe(false);
    expect(envProxyOn({ HTTPS_PROXY: 'http://proxy.example:3128' }, [])).toBe(false);
  });
});
