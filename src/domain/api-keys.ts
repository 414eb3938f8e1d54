// API key formats (docs/api.md "Authentication"): sandbox sk_sand_..., staging sk_stage_..., 64
// characters in all. Checked wherever a key enters tpa, and used to show a key safely.
export type KeyEnvironment = 'sandbox' | 'staging';
export const KEY_PREFIX: Record<KeyEnvironment, string> = { sandbox: 'sk_sand_', staging: 'sk_stage_' };
export const KEY_LENGTH = 64;

/**
 * The four scopes of the contract (docs/api.md), then `contract_build` ("change and finalize rate schedules"): the contract (docs/api.md)
 * leaves the builder's credentials open, and none of its four read or money scopes may change what
 * is paid (docs/security-access.md "Who may do what").
 */
export const SCOPES = ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access', 'contract_build'] as const;
export type Scope = (typeof SCOPES)[number];
/** The scopes of the contract's table: what a TPA's key or client asks for. */
export const SPEC_SCOPES: readonly Scope[] = ['contract_lookup', 'claim_pricing', 'fund_release', 'ledger_access'];

/** Who a request is from: an API key's environment, or production for an OAuth token. */
export type CallerEnvironment = KeyEnvironment | 'production';

/** The caller of a request as the engine knows it: an API key, or an OAuth token standing for its client. */
export interface KeyRecord {
  id: string;
  /** The first key of a rotation chain (or the OAuth client): rate limits and replays are per lineage. */
  lineage: string;
  environment: CallerEnvironment;
  prefix: string;
  last4: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
}

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
