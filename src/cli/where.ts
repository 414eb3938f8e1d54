// Where money moves: the profile, its environment and its host, named in the first line of every
// review and confirmation that releases money (docs/design.md "Approval screens"), so that a sandbox
// or production screen can never pass for a local one. Production is marked so it cannot be
// mistaken: the word PRODUCTION in capitals, and inverse bold on a colour terminal.
import { homedir } from 'node:os';
import type { ProfileEnv } from '../auth/config.js';
import { own } from '../render/screen.js';
import type { Context } from './context.js';

export interface MoneyTarget {
  profile: string;
  env: ProfileEnv;
  /** The service's URL, or the local engine's database file. */
  host: string;
}

/** The active profile, its environment and where its requests go. */
export async function moneyTarget(ctx: Pick<Context, 'profile' | 'paths'>): Promise<MoneyTarget> {
  const p = ctx.profile();
  if (p.env === 'local') {
    const { databaseFile } = await import('../engine/engine.js');
    return { profile: p.name, env: p.env, host: shortPath(databaseFile(ctx.paths.dataDir)) };
  }
  return { profile: p.name, env: p.env, host: p.base_url ?? '(no base_url)' };
}

/** A path under the home folder as ~/…, as a person types it. */
function shortPath(path: string): string {
  const home = homedir();
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** The environment as the first line names it: the local engine says that no real money moves. */
function envLabel(env: ProfileEnv, color: boolean): string {
  if (env === 'local') return 'local engine (no real money)';
  if (env === 'production') return color ? `${own('1m')}${own('7m')}PRODUCTION${own('27m')}${own('22m')}` : 'PRODUCTION';
  return env;
}

/** The first line of a review or a confirmation that moves money: `Profile prod · PRODUCTION · https://api.tpa.example`. */
export function targetLine(target: MoneyTarget, color: boolean): string {
  return `Profile ${target.profile} · ${envLabel(target.env, color)} · ${target.host}`;
}

/**
 * What a confirmation prompt starts with: nothing on the local engine, else the environment in
 * brackets (`[PRODUCTION] `, `[sandbox] `), so that the question itself says where the money goes.
 */
export function promptTag(target: MoneyTarget): string {
  if (target.env === 'local') return '';
  return target.env === 'production' ? '[PRODUCTION] ' : `[${target.env}] `;
}
