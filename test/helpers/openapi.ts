// docs/openapi.yaml as a checker of what crosses the wire: every answer `tpa local serve` sends, and
// every request tpa's own client sends, is checked against the operation it reached (its status,
// content type, body and required headers; the request's parameters and body). What a mismatch says
// is where and which rule, never a value: bodies and headers hold keys and tokens.
// docs/development.md "The contract checked". Loaded by vitest (test/helpers/openapi-setup.ts) and,
// in a `tpa local serve` child, by Node itself (test/helpers/openapi-hook.mjs): plain TypeScript
// that imports packages only.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/** What the server saw of one exchange (src/server/server.ts `Exchange`). */
export interface ObservedExchange {
  method: string;
  target: string;
  route: string | undefined;
  requestHeaders: Record<string, string | string[] | undefined>;
  requestBody: string | undefined;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

type Json = Record<string, any>;

export const OPENAPI_FILE = new URL('../../docs/openapi.yaml', import.meta.url);

/** The user agent of tpa's client (src/client/http.ts): its requests are checked too. */
const CLIENT_AGENT = 'tpa-cli';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

export class Contract {
  readonly document: Json;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(text: string) {
    this.document = parse(text, { maxAliasCount: -1 }) as Json;
    // The document lets a client meet fields it does not know (objects are open); the tests hold
    // tpa to sending none: each object that lists its properties and does not say otherwise is
    // read closed, so a field the engine adds without documenting it fails.
    closeObjects(this.document);
    // The document's own keywords (x-tpa-extension, examples) are annotations to the validator;
    // multipleOf 0.01 is read to the cent, as a number of dollars in binary is never exact.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, multipleOfPrecision: 6, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(this.document, 'urn:tpa:openapi');
  }

  static load(file: URL | string = OPENAPI_FILE): Contract {
    return new Contract(readFileSync(file, 'utf8'));
  }

  /** A component or any other part of the document, by JSON pointer (`#/components/schemas/Error`), with one $ref followed. */
  resolve(node: Json | undefined): Json | undefined {
    if (node && typeof node.$ref === 'string') return this.at(node.$ref);
    return node;
  }

  private at(pointer: string): Json | undefined {
    let node: any = this.document;
    for (const part of pointer.replace(/^#\//, '').split('/')) node = node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    return node;
  }

  /** The validator of the schema at a pointer of the document (compiled once). */
  schemaAt(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `urn:tpa:openapi${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** The path of the document that a route template of the server is ('/tpa-api/v1/health/' is written '/tpa-api/v1/health'). */
  pathOf(route: string): string | undefined {
    const paths = this.document.paths as Json;
    if (paths[route]) return route;
    const bare = route.replace(/\/$/, '');
    return paths[bare] ? bare : undefined;
  }

  /** What does not fit the document in one exchange; [] when all of it does. */
  check(exchange: ObservedExchange): string[] {
    const where = `${exchange.method} ${exchange.route ?? pathOnly(exchange.target)} → ${exchange.status}`;
    const path = exchange.route === undefined ? undefined : this.pathOf(exchange.route);
    if (exchange.route !== undefined && path === undefined) return [`${where}: the route ${exchange.route} is not in docs/openapi.yaml`];
    const method = exchange.method === 'HEAD' ? 'get' : exchange.method.toLowerCase();
    const operationPointer = path === undefined ? undefined : `#/paths/${pointerPart(path)}/${method}`;
    const operation = operationPointer && this.at(operationPointer);
    // No route answered (a path not served, a method not served, a request refused before routing):
    // the answer is one of the errors every operation may give.
    const problems = operation
      ? this.checkResponse(operation, operationPointer!, exchange)
      : this.checkAnswer('#/components/responses/Error', exchange, exchange.status >= 400 ? [] : ['a success answered without an operation']);
    // A request of tpa's client that the service took: a refused one (4xx) may be a test's bad input on purpose.
    if (operation && agent(exchange) === CLIENT_AGENT && exchange.status < 300) problems.push(...this.checkRequest(operation, operationPointer!, exchange));
    return problems.map((p) => `${where}: ${p}`);
  }

  private checkResponse(operation: Json, pointer: string, exchange: ObservedExchange): string[] {
    const responses = operation.responses as Json;
    const status = String(exchange.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k]);
    if (!key) return [`status ${status} is not documented`];
    const ref = responses[key].$ref as string | undefined;
    return this.checkAnswer(ref ?? `${pointer}/responses/${key}`, exchange, []);
  }

  /** The answer against a response object of the document: its content type, body and required headers. */
  private checkAnswer(pointer: string, exchange: ObservedExchange, problems: string[]): string[] {
    const response = this.at(pointer)!;
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      const spec = this.resolve(header)!;
      const value = exchange.responseHeaders[name.toLowerCase()];
      if (value === undefined) {
        if (spec.required) problems.push(`the header ${name} is missing`);
        continue;
      }
      const schemaPointer = header.$ref ? `${header.$ref}/schema` : `${pointer}/headers/${pointerPart(name)}/schema`;
      problems.push(...this.checkValue(schemaPointer, value, `header ${name}`));
    }
    const content = response.content as Json | undefined;
    if (exchange.method === 'HEAD') return problems;
    if (exchange.responseBody === '') return content ? [...problems, 'the body is empty'] : problems;
    const type = mediaType(exchange.responseHeaders['content-type']);
    if (!content?.[type]) return [...problems, `the content type ${type || '(none)'} is not documented`];
    const body = type === 'application/yaml' ? exchange.responseBody : parseJson(exchange.responseBody);
    if (body === NOT_JSON) return [...problems, 'the body is not JSON'];
    problems.push(...this.validate(`${pointer}/content/${pointerPart(type)}/schema`, body, 'body'));
    return problems;
  }

