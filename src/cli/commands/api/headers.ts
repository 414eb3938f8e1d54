// The extra headers of `tpa api -H 'Name: value'` (docs/scripting.md "tpa api"): which ones tpa keeps
// for itself, and why. Pure: the route a request reaches is decided by the caller.
import { shownHeaderValue } from '../../../domain/secret-headers.js';

/** Headers tpa sets itself, or that would make a service read another request than the one confirmed. */
const REFUSED: Record<string, string> = {
  authorization: 'credentials come from the profile (tpa auth login), never from the command line',
  'proxy-authorization': 'credentials come from the profile (tpa auth login), never from the command line',
  'x-api-key': 'credentials come from the profile (tpa auth login), never from the command line',
  host: "the host is the profile's base URL",
  'content-length': "the body's framing is tpa's",
  'transfer-encoding': "the body's framing is tpa's",
  connection: "the connection is tpa's",
  'keep-alive': "the connection is tpa's",
  te: "the connection is tpa's",
  trailer: "the body's framing is tpa's",
  upgrade: "the connection is tpa's",
  expect: "the connection is tpa's",
  // A lenient service (or a proxy before it) reads these as another method or another path: a GET
  // that is a fund release there, never confirmed here.
  'x-http-method-override': 'the method is the one -X or the command line gives, which tpa checks',
  'x-http-method': 'the method is the one -X or the command line gives, which tpa checks',
  'x-method-override': 'the method is the one -X or the command line gives, which tpa checks',
  'x-original-url': 'the path is the one the command line gives, which tpa checks',
  'x-rewrite-url': 'the path is the one the command line gives, which tpa checks',
};

/**
 * Names that name another path or method than the request's, by their shape rather than one by one,
 * since proxies and frameworks invent more of them: X-Original-URI, X-Forwarded-Url, X-Rewrite-Uri,
 * X-Request-Uri, X-Original-Path, X-Method, X-Http-Verb, X-Forwarded-Method, X-Envoy-Original-*.
 */
const PATH_OVERRIDE = 'the path is the one the command line gives, which tpa checks';
const METHOD_OVERRIDE = 'the method is the one -X or the command line gives, which tpa checks';
const OVERRIDES: readonly [RegExp, string][] = [
  [/(^|-)(original|rewrite|rewritten|forwarded|request|override|overridden)-(uri|url|path)$/, PATH_OVERRIDE],
  [/(^|-)(original|rewrite|rewritten|forwarded|request|override|overridden)-(method|verb)$/, METHOD_OVERRIDE],
  [/(^|-)(method|verb)(-override)?$/, METHOD_OVERRIDE],
  [/^x-envoy-original-/, PATH_OVERRIDE],
];

function overrideRule(name: string): string | undefined {
  return OVERRIDES.find(([pattern]) => pattern.test(name))?.[1];
}

/** What the request is, for the headers that depend on it. */
export interface HeaderContext {
  method: string;
  /** The request reaches a fund release (served-routes.ts releasesMoney). */
  money: boolean;
  /** The request is a claim submission, where the service honours a key. */
  submit: boolean;
}

/**
 * `-H` values as headers (names lower-cased), or the sentence that refuses one: a malformed one, a
 * name given twice, one of REFUSED, and the two that depend on the route. An Idempotency-Key is
 * tpa's on a fund release (one release, one key, made here and recorded with it: a key of the
 * user's could send one release twice under two keys, or two bodies under one); it passes on a
 * claim submission, where the service answers a replay with the first answer, and on a read; on any
 * other write it is refused, since the service keeps no key there and tpa would take the request for
 * safe to resend after a 5xx. Content-Type is tpa's on a fund release: the body confirmed is read
 * as JSON, and sent as JSON.
 */
export function extraHeaders(given: readonly string[], request: HeaderContext): Record<string, string> | string {
  const headers: Record<string, string> = Object.create(null);
  for (const text of given) {
    const colon = text.indexOf(':');
    const name = (colon > 0 ? text.slice(0, colon) : '').trim().toLowerCase();
    // Letters, digits and '-' only: a name holding '_' (X_HTTP_Method_Override, Idempotency_Key) is
    // read as its hyphenated twin by many servers and proxies, and would slip past the refusals below.
    // The text itself is never echoed, the value least of all: it may be a credential.
    if (!/^[0-9a-z-]+$/.test(name)) return "-H takes Name: value, the name letters, digits and '-' only";
    const value = text.slice(colon + 1).trim();
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what is refused
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) return `-H ${name}: the value holds a line break or a control character`;
    // A header value is bytes: a character that is not one byte (a stray non-UTF-8 byte read as U+FFFD)
    // would make the HTTP layer refuse it, with the value in its message.
    if (/[^\t\u0020-\u00ff]/.test(value)) return `-H ${name}: the value holds a character a header cannot carry (only printable ASCII and Latin-1)`;
    if (name in headers) return `-H ${name} is given twice; give it once`;
    const refused = REFUSED[name] ?? overrideRule(name) ?? routeRule(name, request);
    if (refused) return `-H ${name} is not accepted: ${refused}`;
    headers[name] = value;
  }
  return { ...headers };
}

function routeRule(name: string, r: HeaderContext): string | undefined {
  if (name === 'idempotency-key') {
    if (r.money) return 'a fund release carries the key tpa makes and records with it, one key for one release';
    if (!r.submit && r.method !== 'GET' && r.method !== 'HEAD')
      return 'the service keeps keys only for a claim submission and a fund release; here tpa would resend the request after a 5xx as if the service answered it once';
  }
  if (name === 'content-type' && r.money) return 'a fund release is sent as the JSON that was confirmed';
  return undefined;
}

/** A header as --debug shows it: a credential's value never (domain/secret-headers.ts). */
export function shownHeader(name: string, value: string): string {
  return `${name}: ${shownHeaderValue(name, value)}`;
}
