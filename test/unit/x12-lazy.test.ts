// Start-up of JSON-only claim commands (docs/design.md "Start-up"): `claim submit` and `claim
// validate` of JSON claims do not load the X12 reader (src/domain/x12-837.ts, ~1,000 lines); it is
// imported dynamically where an X12 file is met. Checked on the module graph as esbuild bundles it
// (the build, scripts/build.mjs, evaluates a dynamically imported module on its first import only):
// split into chunks, what the readers' entries load statically holds no X12 module.
import { build, type Metafile } from 'esbuild';
import { expect, it } from 'vitest';

const READERS = ['src/cli/commands/claim/submit-sources.ts', 'src/cli/commands/claim/check-batch.ts'];

it('the claim readers load the X12 reader only through a dynamic import', async () => {
  const { metafile } = await build({
    entryPoints: READERS,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = (metafile as Metafile).outputs;
  /** The inputs of an output and of every chunk it imports statically. */
  const staticInputs = (output: string, seen = new Set<string>()): Set<string> => {
    if (seen.has(output)) return new Set();
    seen.add(output);
    const inputs = new Set(Object.keys(outputs[output]!.inputs));
    for (const i of outputs[output]!.imports) if (i.kind === 'import-statement' && outputs[i.path]) for (const x of staticInputs(i.path, seen)) inputs.add(x);
    return inputs;
  };
  for (const entry of READERS) {
    const output = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === entry)!;
    const loaded = staticInputs(output);
    expect(loaded.has(entry), entry).toBe(true);
    expect(
      [...loaded].filter((m) => /x12-(837|source)\.ts$|x12-parser/.test(m)),
      entry,
    ).toEqual([]);
  }
  // Reached all the same, where an X12 file is read.
  expect(Object.values(outputs).some((o) => 'src/domain/x12-837.ts' in o.inputs)).toBe(true);
});
