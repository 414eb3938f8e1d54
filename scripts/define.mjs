// Constants compiled into tpa wherever its source is bundled or transformed (the build, the test
// runner, the benches), so that each has one home: the version is package.json's.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

export const define = { __TPA_VERSION__: JSON.stringify(pkg.version) };
