// API key formats (docs/api.md "Authentication"): sandbox sk_sand_..., staging sk_stage_..., 64
// characters in all. Checked wherever a key enters tpa, and used to show a key safely.
export type KeyEnvironment = 'sandbox' | 'staging';
export const KEY_PREFIX: Record<KeyEnvironment, string> = { sandbox: 'sk_sand_', staging: 'sk_stage_' };
export const KEY_LENGTH = 64;

export function keyFormatProblem(key: string, env?: KeyEnvironment): string | undefined {
  const prefixes = env ? [KEY_PREFIX[env]] : Object.values(KEY_PREFIX);
  const prefix = prefixes.find((p) => key.startsWith(p));
  if (!prefix) return `an API key${env ? ` for ${env}` : ''} starts with ${prefixes.join(' or ')}`;
  if (key.length !== KEY_LENGTH) return `an API key is ${KEY_LENGTH} characters long (this one has ${key.length})`;
  if (!/^[A-Za-z0-9_]+$/.test(key)) return 'an API key has only letters, digits and underscores';
  return undefined;
}

/** A key as people may see it: its prefix and last four (nothing of a malformed one). */
export function maskKey(key: string): string {
  const prefix = Object.values(KEY_PREFIX).find((p) => key.startsWith(p));
  return prefix && key.length === KEY_LENGTH ? `${prefix}…${key.slice(-4)}` : '(not an API key)';
}
