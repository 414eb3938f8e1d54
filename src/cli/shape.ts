// `--json <fields>`, `--jq <expr>` and `--template <string>` of a command (docs/scripting.md "Scripts:
// fields, jq and templates"): checked against what the command declares it prints, all before the
// command runs, so that a mistake sends nothing. jq and the template parser load only when given.
import { UsageError } from '../errors.js';
import type { OutputShape } from '../render/shape.js';
import type { GlobalOptions } from './context.js';

/** What the options ask for, and where -o came from (a -o table typed on the line is refused beside them). */
export interface ShapeRequest {
  /** The command as typed: "ledger list". */
  command: string;
  /** The fields the command's records have (verb.ts `fields`); undefined when it prints no records. */
  fields: readonly string[] | undefined;
  /** The command prints JSON whose fields it does not declare (verb.ts `undeclaredJson`): --jq and --template only. */
  undeclaredJson?: boolean;
  globals: GlobalOptions;
  /** Where --output came from: "cli" when typed, "env" for TPA_OUTPUT. */
  outputSource: string | undefined;
  /** stdout is a terminal: jq's results are indented there. */
  terminal: boolean;
}

/** The header of the field list, gh's words. */
export const FIELD_LIST_HEADER = 'Specify one or more comma-separated fields for `--json`:';

export type ShapeDecision = { kind: 'none' } | { kind: 'list'; text: string } | { kind: 'shape'; shape: OutputShape };

/**
 * The shape to print with, nothing when none of the options is given, or the field list (`--json`
 * with no fields, as gh: on stderr, and the command does not run). Refusals are usage errors.
 */
export async function outputShape(request: ShapeRequest): Promise<ShapeDecision> {
  const { globals, command, fields } = request;
  const given = [globals.json !== undefined ? '--json' : '', globals.jq !== undefined ? '--jq' : '', globals.template !== undefined ? '--template' : ''].filter(
    Boolean,
  );
  if (given.length === 0) return { kind: 'none' };
  if (request.undeclaredJson && globals.json !== undefined)
    throw new UsageError(`tpa ${command} prints the answer as the service gave it, whose fields tpa does not declare: --json cannot select them`, {
      hint: `--jq picks fields from it, as with gh's api: --jq '{id, status}', --jq '.results[] | .id'`,
    });
  if (fields === undefined && !request.undeclaredJson)
    throw new UsageError(`tpa ${command} prints no records: ${given.join(', ')} cannot shape its output`, {
      hint: 'they apply to the commands that print records (lists, a record, results); tpa help formats',
    });
  // An empty filter would print nothing, and a command that acts would act in silence: refused before anything is sent.
  for (const [flag, value] of [
    ['--jq', globals.jq],
    ['--template', globals.template],
  ] as const)
    if (value !== undefined && value.trim() === '')
      throw new UsageError(`${flag} is empty: give an expression, or leave the option out; nothing was sent`, { hint: 'tpa help formats' });
  if (globals.jq !== undefined && globals.template !== undefined) throw new UsageError('--jq and --template cannot be given together: give one');
  if (request.outputSource === 'cli' && (globals.output === 'table' || globals.output === 'csv'))
    throw new UsageError(`-o ${globals.output} cannot be given with ${given.join(', ')}, which print JSON or text of their own: give one`);
  const selected = Array.isArray(globals.json) ? globals.json : undefined;
  if (fields !== undefined && (globals.json === true || selected?.length === 0)) return { kind: 'list', text: fieldList(fields) };
  if (fields !== undefined && selected) {
    const unknown = selected.filter((f) => !fields.includes(f));
    if (unknown.length > 0)
      throw new UsageError(
        `--json: ${unknown.length === 1 ? 'unknown field' : 'unknown fields'} ${unknown.map((f) => `"${f}"`).join(', ')} for tpa ${command}; its fields: ${fields.join(', ')}`,
        { hint: '-o json prints the whole output' },
      );
  }
  const shape: OutputShape = { fields: selected, indent: request.terminal };
  if (globals.jq !== undefined) shape.jq = await (await import('../render/jq.js')).jqProgram(globals.jq);
  if (globals.template !== undefined) shape.template = (await import('../render/template.js')).parseTemplate(globals.template);
  return { kind: 'shape', shape };
}

function fieldList(fields: readonly string[]): string {
  return `${FIELD_LIST_HEADER}\n${[...fields]
    .sort()
    .map((f) => `  ${f}\n`)
    .join('')}`;
}
