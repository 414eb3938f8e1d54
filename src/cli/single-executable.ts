// Only in the single executable (scripts/sea.mjs, docs/packaging.md "Single executable"): its
// SQLite addon. better-sqlite3's addon is carried inside the executable as an asset; a native addon
// is loaded from a file, so it is written once to a folder of the user's own and loaded from there,
// by every later start. Its name carries its digest: another build's addon is another file, never a
// stale one loaded in its place.
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, type Stats, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTemp, tempBeside } from '../files/write-whole.js';

/** The addon's asset key and file name, better_sqlite3-<sha-256, 16 digits>.node (scripts/sea.mjs defines it). */
declare const __TPA_SEA_ADDON__: string;

/** better-sqlite3's addon, for its factory (scripts/sea.mjs hands this to it in place of its own lookup). */
export function sqliteAddon(): unknown {
  const { getRawAsset } = process.getBuiltinModule('node:sea');
  const bytes = new Uint8Array(getRawAsset(__TPA_SEA_ADDON__));
  const addon = { exports: {} };
  const kept = keptAddon(addonFolder(process.env), __TPA_SEA_ADDON__, bytes);
  if (kept) {
    process.dlopen(addon, kept);
    return addon.exports;
  }
  // No folder of the user's own to keep it in (a read-only home, a folder others may write in): a
  // private temporary one for this run, removed once loaded (the mapping stays).
  const temp = mkdtempSync(join(tmpdir(), 'tpa-sea-'));
  try {
    const file = join(temp, __TPA_SEA_ADDON__);
    writeFileSync(file, bytes, { mode: 0o600, flag: 'wx' });
    process.dlopen(addon, file);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  return addon.exports;
}

/** Where the addon is kept: tpa's folder under the user's XDG cache, beside Node's compile cache. */
export function addonFolder(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'tpa', 'sea');
}

/**
 * The addon's file in `dir`, written there first if it is not there whole: in a folder of this
 * user's own that no one else may write in (0700 when made here), a file of this user's (0600),
 * written to a temporary name and renamed, so that a start never sees it half written. A file kept
 * there is loaded only when its bytes are the carried addon's, every one of them (its name is a
 * digest, but nothing checks a name): one changed since, whatever its size and mode, is written
 * again. Undefined when the folder is not such a folder or cannot be written: code others could
 * replace is never loaded.
 */
export function keptAddon(dir: string, name: string, bytes: Uint8Array): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownPrivate(dir, 0o022) || !ownPrivate(join(dir, '..'), 0o022)) return undefined;
    const file = join(dir, name);
    const st = lstatOrUndefined(file);
    if (st?.isFile() && ownPrivate(file, 0o077) && st.size === bytes.length && readFileSync(file).equals(bytes)) return file;
    const temp = tempBeside(file);
    try {
      writeFileSync(temp, bytes, { mode: 0o600, flag: 'wx' });
      renameSync(temp, file);
    } finally {
      removeTemp(temp);
    }
    return file;
  } catch {
    return undefined;
  }
}

/** Whether `path` is this user's, not a symbolic link, and has none of the mode bits of `forbidden`. */
function ownPrivate(path: string, forbidden: number): boolean {
  const st = lstatOrUndefined(path);
  const uid = process.getuid?.();
  return st !== undefined && !st.isSymbolicLink() && (uid === undefined || st.uid === uid) && (st.mode & forbidden) === 0;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
