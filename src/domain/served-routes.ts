// How the engine's router reads a request, for whoever must know before sending
// what a request will do: the request target resolved as a URL is (dot segments, `%2e`, backslashes,
// a fragment dropped), then matched exactly against path templates, first match first. The engine's
// route table (engine/routes.ts) compiles and matches its paths with these functions; `tpa api` and
// the retry rules ask `releasesMoney` whether a request is a fund release, and `tpa api` and the HTTP
// transport ask `prefixProblem` whether a base URL's path makes one of what is not.

/** A path template compiled: `{name}` matches one path segment. */
export interface CompiledPath {
  method: string;
  /** Path template as served, with {name} for a path parameter. */
  path: string;
  pattern: RegExp;
  params: string[];
}

export function compilePath<T extends { method: string; path: string }>(route: T): T & CompiledPath {
  const params: string[] = [];
  // Stryker disable next-line StringLiteral: no served path has a character special in a regular expression; the escape is a guard
  const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    params.push(name);
    return '([^/]+)';
  });
  return { ...route, pattern: new RegExp(`^${source}$`), params };
}

export type PathMatch<R> = { route: R; params: Record<string, string> } | { allowed: string[] } | undefined;

/**
 * The first route of `routes` for a method and path; `{ allowed }` when the path exists for other
 * methods only. HEAD is served wherever GET is (RFC 9110: the GET answer without its body), so it
 * matches the GET route and is listed beside GET in `allowed`.
 */
export function matchPath<R extends CompiledPath>(routes: readonly R[], method: string, path: string): PathMatch<R> {
  const allowed: string[] = [];
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    if (r.method !== method && !(method === 'HEAD' && r.method === 'GET')) {
      allowed.push(...(r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]));
      continue;
    }
    const params: Record<string, string> = {};
    try {
      r.params.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1]!)));
    } catch {
      return undefined; // a malformed percent-escape names nothing
    }
    return { route: r, params };
  }
  return allowed.length > 0 ? { allowed } : undefined;
}

/**
 * A request target as the router reads it (and as an HTTP client sends it): resolved as a URL on
 * this host, so `/a/./b/`, `/a/%2e/b/`, `/a/x/../b/` and `\a\b` name `/a/b/`, a fragment is never
 * sent, and `//host/path` is the path `/path`. Undefined when it is no URL at all.
 */
export function servedTarget(target: string): { path: string; search: string } | undefined {
  try {
    const url = new URL(target, 'http://served.invalid');
    return { path: url.pathname, search: url.search };
  } catch {
    return undefined;
  }
}

/**
 * The routes that release money (docs/api.md: the fund_release permission): a request to one needs a
 * confirmation, an Idempotency-Key and an entry in this machine's fund history, and is never resent
 * blind. The engine's table marks the same routes (a test holds them equal).
 */
export const MONEY_ROUTES: readonly CompiledPath[] = [{ method: 'POST', path: '/tpa-api/v1/funding/approve/' }].map(compilePath);

/**
 * The routes that change what is paid: finalizing a rate schedule turns it into live contract rates.
 * `tpa api` asks before sending a request to one, as `tpa ratesheet finalize` does.
 */
export const RATE_ROUTES: readonly CompiledPath[] = [
  { method: 'POST', path: '/api/v1/computable-contracts/builder/{instance_id}/finalize' },
  { method: 'POST', path: '/api/v1/computable-contracts/builder/{instance_id}/finalize/' },
].map(compilePath);

/** The routes of the key rotation: the answer holds the new key, which `tpa auth rotate` alone receives (it saves it, never prints it). */
export const KEY_ROUTES: readonly CompiledPath[] = [
  { method: 'POST', path: '/tpa-api/v1/keys/rotate' },
  { method: 'POST', path: '/tpa-api/v1/keys/rotate/' },
].map(compilePath);

/**
 * A path that `tpa api` never sends, whatever the method, as a sentence; undefined otherwise. One
 * that EXTENDS the fund release's or a finalize's path (`/funding/approve/x`, `/finalize/x/`, in any
 * reading `lenientPaths` counts) is no route of the service, but a service that routes by prefix
 * (Express `app.use`, an unanchored regular expression) would take it for the route it extends,
 * unconfirmed, unkeyed and unrecorded. The key rotation (in any spelling, any method, extended or
 * not) answers with the new key: the profile would keep the old one and the new one would be printed.
 */
