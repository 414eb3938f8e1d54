// jq expressions for `--jq` (docs/scripting.md "Scripts: fields, jq and templates"): real jq, the C
// program compiled to WebAssembly (jq-wasm), run in-process, no binary on the PATH. Loaded only when
// an expression is given: `tpa --help` and every command without --jq never read it. It sees only
// what it is given: its environment (`env`, `$ENV`) is WebAssembly's own, never tpa's, and its files
// are in memory.
import { createRequire } from 'node:module';
import { UsageError } from '../errors.js';

/** jq applied to one input: its results, in order. Throws tpa's UsageError with jq's message. */
export type JqProgram = (input: unknown) => unknown[];

interface JqHandle {
  json(input: unknown, query: string): unknown[];
  raw(input: unknown, query: string): { stdout: string; stderr: string; exitCode: number };
}

let loading: Promise<JqHandle> | undefined;

/** jq's compile errors exit 3; an error while running, 5 (jq's manual, "Invocation"). */
const COMPILE_ERROR = 3;

/** Runs `expression` over `input` and returns its results in order (each jq output value). */
export async function jq(expression: string, input: unknown): Promise<unknown[]> {
  return (await jqProgram(expression))(input);
}

/**
 * `expression` compiled and checked once, before anything is sent: a syntax error or an unknown
 * function is a usage error now, not after a request. The program then runs synchronously, so a
 * list printed as its pages arrive applies it to each page as it is written.
 */
export async function jqProgram(expression: string): Promise<JqProgram> {
  // require(), not import(): the built command tree is compiled by node:vm, which has no import() of its own (scripts/build.mjs).
  const handle = await (loading ??= (createRequire(import.meta.url)('jq-wasm') as typeof import('jq-wasm')).loadJq() as Promise<JqHandle>);
  // `null` as input: a compile error shows whatever the input; an error that needs data waits for it.
  let probe: ReturnType<JqHandle['raw']>;
  try {
    probe = handle.raw(null, expression);
  } catch (err) {
    throw aborted(expression, err);
  }
  if (probe.exitCode === COMPILE_ERROR) throw jqError(expression, probe.stderr);
  return (input) => {
    try {
      // As JSON text always: jq-wasm would take a string input as JSON text itself, not as a string.
      return handle.json(JSON.stringify(input === undefined ? null : input), expression);
    } catch (err) {
      if (isAbort(err)) throw aborted(expression, err);
      throw jqError(expression, (err as { stderr?: string }).stderr ?? (err as Error).message);
    }
  };
}

/** WebAssembly's RuntimeError (its type is not in the TypeScript library tpa compiles with). */
function isAbort(err: unknown): err is Error {
  return err instanceof Error && err.constructor.name === 'RuntimeError';
}

/**
 * jq's WebAssembly stopped (its memory exhausted by `[range(1e9)]`, an overflow of its stack): the
 * expression's doing, a usage error naming it, never tpa's internal error. The next use loads jq anew.
 */
function aborted(expression: string, err: unknown): unknown {
  if (!isAbort(err)) return err;
  loading = undefined;
  return new UsageError(
    `--jq ${JSON.stringify(expression)}: jq stopped (${err.message.replace(/\. Build with .*$/, '')}): the expression needs more memory than jq has`,
    {
      hint: 'build smaller results: limit(n; …), first(…), or a stream instead of one array',
    },
  );
}

function jqError(expression: string, stderr: string): UsageError {
  const message = stderr.trim().replace(/ \(at \/dev\/stdin:\d+\)/g, '');
  return new UsageError(`--jq ${JSON.stringify(expression)}: ${message}`);
}
