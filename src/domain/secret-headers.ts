// Which request headers may carry a credential, by their name: their values are never shown (--debug
// prints them "[redacted]"). tpa's own (X-API-Key, Authorization) and any a user adds with `tpa api -H`
// that a gateway or a proxy before the service might read as one (Cookie, X-Auth-Token, …).

export function isSecretHeader(name: string): boolean {
  return /^(authorization|proxy-authorization|cookie|x-api-key)$|token|secret|passw|session|signature|(^|-)auth|api-?key|credential/i.test(name);
}