export function refusedPathProblem(target: string): string | undefined {
  const served = servedTarget(target);
  if (!served) return undefined;
  const forms = [served.path, ...lenientPaths(served.path)];
  if (forms.some((p) => KEY_ROUTES.some((r) => samePath(r, p) || extendsPath(r, p))))
    return `${served.path} rotates the profile's key: use \`tpa auth rotate\`, which asks, saves the new key and never prints it; nothing was sent`;
  for (const [routes, what] of [
    [MONEY_ROUTES, 'the fund release'],
    [RATE_ROUTES, 'finalizing a rate schedule'],
  ] as const) {
    // A path that is the route itself in some reading (`approve/;`) is that route, asked for as such.
    if (routes.some((r) => reaches([r], r.method, target))) continue;
    if (forms.some((p) => routes.some((r) => extendsPath(r, p))))
      return `${served.path} is not a route of the service; a service that routes by prefix would take it for ${what}: refused, nothing sent`;
  }
  return undefined;
}

/** Whether a path is a route's own, case folded, with or without its trailing slash. */
function samePath(route: CompiledPath, path: string): boolean {
  const pattern = new RegExp(route.pattern.source, 'i');
  return [path, path.replace(/\/?$/, '/'), path.replace(/\/$/, '')].some((s) => pattern.test(s));
}

/** Whether a path is a route's path followed by one more segment or several. */
function extendsPath(route: CompiledPath, path: string): boolean {
  return new RegExp(`${route.pattern.source.replace(/\/?\$$/, '')}/[^/]`, 'i').test(path);
}

/** Whether a request releases money (see `reaches`). */
export function releasesMoney(method: string, target: string): boolean {
  return reaches(MONEY_ROUTES, method, target);
}

/** Whether a request finalizes a rate schedule into live contract rates (see `reaches`). */
export function changesRates(method: string, target: string): boolean {
  return reaches(RATE_ROUTES, method, target);
}

/**
 * A request to the path of a fund release or a finalize by another method than the one served
 * there, as a sentence; undefined otherwise. A lenient service may answer any method on that path
 * as the route's own (a PUT or a GET carrying a release body), and such a request would escape the
 * confirmation, the Idempotency-Key and the fund history: `tpa api` refuses it before sending.
 */
export function wrongMethodProblem(method: string, target: string): string | undefined {
  const wrong = wrongMethod(method, target);
  return wrong && `${wrong.what} is ${wrong.served} only (${method.toUpperCase()} ${target})`;
}

/** The route of the fund release or of a finalize a request reaches by another method than its own. */
function wrongMethod(method: string, target: string): { what: string; path: string; served: string } | undefined {
  const m = method.toUpperCase();
  for (const [routes, what, path] of [
    [MONEY_ROUTES, 'the fund release', "the fund release's path"],
    [RATE_ROUTES, 'finalizing a rate schedule', "a rate schedule's finalize path"],
  ] as const) {
    const served = routes.find((r) => reaches([r], r.method, target));
    if (served && served.method !== m) return { what, path, served: served.method };
  }
  return undefined;
}

/**
 * What a base URL's path does to a request, when it does what the request's own path does not: the
 * path sent is the base URL's path (`prefix`, domain/service-url.ts) followed by the request's, and
 * if that reaches a fund release or a finalize (in any reading `reaches` counts) while the request's
 * own path does not, a base URL has turned an innocuous request into one that moves money or rates,
 * and it is not sent. Undefined when the prefix changes nothing of the kind. `tpa api` and the HTTP
 * transport (every command) ask this before anything is sent.
 */
export function prefixProblem(method: string, prefix: string, target: string): string | undefined {
  // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut; with no prefix the path sent is the request's own, and nothing below can differ
  if (prefix === '') return undefined;
  const sent = `${prefix}${target}`;
  const m = method.toUpperCase();
  if (releasesMoney(m, sent) && !releasesMoney(m, target)) return `the base URL's path "${prefix}" turns ${m} ${target} into a fund release (${m} ${sent})`;
  if (changesRates(m, sent) && !changesRates(m, target))
    return `the base URL's path "${prefix}" turns ${m} ${target} into finalizing a rate schedule (${m} ${sent})`;
  const wrong = wrongMethod(m, sent);
  if (wrong && !wrongMethod(m, target))
    return `the base URL's path "${prefix}" turns ${m} ${target} into ${m} on ${wrong.path} (${m} ${sent}), which is ${wrong.served} only`;
  const refused = refusedPathProblem(sent);
  if (refused && !refusedPathProblem(target)) return `the base URL's path "${prefix}" turns ${m} ${target} into ${m} ${sent}: ${refused}`;
  return undefined;
}

