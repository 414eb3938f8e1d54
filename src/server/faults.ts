// Sandbox triggers for the unhappy paths of the wire (docs/local.md "Sandbox triggers"): TPA_FAULT names
// faults for requests whose path contains a given part, so that scripts and tests see what a retry
// or a recovery does. The same grammar in `tpa local serve` (server.ts) and in-process
// (src/local/transport.ts borrows it from here, so that a fault acts alike on both transports):
//   TPA_FAULT=<fault>[*<count>]:<path part>[,<fault>...]
//   lose-response   the request is processed, then the connection drops before the answer
//   drop            the connection drops before the request is processed (nothing happens)
//   error-<5xx>     answered with that status, unprocessed (e.g. error-503)
//   slow-<ms>       answered after that many milliseconds (then processed as usual)
//   late-<ms>       processed at once, answered that many milliseconds later (a client killed in
//                   between never hears of what the service did)
//   approved-elsewhere  for a fund approval: another approval of the encounter, with another
//                   authorization code, lands first; then the connection drops before the answer
// `*<count>`: only the first <count> matching requests (of the process, or of the server's life).
import { InvalidInput } from '../engine/errors.js';
import type { EngineResponse } from '../engine/exchange.js';

export type FaultKind =
  | { kind: 'lose-response' }
  | { kind: 'drop' }
  | { kind: 'approved-elsewhere' }
  | { kind: 'error'; status: number }
  | { kind: 'slow'; ms: number }
  | { kind: 'late'; ms: number };

interface Rule {
  fault: FaultKind;
  pathPart: string;
  /** Matching requests still to fault; Infinity without a count. */
  left: number;
}

export class Faults {
  private constructor(private readonly rules: Rule[]) {}

  /** The faults TPA_FAULT names; none when it is unset or empty. */
  static parse(text: string | undefined): Faults {
    if (text === undefined || text.trim() === '') return new Faults([]);
    const rules = text.split(',').map((part): Rule => {
      const m = /^\s*(lose-response|drop|approved-elsewhere|error-(5\d\d)|slow-(\d+)|late-(\d+))(?:\*(\d+))?:(\S+)\s*$/.exec(part);
      if (!m) {
        throw new InvalidInput(
          `TPA_FAULT: "${part.trim()}" is not a fault: use lose-response, drop, approved-elsewhere, error-503, slow-2000 or late-2000, an optional *count, then :<path part>`,
        );
      }
      const fault: FaultKind = m[2]
        ? { kind: 'error', status: Number(m[2]) }
        : m[3]
          ? { kind: 'slow', ms: Number(m[3]) }
          : m[4]
            ? { kind: 'late', ms: Number(m[4]) }
            : { kind: m[1] as 'lose-response' | 'drop' | 'approved-elsewhere' };
      return { fault, pathPart: m[6]!, left: m[5] === undefined ? Infinity : Number(m[5]) };
    });
    return new Faults(rules);
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /** The fault for a request to this path, if any; counts it against the fault's count. */
  take(path: string): FaultKind | undefined {
    for (const rule of this.rules) {
      if (rule.left > 0 && path.includes(rule.pathPart)) {
        rule.left--;
        return rule.fault;
      }
    }
    return undefined;
  }
}

/** What the client gets: an answer, or a connection dropped before any answer. */
export type FaultOutcome = { response: EngineResponse } | { hangUp: true };

/**
 * Applies a fault to one request, the same way in-process and over HTTP: `work` processes the
 * request with the body given; without a fault it simply runs.
 */
export async function withFault(
  fault: FaultKind | undefined,
  body: string | undefined,
  work: (body: string | undefined) => EngineResponse,
): Promise<FaultOutcome> {
  switch (fault?.kind) {
    case undefined:
      return { response: work(body) };
    case 'drop':
      return { hangUp: true };
    case 'error':
      return {
        response: {
          status: fault.status,
          headers: {},
          body: { error: 'injected_fault', message: `The server answered ${fault.status} (simulated by TPA_FAULT)` },
        },
      };
    case 'slow':
      await new Promise((r) => setTimeout(r, fault.ms));
      return { response: work(body) };
    case 'late': {
      const response = work(body);
      await new Promise((r) => setTimeout(r, fault.ms));
      return { response };
    }
    case 'lose-response':
      work(body);
      return { hangUp: true };
    case 'approved-elsewhere':
      work(elsewhere(body));
      return { hangUp: true };
  }
}

/** The body of `approved-elsewhere`: the same approval under another authorization code. */
function elsewhere(body: string | undefined): string | undefined {
  try {
    const parsed = JSON.parse(body ?? '') as Record<string, unknown>;
    return JSON.stringify({ ...parsed, authorization_code: `ELSEWHERE-${String(parsed.authorization_code)}` });
  } catch {
    return body;
  }
}
