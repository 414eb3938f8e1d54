// The one nesting rule for JSON from outside (server bodies, engine requests, claim files).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonDepthGauge, jsonDepthProblem, MAX_JSON_DEPTH } from '../../src/domain/json-depth.js';
import { parseClaimText } from '../../src/domain/fhir-claim.js';
import type { Engine } from '../../src/engine/engine.js';
import { call, engineAt, tempDir } from '../helpers/engine.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('jsonDepthProblem', () => {
  it('accepts nesting up to the limit and refuses one level more, naming the limit', () => {
    expect(jsonDepthProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonDepthProblem(nested(MAX_JSON_DEPTH + 1))).toBe(
      `JSON nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays): no resource needs more than ${MAX_JSON_DEPTH}`,
    );
    expect(jsonDepthProblem(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)).toMatch(/nested more than 64/);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthProblem(JSON.stringify({ note: `${'[{'.repeat(500)}"\\`, b: ['"[[['] }))).toBeUndefined();
    expect(jsonDepthProblem(`["\\\\"${'['.repeat(MAX_JSON_DEPTH)}`)).toMatch(/nested more than/);
  });

  it('counts UTF-8 bytes fed piece by piece, split anywhere, as it counts the text', () => {
    const text = JSON.stringify({ naïve: ['é"[', { '€': [[['ü']]] }] });
    const bytes = Buffer.from(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const gauge = new JsonDepthGauge(4);
      gauge.feed(bytes.subarray(0, cut));
      gauge.feed(bytes.subarray(cut));
      expect(gauge.deepest).toBe(5);
      expect(gauge.problem()).toMatch(/more than 4/);
    }
  });

  it('stops counting once too deep: the rest of a huge body is not scanned', () => {
    const gauge = new JsonDepthGauge();
    expect(gauge.feed(nested(MAX_JSON_DEPTH + 1))).toBe(false);
    expect(gauge.feed('[]')).toBe(false);
    expect(gauge.deepest).toBe(MAX_JSON_DEPTH + 1);
  });

  it('a claim text nested too deep is a validation error on the whole claim, not a stack overflow', () => {
    expect(() => parseClaimText(`{"resourceType":"Claim","extension":${nested(100_000)}}`)).toThrow(/nested more than 64 levels deep/);
  });
});

describe('the engine refuses a request body nested too deep with 400', () => {
  let home: ReturnType<typeof tempDir>;
  let engine: Engine;
  beforeEach(() => {
    home = tempDir();
    engine = engineAt(home.dir, '2026-03-02T10:00:00Z', '0');
  });
  afterEach(() => {
    engine.close();
    home.remove();
  });

  it('on a lookup, a fund approval and a claim, naming the depth', () => {
    const deep = `{"npi":${nested(5_000)}}`;
    for (const path of ['/tpa-api/v1/contract-lookup/blind/', '/tpa-api/v1/funding/approve/', '/tpa-api/v1/claims/submit/']) {
      const res = call(engine, 'POST', path, deep);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual({ errors: [{ field: '', message: expect.stringMatching(/nested more than 64 levels deep/) }] });
    }
  });
});