/**
 * Whether a request reaches one of `routes`: the router would match it, or a more lenient service
 * might, since a remote service need not read paths as strictly as the engine does. Every reading
 * such a service may make counts (`lenientPaths`), so that a fund release or a finalize is asked
 * for however it is spelt.
 */
function reaches(routes: readonly CompiledPath[], method: string, target: string): boolean {
  const m = method.toUpperCase();
  const served = servedTarget(target);
  if (!served) return false;
  const exact = matchPath(routes, m, served.path);
  if (exact && 'route' in exact) return true;
  const candidates = routes.filter((r) => r.method === m).map((r) => new RegExp(r.pattern.source, 'i'));
  return lenientPaths(served.path).some((p) => {
    const spellings = [p, p.replace(/\/?$/, '/'), p.replace(/\/$/, '')];
    return candidates.some((pattern) => spellings.some((s) => pattern.test(s)));
  });
}

/**
 * The paths a lenient service may route a request path to (Tomcat, Spring, and servers like them):
 * percent-escapes decoded, once or more (`%3B`, `%2F`, `%252F`), a malformed one left as it is;
 * backslashes read as slashes and doubled slashes as one; path parameters dropped from every segment
 * (`/funding;x/approve;y/`, a trailing `;`), then dot segments resolved again (`/x/..;/funding/`);
 * a suffix dropped from every segment (`approve.json`, `approve.JSON`: suffix pattern matching); and
 * letters folded as a case-insensitive match folds them (`ı` and `İ` are `i`, `ſ` is `s`, the Kelvin
 * sign is `k`, and compatibility forms such as full-width letters are the letters).
 */
export function lenientPaths(path: string): string[] {
  const forms: string[] = [];
  let p = path;
  // Each round decodes one level of escapes; a path escaped deeper than this is escaped on purpose.
  for (let round = 0; round < 4; round++) {
    const slashes = decodeEscapes(p).replace(/[\\/]+/g, '/');
    const bare = slashes
      .split('/')
      .map((segment) => segment.replace(/;.*$/s, ''))
      .join('/');
    const resolved = servedTarget(bare.startsWith('/') ? bare : `/${bare}`)?.path ?? bare;
    const unsuffixed = resolved
      .split('/')
      .map((segment) => segment.replace(/\..*$/s, ''))
      .join('/');
    // Each segment trimmed of white space and controls, as Spring's matcher with trimTokens (its
    // default before 4.3) and other lenient routers do: `funding%20/approve%0B/` is the fund release.
    const trimmed = [slashes, resolved, unsuffixed].map((f) =>
      f
        .split('/')
        .map((segment) => segment.replace(EDGE_SPACE, ''))
        .join('/'),
    );
    forms.push(slashes, resolved, unsuffixed, ...trimmed);
    if (resolved === p) break;
    p = resolved;
  }
  return [...new Set(forms.flatMap((f) => [fold(f), fold(f.normalize('NFKC'))]))];
}

/** White space and controls at a segment's ends, which a lenient router trims away. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what is trimmed
const EDGE_SPACE = /^[\s\u0000-\u001f\u007f-\u009f\u200b\ufeff]+|[\s\u0000-\u001f\u007f-\u009f\u200b\ufeff]+$/g;

/**
 * Case folded as a case-insensitive comparison (Java's, for one) folds it: upper case, then lower,
 * and the dot that lower-casing `İ` leaves (Java compares it equal to `i`, letter by letter) dropped.
 */
function fold(text: string): string {
  return text
    .toUpperCase()
    .toLowerCase()
    .replace(/\u0307/g, '');
}

/** Percent-escapes decoded: each run of escapes as UTF-8, or byte by byte where it is not UTF-8. */
function decodeEscapes(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    }
  });
}
