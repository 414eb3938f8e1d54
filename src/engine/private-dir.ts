// The data directory is its user's alone: a folder or file there that another user owns, or that
// cannot be made private, is refused before anything in it is read or written. Another user who
// owns the folder (or planted a file in it while it was open to others) could read what tpa writes
// there, or hand tpa a database of their own; narrowing the mode cannot undo either, so nothing
// there is used. No SQLite here: the client checks the journals folder with it too.
import { chmodSync, mkdirSync, readFileSync, statSync } from 'node:fs';

/** The user id tpa runs as, or undefined where there is none (Windows). */
function currentUid(): number | undefined {
  return process.getuid?.();
}

/** "uid 65534 (nobody)": the user's name from /etc/passwd when it is there. */
export function describeUid(uid: number): string {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (id === String(uid) && name) return `uid ${uid} (${name})`;
    }
  } catch {
    // no passwd file: the number alone
  }
  return `uid ${uid}`;
}

const octal = (mode: number) => mode.toString(8).padStart(4, '0');

/**
 * Why `path` (a folder or a file of the data directory, `what` in the message) cannot hold member
 * data, or undefined when it can: it belongs to the current user and is, or has just been made,
 * closed to the group and others (`keep` the owner's bits that stay: 0700 for a folder, 0600 for a
 * file; a folder or file its owner made read-only stays so). `note` hears of a mode narrowed.
 * An absent path has no problem (whoever creates it next makes it private). With `narrow` false
 * only the owner is checked, nothing changed.
 */
export function privatePathProblem(path: string, what: string, keep: number, note?: (text: string) => void, narrow = true): string | undefined {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  const uid = currentUid();
  if (uid !== undefined && st.uid !== uid) {
    return `${what} ${path} belongs to ${describeUid(st.uid)}, not to the user tpa runs as (${describeUid(uid)}): tpa keeps member data only where no other user can read or replace it, so nothing there was read or written; use a data folder of your own (TPA_HOME), or have it moved away`;
  }
  const mode = st.mode & 0o777;
  if (!narrow || (mode & 0o077) === 0) return undefined;
  const narrowed = mode & keep;
  try {
    chmodSync(path, narrowed);
  } catch (err) {
    return `${what} ${path} is open to others (mode ${octal(mode)}) and could not be narrowed to ${octal(narrowed)} (${(err as Error).message}): nothing there was read or written; make it ${octal(narrowed)} or use a data folder of your own (TPA_HOME)`;
  }
  note?.(`tpa: ${what} ${path} was readable by others (mode ${octal(mode)}); it is now ${octal(narrowed)}, the owner's alone`);
  return undefined;
}

/**
 * The data folder, made 0700 when absent whatever the umask (unless `create` is false), checked as privatePathProblem checks,
 * and its journals folder too when there is one. The first problem, or undefined.
 */
export function privateDataDirProblem(dir: string, note?: (text: string) => void, create = true): string | undefined {
  try {
    if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    // A folder that cannot be made: whatever opens a file in it says so.
  }
  return privatePathProblem(dir, 'the data folder', 0o700, note) ?? privatePathProblem(`${dir}/journals`, 'the journals folder', 0o700, note);
}

/** A note on stderr, the default of what tells the user (the CLI passes its own). */
export function stderrNote(text: string): void {
  process.stderr.write(`${text}\n`);
}
