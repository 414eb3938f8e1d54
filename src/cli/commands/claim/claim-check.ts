// A claim checked before anything is sent, with the engine's own rules: `claim validate`, `claim
// submit --dry-run` and `claim submit` (one claim) refuse a bad one alike, exit 2 naming every bad
// field with where it is (file:line:column) (docs/claim-batches.md "Checking claims before sending them").
import { ValidationError } from '../../../domain/errors.js';
import { everyProblem } from '../../../domain/claim-problems.js';
import { type ParseOptions, parseClaimText, type ParsedClaim, parseReadClaim } from '../../../domain/fhir-claim.js';
import { centsToAmount, formatCentsGrouped, jsonNumberToCents } from '../../../domain/money.js';
import { type PlacedError, type Position, placeErrors } from '../../../domain/json-position.js';

export type { PlacedError };
import { ValidationFailed } from '../../../errors.js';
import { oneLine } from '../../../render/screen.js';
import { sameIdentityMessage } from '../../../domain/x12-identity.js';
import { FirstSeen } from '../../../jobs/first-seen.js';
import type { Context } from '../../context.js';
import type { ClaimText } from './submit-sources.js';

/**
 * Where an error is, as an editor and a terminal take it: `file:line:column`, the Bundle entry after
 * it (`bundle.json:1:212 (entry[1])`); the source alone when its place is unknown.
 */
export function placeOf(name: string, e: PlacedError): string {
  // A file name is outside text on one line: its line breaks shown as escapes (render/screen.ts).
  const source = oneLine(name);
  // A claim from X12: its place in the file, then the segment (`file.837: ST 0001, CLM P1, SV1 #2`).
  if (e.segment !== undefined) return `${source}, ${e.segment}`;
  if (e.line === undefined) return source;
  const entry = /^(.*)#(entry\[\d+\])$/s.exec(source);
  const of = entry ? entry[1]! : source;
  // An NDJSON line (`file:3`, or a Bundle on that line, `file:3#entry[0]`): the line is said once.
  const lined = /^(.*):(\d+)$/s.exec(of);
  const file = lined && Number(lined[2]) === e.line ? lined[1]! : of;
  return `${file}:${e.line}:${e.column ?? 1}${entry ? ` (${entry[2]})` : ''}`;
}

/** One line a bad field: `file:line:column: field: message`. */
export function errorLine(source: string, e: PlacedError): string {
  return `${placeOf(source, e)}: ${e.field ? `${e.field}: ` : ''}${e.message}`;
}

/**
 * One X12 identity is one claim (docs/x12.md "837 in", its Journal): for `claim validate` and `claim convert`, a
 * function that gives back each claim, the second of an identity with the refusal `claim submit` gives it.
 */
export function sameIdentitySaid(): (item: ClaimText) => ClaimText {
  // Every identity of the run is kept: as digests, so that 100,000 claims stay within bounds (first-seen.ts).
  const first = new FirstSeen();
  return (item) => {
    if (!item.identity) return item;
    const firstOf = first.firstOf(item.identity.claim, oneLine(item.source));
    if (firstOf === undefined) return item;
    return { ...item, errors: [...(item.errors ?? []), { field: '', message: sameIdentityMessage(item.identity.claim, firstOf) }] };
  };
}

/** The one claim a command was given, validated (exit 2 otherwise): too large, or an empty stdin, said as its reader says it. */
export function validateOneClaim(item: ClaimText, options: ParseOptions = {}): ParsedClaim {
  // An empty file or bad JSON is the parser's to say.
  if (item.problem !== undefined && item.text.trim() === '' && !item.problem.startsWith('not valid JSON'))
    throw new ValidationFailed(`${oneLine(item.source)}: ${item.problem}`);
  return validateClaim(item.text, item.source, item.locate, item.problem, item.value, options);
}

