import { createHash, randomBytes } from 'node:crypto';

/** An opaque identifier such as sub_4f1c9a0b2e7d6c35a8e1 (prefix + 20 hex). */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(10).toString('hex')}`;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** FHIR ids allow only [A-Za-z0-9-.] (DESIGN.md section 4): engine ids are mapped, not reused. */
export function fhirId(id: string): string {
  return id.replace(/[^A-Za-z0-9\-.]/g, '-');
}
