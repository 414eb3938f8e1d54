// This machine's own addresses: plain http carries credentials only to them.
// An address literal, not a name that starts like one (127.attacker.example is anyone's).

/**
 * Whether `address` (an IP literal, in brackets or not) is a loopback address: IPv4 127.0.0.0/8,
 * IPv6 ::1, or IPv4 127.0.0.0/8 mapped into IPv6 (::ffff:127.x.y.z).
 */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(bare);
  if (v4) return v4.slice(1).every((n) => Number(n) <= 255) && Number(v4[1]) === 127;
  if (!bare.includes(':')) return false;
  // The URL parser writes every spelling of an IPv6 address one way (0:0:0:0:0:0:0:1 is [::1],
  // ::ffff:127.0.0.1 is [::ffff:7f00:1]); one it refuses is no address.
  let host: string;
  try {
    host = new URL(`http://[${bare}]/`).hostname;
  } catch {
    return false;
  }
  return host === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}

/** Whether a host (a URL's hostname, or `--host`) is this machine: a loopback literal, or `localhost` in any case. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname.toLowerCase() === 'localhost' || isLoopbackAddress(hostname);
}
