// Where `tpa local serve` may listen in plain HTTP. On this machine's loopback only, unless told
// otherwise: anywhere else, API keys, tokens and member data would cross a network unencrypted.
import { isLoopbackHost } from '../domain/loopback.js';

// One rule for "this machine" with the client's plain-http rule: an address literal in 127.0.0.0/8
// or ::1 (any spelling, IPv4-mapped included), or the name `localhost` (which local serve resolves
// and checks again). Any other name, and the empty host (every interface), is not.
export { isLoopbackHost };

export type ListenVerdict = { listen: true; warning?: string } | { listen: false; reason: string };

/**
 * Whether to serve on `host`, decided before anything is bound: TLS anywhere; plain HTTP on
 * loopback; plain HTTP elsewhere only when the operator said `--insecure-http`, with a warning.
 */
export function listenVerdict(host: string, o: { tls: boolean; insecureHttp: boolean }): ListenVerdict {
  if (o.tls || isLoopbackHost(host)) return { listen: true };
  const where = host === '' ? '"" (every interface)' : host;
  if (o.insecureHttp)
    return {
      listen: true,
      warning: `warning: serving plain HTTP on ${where}, which other machines may reach (--insecure-http): API keys, tokens and member data cross the network unencrypted; serve HTTPS with --tls-cert and --tls-key instead`,
    };
  return {
    listen: false,
    reason: `--host ${where} is not a loopback address: plain HTTP there would send API keys, tokens and member data unencrypted to whoever can reach it. Serve HTTPS with --tls-cert and --tls-key, or accept plain HTTP with --insecure-http`,
  };
}
