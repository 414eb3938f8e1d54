// The engine's request and response shapes: what both transports hand to the route table.
import { duplicateKeyPath } from '../domain/json-keys.js';
import type { FieldError } from '../domain/errors.js';
import { jsonDepthProblem } from '../domain/json-depth.js';
import { wholeNumberProblem } from '../domain/validation.js';
import { ILL_FORMED, illFormedJsonField, isWellFormedText, shownText } from '../domain/well-formed.js';

export interface EngineRequest {
  method: string;
  /** Path as served, without the query: /tpa-api/v1/... or /api/v1/... */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** The raw request body text, if any. */
  body: string | undefined;
  /** The body's nesting was counted already, as it arrived (the server does so): it is not counted again. */
  depthChecked?: boolean;
}

export interface EngineResponse {
  status: number;
  headers: Record<string, string>;
  /** An object to send as JSON, or a JsonText the engine has already written. */
  body: unknown;
}

/**
 * A body the engine wrote as JSON text itself (a ledger page: building its objects and serialising
 * them again cost more than its queries). Sent as it is; JSON.stringify of it gives the same JSON.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A response body as the JSON text to send ('' when there is none). */
export function bodyText(body: unknown): string {
  if (body === undefined) return '';
  return body instanceof JsonText ? body.text : JSON.stringify(body);
}

/** Thrown by handlers to answer with a status and body (e.g. a 400 `errors[]`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.message === 'string' ? body.message : `HTTP ${status}`);
  }
}

export function respond(status: number, body: unknown, headers: Record<string, string> = {}): EngineResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

/**
 * The 400 of a request that holds text that is not well-formed Unicode (docs/api.md "Text"): its
 * path, a query parameter, a header or any string or key of its body, at any depth, named as the
 * field; undefined when all of it is well-formed. Checked before any route reads the request, so
 * nothing of it is written.
 */
export function illFormedText(req: EngineRequest): EngineResponse | undefined {
  const refuse = (field: string) => respond(400, { errors: [{ field, message: field === '' ? `the request body ${ILL_FORMED}` : ILL_FORMED }] });
  if (!isWellFormedText(req.path)) return refuse('path');
  for (const [name, value] of req.query) if (!isWellFormedText(name) || !isWellFormedText(value)) return refuse(shownText(name));
  for (const [name, value] of Object.entries(req.headers))
    if (!isWellFormedText(name) || (value !== undefined && !isWellFormedText(value))) return refuse(shownText(name));
  if (req.body === undefined) return undefined;
  const field = illFormedJsonField(req.body);
  return field === undefined ? undefined : refuse(field);
}

/** The JSON body of a request as an object, or a 400 naming what is wrong. */
export function jsonBody(req: EngineRequest): Record<string, unknown> {
  if (req.body === undefined || req.body.trim() === '') {
    throw new HttpError(400, { errors: [{ field: '', message: 'request body is required (JSON)' }] });
  }
  const deep = req.depthChecked ? undefined : jsonDepthProblem(req.body);
  if (deep) throw new HttpError(400, { errors: [{ field: '', message: deep }] });
  let value: unknown;
  try {
    value = JSON.parse(req.body);
  } catch {
    throw new HttpError(400, { errors: [{ field: '', message: 'request body is not valid JSON' }] });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, { errors: [{ field: '', message: 'request body must be a JSON object' }] });
  }
  // Two `amount`s in one body are one release to JSON.parse (the last) and another to a reader that
  // keeps the first: refused, never read as either.
  const twice = duplicateKeyPath(req.body);
  if (twice !== undefined)
    throw new HttpError(400, { errors: [{ field: twice, message: 'is given twice in one object: which one is meant is not for the service to guess' }] });
  return value as Record<string, unknown>;
}

/**
 * An optional whole-number query parameter: its value, the fallback when absent, or the fallback
 * with a field error added when it breaks the range.
 */
export function queryWholeNumber(query: URLSearchParams, name: string, fallback: number, min: number, max: number, errors: FieldError[]): number {
  const v = query.get(name);
  if (v === null || v === '') return fallback;
  const problem = wholeNumberProblem(v, min, max);
  if (problem) {
    errors.push({ field: name, message: problem });
    return fallback;
  }
  return Number(v);
}

/**
 * A link to another page of a list, as served: absolute over HTTP (the server sets the scheme it
 * really serves), and a path as served in-process, where there is no host.
 */
export function servedLink(req: EngineRequest, path: string): string {
  const host = req.headers.host;
  return host ? `${req.headers['x-forwarded-proto'] ?? 'http'}://${host}${path}` : path;
}
