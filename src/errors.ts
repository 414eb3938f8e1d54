// The error classes of tpa, each knowing its exit code (docs/design.md "Exit codes").
// The CLI entry point maps them once; the client raises them from service responses, and turns the
// embedded engine's own errors into them with fromEngineError (the one place an engine error gets
// an exit code).
import { cipherInstallHint } from './cli/cipher-install.js';
import { CipherPackageMissing, type EngineError } from './engine/errors.js';

export const EXIT = {
  OK: 0,
  INTERNAL: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  CONFLICT: 4,
  AUTH: 5,
  RATE_LIMITED: 6,
  PENDING: 7,
  NETWORK: 8,
} as const;

export interface ErrorOptions {
  /** HTTP status of the service's answer, when there was one. */
  status?: number;
  /** Machine-readable code (the service's `error`, or one of tpa's own). */
  code?: string;
  /** Structured context, e.g. the service's `errors[]` or its whole body. */
  details?: unknown;
  /** The response body as the service sent it; printed on stdout in json mode. */
  body?: unknown;
  /** A next step for the user, e.g. "try: tpa local fixtures". */
  hint?: string;
}

export class TpaError extends Error {
  readonly exitCode: number;
  readonly status: number | undefined;
  readonly code: string;
  readonly details: unknown;
  readonly body: unknown;
  readonly hint: string | undefined;
  constructor(exitCode: number, code: string, message: string, options: ErrorOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = options.code ?? code;
    this.status = options.status;
    this.details = options.details;
    this.body = options.body;
    this.hint = options.hint;
  }
}

export class UsageError extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.USAGE, 'usage_error', message, options);
  }
}
export class ValidationFailed extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.USAGE, 'validation_error', message, options);
  }
}
export class NotFoundError extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.NOT_FOUND, 'not_found', message, options);
  }
}
export class ConflictError extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.CONFLICT, 'conflict', message, options);
  }
}
export class AuthError extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.AUTH, 'auth_error', message, options);
  }
}
export class RateLimitedError extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.RATE_LIMITED, 'rate_limited', message, options);
  }
}
export class PendingError extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.PENDING, 'not_finished', message, options);
  }
}
export class NetworkError extends TpaError {
  constructor(message: string, options?: ErrorOptions) {
    super(EXIT.NETWORK, 'network_error', message, options);
  }
}

/** Local checks of several fields: one validation error listing each, exit 2. */
export function fieldsInvalid(errors: readonly { field: string; message: string }[]): ValidationFailed {
  return new ValidationFailed(errors.map((e) => `${e.field}: ${e.message}`).join('\n'), { details: errors });
}

/**
 * The error of the engine's kind (src/engine/errors.ts), same message, code and hint, with the exit
 * code of that kind. Keeps where the engine threw it, for --debug.
 */
export function fromEngineError(err: EngineError): TpaError {
  // The engine names the package missing; how a person installs it is the CLI's to say.
  const hint = err instanceof CipherPackageMissing ? cipherInstallHint(err.packageName) : err.hint;
  const options: ErrorOptions = { code: err.code, hint };
  const mapped = ((): TpaError => {
    switch (err.kind) {
      case 'invalid':
      case 'unusable_database':
        return new UsageError(err.message, options);
      case 'not_found':
        return new NotFoundError(err.message, options);
      case 'conflict':
        return new ConflictError(err.message, options);
      case 'database_key':
        return new AuthError(err.message, options);
    }
  })();
  if (err.stack) mapped.stack = err.stack.replace(/^[^\n]*/, `${mapped.name}: ${mapped.message.split('\n')[0]}`);
  return mapped;
}

type Body = Record<string, unknown>;
const isBody = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The error for a service answer of status ≥ 400, with the exit code docs/design.md "Exit codes" assigns to it. */
export function errorFromResponse(status: number, body: unknown): TpaError {
  const b: Body = isBody(body) ? body : {};
  const code = typeof b.error === 'string' ? b.error : undefined;
  const options: ErrorOptions = { status, code, body, details: b.errors ?? (isBody(body) ? body : undefined) };
  const message = describe(status, b);
  if (status === 400 && Array.isArray(b.errors)) return new ValidationFailed(message, options);
  // Funding refusals that are about state, not input (docs/api-resources.md "Funding approval preconditions").
  if (status === 400 && (typeof b.reason === 'string' || 'previous_processor_transfer_id' in b)) return new ConflictError(message, options);
  if (status === 400 || status === 413 || status === 422) return new ValidationFailed(message, options);
  if (status === 401 || status === 403) return new AuthError(message, options);
  if (status === 404) return new NotFoundError(message, options);
  if (status === 409) return new ConflictError(message, options);
  if (status === 429) return new RateLimitedError(message, options);
  if (status >= 500) return new NetworkError(message, options);
  // Any other refusal of the request as sent (405 method, 415 media type, ...) is a usage error.
  if (status >= 400) return new ValidationFailed(message, options);
  return new TpaError(EXIT.INTERNAL, code ?? `http_${status}`, message, options);
}

function describe(status: number, b: Body): string {
  if (Array.isArray(b.errors) && b.errors.length > 0) {
    return b.errors.map((e) => (isBody(e) ? (e.field ? `${String(e.field)}: ${String(e.message)}` : String(e.message)) : String(e))).join('\n');
  }
  if (typeof b.message === 'string') return b.message;
  if (typeof b.error === 'string') return b.error;
  return `the service answered ${status}`;
}
