// The engine's own errors, for what it refuses outside a request (opening its file, its settings,
// the sandbox and clock commands; the server's TPA_FAULT too): what went wrong, in the engine's
// words, and no exit code. A request's refusal is an answer instead (HttpError, exchange.ts). One
// function gives each kind its exit code (fromEngineError, src/errors.ts): the CLI entry calls it
// for what a command got from the engine directly, the local transport for what it hands the client.

export interface EngineErrorOptions {
  /** A machine-readable code more precise than the kind, e.g. database_key_wrong. */
  code?: string;
  /** A next step for the user, e.g. "try: tpa local encrypt". */
  hint?: string;
}

export abstract class EngineError extends Error {
  abstract readonly kind: 'invalid' | 'not_found' | 'conflict' | 'database_key' | 'unusable_database';
  readonly code: string | undefined;
  readonly hint: string | undefined;
  constructor(message: string, options: EngineErrorOptions = {}) {
    super(message);
    this.name = new.target.name;
    this.code = options.code;
    this.hint = options.hint;
  }
}

/** A setting or an argument the engine cannot use: a malformed TPA_CLOCK, a clock set back, a key that is not hex. */
export class InvalidInput extends EngineError {
  readonly kind = 'invalid';
}

/** What was named does not exist: an encounter, a transfer. */
export class NotFound extends EngineError {
  readonly kind = 'not_found';
}

/** The stored state forbids it: a transfer in the wrong status, a database in use by another process. */
export class Conflict extends EngineError {
  readonly kind = 'conflict';
}

/** The database is encrypted and no key was found for it, or the key given does not open it. */
export class DatabaseKeyError extends EngineError {
  readonly kind = 'database_key';
}

/** The database cannot be used as this tpa is: written by a newer tpa, or encrypted without the cipher package. */
export class UnusableDatabase extends EngineError {
  readonly kind = 'unusable_database';
}

/** The database is encrypted and the cipher package `packageName` is not installed: the CLI says how to install it (cli/cipher-install.ts). */
export class CipherPackageMissing extends UnusableDatabase {
  constructor(
    message: string,
    readonly packageName: string,
  ) {
    super(message);
  }
}
