// A base URL is scheme://host[:port][/path] and nothing more: what a request's path is put after. A
// query or a fragment would swallow that path, a user name would travel with it, and a dot segment,
// an escape or a path parameter could be read by a service as another route.
import { describe, expect, it } from 'vitest';
import { basePath, baseUrlProblem, serviceUrl, shownUrl } from '../../src/domain/service-url.js';

describe('a base URL', () => {
  it('is http(s), a host, a port if any, and a path of plain segments', () => {
    for (const url of [
      'http://127.0.0.1:4010',
      'http://127.0.0.1:4010/',
      'https://tpa.example.com',
      'https://gw.example/tpa/v2//',
      'http://[::1]:4010/a-b.c_d~e',
      'http://0x7f000001/',
      'https://tpa.example/v1.2/x...y',
      // A scheme in any case; RFC 3986's other path characters (a gateway's `v1:beta`, `@`, `+`, `=`).
      'HTTP://127.0.0.1',
      'Https://tpa.example/tpa',
      "https://gw.example/v1:beta/a@b/x+y=z/(1)!$&*,'",
    ])
      expect(baseUrlProblem(url), url).toBeUndefined();
  });

  it('holds no query, fragment, user name or password, and no dot segment, escape, path parameter, empty segment, space, control character or backslash', () => {
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:4311/tpa-api/v1/funding/approve/?', /^it holds a query \("\?"\)/],
      ['http://127.0.0.1:4311?', /^it holds a query/],
      ['https://tpa.example/a?b=c#d', /^it holds a query \("\?b=c#d"\)/],
      ['http://127.0.0.1:4311/tpa-api/v1/funding/approve/#', /^it holds a fragment \("#"\)/],
      ['https://tpa.example#x', /^it holds a fragment/],
      ['https://u:p@tpa.example', /^it holds a user name or password/],
      ['https://@tpa.example', /^it holds a user name or password/],
      ['http://127.0.0.1:4311/x/..', /^its path holds the segment "\.\."/],
      ['http://127.0.0.1:4311/./x', /^its path holds the segment "\."/],
      ['http://127.0.0.1:4311/x/%2e%2e', /^its path holds the segment "%2e%2e"/],
      ['http://127.0.0.1:4311/approve%3F', /^its path holds the segment "approve%3F"/],
      ['http://127.0.0.1:4311/funding;x/approve', /^its path holds the segment "funding;x"/],
      ['http://127.0.0.1:4311/a//b', /^its path holds the segment ""/],
      ['http://127.0.0.1:4311/caf\u00e9', /^its path holds the segment/],
      ['http://127.0.0.1:4311\\x', /backslash/],
      ['http://127.0.0.1:4311/a\tb', /control character/],
      ['http://127.0.0.1:4311/a\nb', /control character/],
      [' http://127.0.0.1:4311', /a space/],
      ['http://127.0.0.1:4311/a\u0085', /control character/],
      ['http:///x', /^it names no host/],
      ['http://', /^it names no host/],
      ['http://[::1', /^it is not a URL/],
      ['ftp://127.0.0.1', /^it does not start with/],
      ['127.0.0.1:4010', /^it does not start with/],
      ['', /^it does not start with/],
    ];
    for (const [url, reason] of cases) expect(baseUrlProblem(url), JSON.stringify(url)).toMatch(reason);
  });

  it("its path is what comes before every request's path, without trailing slashes", () => {
    expect(basePath('http://127.0.0.1:4010')).toBe('');
    expect(basePath('not a url')).toBe('');
    expect(basePath('http://127.0.0.1:4010/')).toBe('');
    expect(basePath('https://gw.example/tpa/v2//')).toBe('/tpa/v2');
    expect(basePath('HTTPS://gw.example/tpa')).toBe('/tpa');
    expect(basePath('https://gw.example/tpa?x#y')).toBe('/tpa');
  });

  it('is used with its scheme lower-cased, the rest as written', () => {
    expect(serviceUrl('HTTPS://Tpa.Example/V1')).toBe('https://Tpa.Example/V1');
    expect(serviceUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
  });

  it('is shown without a user name or password', () => {
    expect(shownUrl('https://user:secret@tpa.example/x')).toBe('https://…@tpa.example/x');
    expect(shownUrl('https://tpa.example/a@b')).toBe('https://tpa.example/a@b');
    expect(shownUrl('https://tpa.example')).toBe('https://tpa.example');
  });
});
