// A service's base URL (a profile's base_url, a production profile's auth_url): where requests go,
// with the request's own path put after it. It is scheme://host[:port][/path] and nothing more: no
// query or fragment (the request's path would land in them: `…/funding/approve/?` + a lookup's path
// is the fund release), no user name or password, and a path of plain segments, with no dot segment,
// escape or path parameter that a service could read as climbing out of it or as another route.
// One rule, read wherever a base URL is accepted (auth login, config set, a profile read from
// config.json) and by the HTTP transport before it sends anything.

/**
 * What a base URL's path is made of: plain segments between single slashes, of RFC 3986's path
 * characters without the escape (`%`) and the path parameter (`;`), which a service may decode or
 * strip into another route.
 */
const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,=:@-]+$/;

/**
 * Why `url` cannot be a base URL, if it cannot: one sentence, naming the part at fault. Whether the
 * host may be spoken to over plain http is another rule (auth/config.ts, with domain/loopback.ts).
 */
export function baseUrlProblem(url: string): string | undefined {
  // Read as written, not as a URL parser would tidy it: a parser drops tabs and newlines, reads
  // backslashes as slashes and resolves dot segments, and the transport sends what is written.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(url)) return 'it holds a space, a control character or a backslash';
  // The scheme in any case, as URLs have it (the transport reads it lower-cased: serviceUrl).
  const m = /^https?:\/\/([^/?#]*)[^?#]*(.*)$/is.exec(url);
  if (!m) return 'it does not start with http:// or https://';
  const [, authority = '', rest = ''] = m;
  if (rest.startsWith('?')) return `it holds a query ("${rest}"), where the request's path would land`;
  if (rest !== '') return `it holds a fragment ("${rest}"), where the request's path would land`;
  if (authority.includes('@')) return 'it holds a user name or password ("user:pass@"), which are never sent';
  if (authority === '') return 'it names no host';
  try {
    new URL(url);
  } catch {
    return 'it is not a URL';
  }
  for (const segment of basePath(url).split('/').slice(1)) {
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..')
      return `its path holds the segment "${segment}": a base URL's path is plain segments between single slashes, with no "." or ".." segment, escape ("%") or ";"`;
  }
  return undefined;
}

/**
 * The path a base URL puts before every request's path: its own path without trailing slashes
 * ("" for none). Read from a URL `baseUrlProblem` accepts.
 */
export function basePath(url: string): string {
  const m = /^[a-z]+:\/\/[^/?#]*([^?#]*)/is.exec(url);
  return (m?.[1] ?? '').replace(/\/+$/, '');
}

/** A URL as it may be shown: a user name or password in it (never sent, and refused) replaced by "…". */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/)[^/?#]*@/is, '$1…@');
}

/** A base URL as the transport uses it: its scheme lower-cased (HTTPS://… is https://…). */
export function serviceUrl(url: string): string {
  return url.replace(/^[a-z]+:/i, (scheme) => scheme.toLowerCase());
}

/**
 * A full URL given where a served path is expected (`tpa api`, as gh accepts one; a page's `next`
 * over HTTP is one): the path and query it names on the profile's own service, or the sentence that
 * refuses it. Only the profile's scheme, host and port, under its base URL's path, no user name: the
 * key goes nowhere else, whatever URL is typed. `base` undefined: the embedded engine, which has none.
 */
export function ownTarget(url: string, base: string | undefined): { target: string } | { problem: string } {
  if (base === undefined) return { problem: 'the local profile has no URL: give the path as served' };
  let parsed: URL;
  let own: URL;
  try {
    parsed = new URL(url);
    own = new URL(base);
  } catch {
    return { problem: 'it is not a URL' };
  }
  if (parsed.origin !== own.origin) return { problem: `it is not on ${own.origin}, the profile's service: tpa sends the profile's key nowhere else` };
  if (parsed.username !== '' || parsed.password !== '') return { problem: 'it holds a user name or password' };
  const prefix = basePath(base);
  if (!parsed.pathname.startsWith(`${prefix}/`)) return { problem: `it is not under the profile's base URL ${own.origin}${prefix}` };
  return { target: `${parsed.pathname.slice(prefix.length)}${parsed.search}` };
}
