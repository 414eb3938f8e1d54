// Which answer of a remote service the CLI last took in (docs/design.md "Exit codes"): when reading or
// rendering a service's answer throws (a field the service should have sent is missing, a value is
// not of its kind), the command reports an answer tpa cannot use, naming its route (exit 8), not an
// internal error of tpa's. Only HTTP answers are recorded: the embedded engine's are tpa's own.

/** A route a remote service answered. */
export interface RemoteAnswer {
  base: string;
  method: string;
  path: string;
}

let last: RemoteAnswer | undefined;

/** Records that `base` answered `method path` with a body the CLI now reads. */
export function answered(answer: RemoteAnswer): void {
  last = answer;
}

/** The last remote answer of this command, if any. */
export function lastRemoteAnswer(): RemoteAnswer | undefined {
  return last;
}

/** Each command starts with none. */
export function forgetAnswers(): void {
  last = undefined;
}
