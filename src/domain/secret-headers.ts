// Which request headers and query parameters may carry a credential, by their name: their values
// are never shown (--debug prints them "[redacted]"). tpa's own (X-API-Key, Authorization) and any a
// user adds with `tpa api -H` that a gateway or a proxy before the service might read as one (Cookie,
// X-Auth-Token, Ocp-Apim-Subscription-Key, X-JWT, …): any name holding one of the words below, in
// any case, `_` and `-` alike. The Idempotency-Key alone is shown: tpa makes it, and it names a request.

const SECRET_WORDS = /key|token|secret|auth|pass|pwd|jwt|session|cookie|signature|credential/i;

export function isSecretHeader(name: string): boolean {
  return name.toLowerCase().replace(/_/g, '-') !== 'idempotency-key' && SECRET_WORDS.test(name);
}

/** A URL as --debug shows it: the value of each query parameter whose name may be a credential's (api_key, access_token, password, …) is "[redacted]". */
export function redactedQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((p) => {
      const eq = p.indexOf('=');
      const name = eq < 0 ? p : p.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: judged as written
      }
      return SECRET_WORDS.test(decoded) || SECRET_WORDS.test(name) ? `${name}=[redacted]` : p;
    });
  return `${url.slice(0, q + 1)}${params.join('&')}`;
}