  /** A request of tpa's client against the operation it reached: its query parameters, headers and body. */
  private checkRequest(operation: Json, pointer: string, exchange: ObservedExchange): string[] {
    const problems: string[] = [];
    // Each parameter with where its schema is in the document.
    const parameters = ((operation.parameters ?? []) as Json[]).map(
      (p, i): Json => ({
        ...this.resolve(p)!,
        schemaPointer: `${p.$ref ?? `${pointer}/parameters/${i}`}/schema`,
      }),
    );
    const query = new URL(exchange.target, 'http://server').searchParams;
    for (const name of new Set(query.keys())) {
      const parameter = parameters.find((p) => p.in === 'query' && p.name === name);
      if (!parameter) {
        problems.push(`request: the query parameter ${name} is not documented`);
        continue;
      }
      problems.push(...this.checkValue(parameter.schemaPointer, query.get(name)!, `request: query parameter ${name}`));
    }
    for (const parameter of parameters.filter((p) => p.in === 'header')) {
      const value = agentHeader(exchange.requestHeaders[parameter.name.toLowerCase()]);
      if (value === undefined) {
        if (parameter.required) problems.push(`request: the header ${parameter.name} is missing`);
      } else problems.push(...this.checkValue(parameter.schemaPointer, value, `request: header ${parameter.name}`));
    }
    const requestBody = this.resolve(operation.requestBody);
    if (exchange.requestBody === undefined) {
      if (requestBody?.required) problems.push('request: the body is missing');
      return problems;
    }
    if (!requestBody) return [...problems, 'request: a body is sent to an operation that takes none'];
    const type = mediaType(agentHeader(exchange.requestHeaders['content-type']));
    if (!requestBody.content[type]) return [...problems, `request: the content type ${type || '(none)'} is not documented`];
    const body = parseJson(exchange.requestBody);
    if (body === NOT_JSON) return [...problems, 'request: the body is not JSON'];
    problems.push(...this.validate(`${pointer}/requestBody/content/${pointerPart(type)}/schema`, body, 'request: body'));
    return problems;
  }

  /** A parameter's text as its schema types it (a query string is text; `limit=5` is the integer 5). */
  private checkValue(pointer: string, text: string, what: string): string[] {
    return this.validate(pointer, typed(this.resolve(this.at(pointer)), text), what);
  }

  private validate(pointer: string, value: unknown, what: string): string[] {
    const validate = this.schemaAt(pointer);
    return validate(value) ? [] : describe(validate, what);
  }
}

const NOT_JSON = Symbol('not JSON');

/** Every schema with `properties` and no `additionalProperties` of its own gets `additionalProperties: false`. */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) for (const item of node) closeObjects(item);
  if (!node || typeof node !== 'object') return;
  const schema = node as Json;
  if (schema.properties && typeof schema.properties === 'object' && !('additionalProperties' in schema)) schema.additionalProperties = false;
  for (const value of Object.values(schema)) closeObjects(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** The errors of a validation, by place and rule: never the value (it may be a key or a token). */
function describe(validate: ValidateFunction, what: string): string[] {
  // A property's name is said (it is the document's vocabulary, not a value).
  const named = (e: NonNullable<ValidateFunction['errors']>[number]) =>
    e.keyword === 'additionalProperties' ? `: ${(e.params as { additionalProperty: string }).additionalProperty}` : '';
  return (validate.errors ?? []).map((e) => `${what}${e.instancePath || ''} ${e.message ?? e.keyword}${named(e)}`);
}

/** A header or parameter's text as the type its schema names. */
function typed(schema: Json | undefined, text: string): unknown {
  const type = schema?.type;
  if (type === 'integer' || type === 'number') return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  return text;
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function pointerPart(part: string): string {
  return part.replaceAll('~', '~0').replaceAll('/', '~1');
}

function pathOnly(target: string): string {
  return target.split('?')[0] ?? target;
}

function agentHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function agent(exchange: ObservedExchange): string | undefined {
  return agentHeader(exchange.requestHeaders['user-agent']);
}

/** The marker of a mismatch on a server's stderr, which test/helpers/server.ts reads. */
export const MISMATCH_MARK = 'openapi mismatch: ';

/** The mismatches seen in this process since the last test ended (test/helpers/openapi-setup.ts). */
export const mismatches: string[] = [];

/** Every mismatch line a served child wrote to its stderr (test/helpers/openapi-hook.mjs). */
export function collectMismatches(stderrChunk: string): void {
  for (const line of stderrChunk.split('\n')) if (line.startsWith(MISMATCH_MARK)) mismatches.push(line.slice(MISMATCH_MARK.length));
}
