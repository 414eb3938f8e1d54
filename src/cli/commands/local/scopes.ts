// The --scopes option of `local keys create` and `local clients register`, checked against the engine's scopes.
import type { Scope } from '../../../engine/services/keys.js';
import { UsageError } from '../../../errors.js';
import { listValue } from '../../options.js';

export const SCOPES_HELP = 'contract_lookup claim_pricing fund_release ledger_access contract_build';

/** The scopes of a --scopes option: known names, at least one (an empty variable never means all). */
export async function scopesOption(value: string[]): Promise<Scope[]>;
export async function scopesOption(value: string[] | undefined): Promise<Scope[] | undefined>;
export async function scopesOption(value: string[] | undefined): Promise<Scope[] | undefined> {
  const { SCOPES } = await import('../../../engine/services/keys.js');
  const scopes = listValue(value);
  const unknown = scopes.filter((x) => !(SCOPES as readonly string[]).includes(x));
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}: use ${SCOPES.join(', ')}`);
  if (value !== undefined && scopes.length === 0) throw new UsageError(`--scopes names no scope: use one or more of ${SCOPES.join(', ')}`);
  return value === undefined ? undefined : (scopes as Scope[]);
}
