// Which request headers and query parameters may carry a credential, by their name or by their
// value: theirs are never shown (--debug prints them "[redacted]"). By name: tpa's own (X-API-Key,
// Authorization) and any a user adds with `tpa api -H` that a gateway or a proxy before the service
// might read as one (Cookie, X-Auth-Token, Ocp-Apim-Subscription-Key, X-JWT, X-Sig, X-CSRF-Token, …):
// any name holding one of the words below, in any case, `_` and `-` alike. By value, whatever the
// name: a scheme's credential (`Bearer …`, `Basic …`, `Digest …`), a tpa key (`sk_…`), a JWT
// (`eyJ…`), and the profile's own key wherever it appears. The Idempotency-Key alone is shown by
// name: tpa makes it, and it names a request.

const SECRET_WORDS = /key|token|secret|auth|pass|pwd|jwt|session|cookie|signature|credential|bearer|dpop|hmac|csrf|xsrf|tkn|cert|(^|[-_])(sig|otp)([-_]|$)/i;

/** Query parameters that carry a credential or a one-time secret under a plain name. */
const SECRET_PARAMS = new Set(['sig', 'code', 'signature', 'otp']);

/** A value that is a credential whatever its name: a scheme's, a tpa key, a JWT. */
const SECRET_VALUE = /^\s*(bearer|basic|digest)\s|(^|[^A-Za-z0-9])sk_[A-Za-z0-9_-]|(^|[^A-Za-z0-9])eyJ[A-Za-z0-9_-]{4,}/i;

export function isSecretHeader(name: string): boolean {
  return name.toLowerCase().replace(/_/g, '-') !== 'idempotency-key' && SECRET_WORDS.test(name);
}

/** Whether a value is a credential by its look, or holds one of `known` (the profile's key). */
export function isSecretValue(value: string, known: readonly string[] = []): boolean {
  return SECRET_VALUE.test(value) || known.some((k) => k !== '' && value.includes(k));
}

/** A header's value as --debug shows it. */
export function shownHeaderValue(name: string, value: string, known: readonly string[] = []): string {
  return isSecretHeader(name) || isSecretValue(value, known) ? '[redacted]' : value;
}

/** Text (a --debug line) with each of `known` (the profile's key), as written or percent-escaped, replaced by "[redacted]". */
export function withoutKnown(text: string, known: readonly string[]): string {
  let out = text;
  for (const k of known) {
    if (k === '') continue;
    for (const form of new Set([k, encodeURIComponent(k)])) out = out.split(form).join('[redacted]');
  }
  return out;
}

/**
 * A URL as --debug shows it: the value of each query parameter whose name may be a credential's
 * (api_key, access_token, password, sig, code, otp, …) or whose value is one by its look is
 * "[redacted]", and so is any of `known` (the profile's key) anywhere in it.
 */
export function redactedQuery(url: string, known: readonly string[] = []): string {
  const q = url.indexOf('?');
  if (q < 0) return withoutKnown(url, known);
  const params = url
    .slice(q + 1)
    .split('&')
    .map((p) => {
      const eq = p.indexOf('=');
      const name = eq < 0 ? p : p.slice(0, eq);
      const value = eq < 0 ? '' : p.slice(eq + 1);
      const secret = [name, value].map(decoded);
      return SECRET_WORDS.test(secret[0]!) ||
        SECRET_WORDS.test(name) ||
        SECRET_PARAMS.has(secret[0]!.toLowerCase()) ||
        isSecretValue(secret[1]!) ||
        isSecretValue(value)
        ? `${name}=[redacted]`
        : p;
    });
  return withoutKnown(`${url.slice(0, q + 1)}${params.join('&')}`, known);
}

/** A query's part as the service reads it; a malformed escape is judged as written. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