/** Local validation with the engine's own rules; exits 2 naming every bad field (and where), nothing sent. */
export function validateClaim(
  text: string,
  source: string,
  locate?: (field: string) => Position | undefined,
  problem?: string,
  value?: unknown,
  options: ParseOptions = {},
): ParsedClaim {
  const where = source === '-' ? 'stdin' : oneLine(source);
  const refuse = (placed: PlacedError[]): never => {
    const lines = placed
      .map((e) => `  ${e.line !== undefined ? `${placeOf(where, e)}: ${e.field ? `${e.field}: ` : ''}` : `${e.field || '(file)'}: `}${e.message}`)
      .join('\n');
    throw new ValidationFailed(`${where} is not a valid claim:\n${lines}`, { details: placed });
  };
  // Not JSON, as the reader found it: file:line:column and why, as for many claims (an empty file is the parser's to say).
  if (problem?.startsWith('not valid JSON') && text.trim() !== '') refuse(placeErrors([{ field: '', message: problem }], locate));
  // A claim the reader read but cannot send as it is (a Bundle whose entries share a fullUrl), or X12 through a pipe: its problem.
  if (problem !== undefined && (value !== undefined || problem.startsWith('is X12'))) refuse([{ field: '', message: problem }]);
  try {
    // What the reader parsed is checked as a batch's claims are (parseReadClaim); an empty or broken text is the parser's to say.
    return value !== undefined && problem === undefined ? parseReadClaim(text, value, options) : parseClaimText(text, options);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // A field is located in the file.
    return refuse(placeErrors(err.errors, (field) => (field === '' ? undefined : locate?.(field))));
  }
}

/** What `claim validate` says of one claim among many: one line of `-o ndjson`. */
export interface CheckedClaim {
  source: string;
  valid: boolean;
  errors: PlacedError[];
  type: string | null;
  provider_npi: string | null;
  member_id: string | null;
  lines: number | null;
  cpt_codes: string[] | null;
  total_charges: number | null;
}

/**
 * One claim of the readers checked: its summary when valid, its placed errors when not. A claim read
 * from X12 gets every problem at once: the reader's (each with its segment) and the field rules' on
 * the converted claim (domain/claim-problems.ts). `options.today`: the date after which a claim's
 * dates are refused, as the service refuses them.
 */
export function checkClaim(item: ClaimText, options: ParseOptions = {}): { checked: CheckedClaim; parsed?: ParsedClaim } {
  const none = { type: null, provider_npi: null, member_id: null, lines: null, cpt_codes: null, total_charges: null };
  if (item.problem !== undefined || item.value === undefined) {
    const errors = placeErrors([{ field: '', message: item.problem ?? 'not a claim' }], item.locate);
    return { checked: { source: item.source, valid: false, errors, ...none } };
  }
  const result = everyProblem(item.text, item.value, item.errors, item.segmentOf, options);
  if (result.errors) return { checked: { source: item.source, valid: false, errors: placeErrors(result.errors, item.locate, item.segmentOf), ...none } };
  return { parsed: result.parsed, checked: { source: item.source, valid: true, errors: [], ...claimSummary(result.parsed) } };
}

/**
 * Today on this machine's clock (TPA_CLOCK when set, as the local engine reads it), YYYY-MM-DD UTC:
 * the claim check's today where the service's own clock cannot be asked (another profile).
 */
export function machineToday(env: NodeJS.ProcessEnv): string {
  const frozen = env.TPA_CLOCK ? new Date(env.TPA_CLOCK) : undefined;
  const now = frozen && !Number.isNaN(frozen.getTime()) ? frozen : new Date();
  return now.toISOString().slice(0, 10);
}

/** What a valid claim is, in a line: its type, billing provider, member, lines, codes and charges. */
export function claimSummary(parsed: ParsedClaim) {
  return {
    type: parsed.type,
    provider_npi: parsed.providerNpi,
    // A dependent named by name and birth date has no member id until the engine finds them.
    member_id: parsed.memberId === '' ? null : parsed.memberId,
    ...(parsed.dependent
      ? {
          dependent: {
            subscriber_id: parsed.dependent.subscriberId,
            family: parsed.dependent.family,
            given: parsed.dependent.given,
            birth_date: parsed.dependent.birthDate,
          },
        }
      : {}),
    lines: parsed.lines.length,
    // A revenue-code-only line has no procedure code: its revenue code stands for it.
    cpt_codes: parsed.lines.map((l) => l.cptCode || `rev ${l.revenueCode ?? ''}`),
    total_charges: centsToAmount(parsed.totalChargeCents),
  };
}

