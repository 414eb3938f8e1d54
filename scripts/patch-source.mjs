// An esbuild plugin that rewrites one source file as it is bundled: `marker` (a string, or a RegExp)
// must be in it, or the build stops naming the plugin (the file changed: the patch must follow it);
// the first match is replaced by `replace` (a string, or a function of the match, as String.replace
// takes). `prelude`, when given, goes before the file's code (an import the replacement needs).
import { readFileSync } from 'node:fs';

export function patchSource(name, fileFilter, marker, replace, { loader = 'ts', prelude = '' } = {}) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter: fileFilter }, (args) => {
        const code = readFileSync(args.path, 'utf8');
        const found = typeof marker === 'string' ? code.includes(marker) : marker.test(code);
        if (!found) throw new Error(`${args.path} no longer has ${marker}: see ${name}`);
        return { contents: `${prelude}${code.replace(marker, replace)}`, loader };
      });
    },
  };
}
