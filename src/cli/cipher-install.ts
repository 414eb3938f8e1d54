// The hint of an encrypted database met without the cipher package (engine/store/cipher.ts
// cipherSqlite throws CipherPackageMissing): the one npm command that installs it where this tpa
// finds it. The engine says what is missing; the CLI, how a person installs it.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../render/shell.js';

declare const __TPA_CIPHER_VERSION__: string;

/**
 * The command that puts the cipher package `pkg` where tpa's folder `root` resolves it: beside tpa in a
 * global install (`<prefix>/lib/node_modules/tpa`), in the project of which tpa is a dependency
 * (`<project>/node_modules/tpa`), or, in a clone, the project's own install (a devDependency).
 */
export function cipherInstallCommand(root: string, pkg: string, version: string = __TPA_CIPHER_VERSION__): string {
  const modules = dirname(root);
  if (basename(modules) !== 'node_modules') return `npm install --prefix ${shellQuote(root)}`;
  const spec = `${pkg}@${version}`;
  const above = dirname(modules);
  if (basename(above) === 'lib') return `npm install -g --prefix ${shellQuote(dirname(above))} ${spec}`;
  return `npm install --prefix ${shellQuote(above)} ${spec}`;
}

/** The folder of tpa's package.json: the nearest above `file` (src/… in a clone, dist/… in a package). */
function packageRoot(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** "install it with: <command>": the package `pkg` (the engine names it), for this tpa's own folder. */
export function cipherInstallHint(pkg: string): string {
  return `install it with: ${cipherInstallCommand(packageRoot(fileURLToPath(import.meta.url)), pkg)}`;
}
