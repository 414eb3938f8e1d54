// Where money moves: the profile, its environment and its host, named in the first line of every
// review and confirmation that releases money (docs/approval.md "Approval screens"), so that a sandbox
// or production screen can never pass for a local one. Production is marked so it cannot be
// mistaken: the word PRODUCTION in capitals, and inverse bold on a colour terminal.
import { homedir } from 'node:os';
import type { ProfileEnv } from '../auth/config.js';
import { own } from '../render/screen.js';
import { wrapProse } from '../render/text.js';
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

/**
 * The first line of a review or a confirmation that moves money: `Profile prod · PRODUCTION ·
 * https://api.tpa.example`. Within `width` columns it is one line: the local engine's database path
 * (already ~/… under the home folder) is cut in the middle with … when it would not fit; the
 * environment and the host of a service are never cut.
 */
export function targetLine(target: MoneyTarget, color: boolean, width: number = Number.POSITIVE_INFINITY): string {
  const head = (c: boolean) => `Profile ${target.profile} · ${envLabel(target.env, c)} · `;
  const room = width - [...head(false)].length;
  const host = target.env === 'local' ? cutMiddle(target.host, room) : target.host;
  return `${head(color)}${host}`;
}

/** `text` within `room` characters (at least 9 kept), its middle replaced by …: both ends of a path stay. */
function cutMiddle(text: string, room: number): string {
  const chars = [...text];
  if (chars.length <= room) return text;
  const keep = Math.max(8, room - 1);
  const left = Math.floor(keep / 2);
  return `${chars.slice(0, left).join('')}…${chars.slice(chars.length - (keep - left)).join('')}`;
}

const held = new WeakMap<object, () => void>();

/**
 * Holds the notes said while a money screen is prepared (a keychain note when the credentials are
 * first read, a transfer REFUNDED before this approval, …), so that the line naming where the money
 * moves is the screen's first line and the notes come after it (writeTargetLine says them). The
 * function returned says the notes still held (on a refusal before the screen is drawn); it is
 * safe to call more than once.
 */
export function holdNotes(ctx: Pick<Context, 'note'>): () => void {
  const say = ctx.note;
  const notes: string[] = [];
  let holding = true;
  ctx.note = (text: string) => (holding ? void notes.push(text) : say(text));
  const release = () => {
    if (!holding) return;
    holding = false;
    held.delete(ctx);
    for (const n of notes.splice(0)) say(n);
  };
  held.set(ctx, release);
  return release;
}

/** Writes the line naming where the money moves, within the terminal's width, then the notes held until it (holdNotes). */
export function writeTargetLine(ctx: Pick<Context, 'note' | 'io' | 'colorErr'>, target: MoneyTarget, width: number | undefined): void {
  ctx.io.stderr.write(`${wrapProse(targetLine(target, ctx.colorErr, width ?? Number.POSITIVE_INFINITY), width)}\n`);
  held.get(ctx)?.();
}

/**
 * What a confirmation prompt starts with: nothing on the local engine, else the environment in
 * brackets (`[PRODUCTION] `, `[sandbox] `), so that the question itself says where the money goes.
 */
export function promptTag(target: MoneyTarget): string {
  if (target.env === 'local') return '';
  return target.env === 'production' ? '[PRODUCTION] ' : `[${target.env}] `;
}
