/** A field-level validation problem; `field` is a path such as `item[0].productOrService.coding[0].code`. */
export interface FieldError {
  field: string;
  message: string;
}

/** Thrown by domain functions when input breaks a rule; carries every problem found, each with its path. */
export class ValidationError extends Error {
  readonly errors: FieldError[];
  constructor(errors: FieldError[]) {
    super(errors.map((e) => (e.field ? `${e.field}: ${e.message}` : e.message)).join('; '));
    this.name = 'ValidationError';
    this.errors = errors;
  }
}