/** What the claim check of `claim validate` left to the service, where it cannot ask the engine. */
export const NOT_CHECKED_REMOTELY =
  "not checked here: the provider's contract and rates, the member's eligibility and benefits, duplicates; the service judges them when the claim is sent";

interface CheckedLine {
  sequence: number;
  /** Null on a revenue-code-only line. */
  cpt_code: string | null;
  status: string;
  reason_code: string | null;
  reason: string | null;
  /** Remark codes of a line denied because tpa does not price its code. */
  remark_codes?: string[];
}

/**
 * What the engine would do with a claim, asked without sending it (engine.ts checkClaim): on the
 * embedded engine, whether it would be refused (`accepted` false, with the engine's errors) and,
 * when accepted, its disposition and each line that would not be paid in full, in the engine's words.
 */
export type EngineCheck =
  | {
      checked: true;
      accepted: boolean;
      disposition: string | null;
      /** One line: what the engine would say. */
      says: string;
      errors: { field: string; message: string }[];
      /** The lines that would not be paid in full (not ALLOWED), with their reasons. */
      lines: CheckedLine[];
    }
  | { checked: false; not_checked: string };

// biome-ignore lint/suspicious/noExplicitAny: an engine answer as JSON
type Answer = { status: number; body: any };

/** An engine answer to checkClaim as an EngineCheck. */
export function engineCheckOf(answer: Answer): EngineCheck {
  const b = answer.body ?? {};
  if (answer.status >= 400) {
    const errors: { field: string; message: string }[] = Array.isArray(b.errors)
      ? b.errors
      : [{ field: '', message: String(b.message ?? b.error ?? `HTTP ${answer.status}`) }];
    return {
      checked: true,
      accepted: false,
      disposition: null,
      says: `the engine would refuse it: ${errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; ')}`,
      errors,
      lines: [],
    };
  }
  const lines = ((b.lines ?? []) as CheckedLine[]).filter((l) => l.status !== 'ALLOWED');
  const disposition = String(b.disposition ?? 'ADJUDICATED');
  const said =
    disposition === 'DENIED'
      ? `${b.denial_code ?? ''} ${b.denial_reason ?? ''}`.trim()
      : disposition === 'PENDING_REVIEW'
        ? String(b.pend_reason ?? 'a preauthorization is needed')
        : disposition === 'VOIDED'
          ? String(b.message ?? 'the claim it names is voided')
          : `benefit ${formatCentsGrouped(jsonNumberToCents(b.adjudication?.benefit_amount) ?? 0)}`;
  const unpaid = lines.map(
    (l) =>
      `line ${l.sequence}${l.cpt_code ? ` (${l.cpt_code})` : ''} ${l.status}${l.reason_code ? ` ${l.reason_code}` : ''}${l.remark_codes?.length ? ` ${l.remark_codes.join(' ')}` : ''}${l.reason ? ` ${l.reason}` : ''}`,
  );
  return {
    checked: true,
    accepted: true,
    disposition,
    says: `would be ${disposition}: ${said}${unpaid.length > 0 && disposition !== 'DENIED' && disposition !== 'VOIDED' ? `; ${unpaid.join('; ')}` : ''}`,
    errors: [],
    lines,
  };
}

/**
 * Asks the embedded engine what it would do with each claim, on the local profile (one engine
 * opened for all of them); elsewhere says what was not checked. Nothing is sent or kept.
 */
export async function engineChecker(ctx: Context): Promise<{ check(text: string): EngineCheck; close(): void }> {
  if (ctx.profile().env !== 'local') return { check: () => ({ checked: false, not_checked: NOT_CHECKED_REMOTELY }), close: () => undefined };
  const { LocalTransport } = await import('../../../local/transport.js');
  const transport = new LocalTransport(ctx.paths.dataDir, ctx.io.env);
  const engine = await transport.open();
  return {
    check: (text) => engineCheckOf(engine.checkClaim(text)),
    close: () => transport.close(),
  };
}
