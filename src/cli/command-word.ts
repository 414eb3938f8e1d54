// What `tpa` must know of its arguments before loading the command tree: the command word, and the
// version. Kept apart from program.ts so that `tpa --help` and `tpa --version` load no commander.

/** The version, from package.json at build time (scripts/build.mjs, vitest.config.ts): its one home. */
declare const __TPA_VERSION__: string;
export const VERSION: string = __TPA_VERSION__;

/** The oldest Node tpa runs on (package.json "engines"); on an older one SQLite's binding crashes. */
declare const __TPA_NODE_MINIMUM__: string;

/** Why this Node cannot run tpa, or undefined when it can. */
export function unsupportedNode(version: string = process.versions.node): string | undefined {
  const have = version.split('.').map(Number);
  const need = __TPA_NODE_MINIMUM__.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) > need[i]!) return undefined;
    if ((have[i] ?? 0) < need[i]!)
      return `tpa needs Node.js ${__TPA_NODE_MINIMUM__} or later; this is Node.js ${version}. Run it with a newer Node, or from its project folder with npx tpa (which brings its own).`;
  }
  return undefined;
}

/** The options that shape the output for a script (docs/scripting.md "Scripts: fields, jq and templates"). */
export const SHAPE_OPTIONS = ['--json', '--jq', '--template'] as const;

/**
 * The command word of an argument list (skipping global options and their values), i.e. the noun
 * whose subcommands must be registered; `help <noun>` names it too.
 */
export function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return undefined;
    // --json's fields come after the command (`tpa ledger list --json id`): before it, the next word
    // is the command's (run.ts), not a field.
    if (['-p', '--profile', '-o', '--output', ...SHAPE_OPTIONS.filter((o) => o !== '--json')].includes(arg)) i++;
    else if (!arg.startsWith('-')) return arg === 'help' ? args[i + 1] : arg;
  }
  return undefined;
}
