// Constants compiled into tpa wherever its source is bundled or transformed (the build, the test
// runner, the benches), so that each has one home: package.json's version, engines and the
// encryption package's version.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

export const define = {
  __TPA_VERSION__: JSON.stringify(pkg.version),
  // ">=22.14" → "22.14": the oldest Node tpa runs on.
  __TPA_NODE_MINIMUM__: JSON.stringify(pkg.engines.node.replace(/^>=\s*/, '')),
  // The encryption package's version, for the command that installs it (engine/store/cipher.ts).
  __TPA_CIPHER_VERSION__: JSON.stringify(pkg.devDependencies['better-sqlite3-multiple-ciphers']),
};
