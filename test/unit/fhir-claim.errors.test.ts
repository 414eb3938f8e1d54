// The claim parser's answer to each of ~70 ways a real file goes wrong or says something unusual
// (test/unit/fhir-claim.cases.ts): the exact field paths and messages a user is shown, or the exact
// claim read. The expected answers (fhir-claim.golden.json) were reviewed by hand when written; a
// change to any of them is a change users see, so it must be made there on purpose.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseClaim, parseClaimText } from '../../src/domain/fhir-claim.js';
import { base, CASES, INSTITUTIONAL_CASES } from './fhir-claim.cases.js';

const golden = JSON.parse(readFileSync(new URL('./fhir-claim.golden.json', import.meta.url), 'utf8')) as Record<string, unknown>;

function answer(value: unknown): unknown {
  try {
    return { parsed: JSON.parse(JSON.stringify(parseClaim(value, { today: '2026-03-02' }))) };
  } catch (e) {
    return { errors: (e as { errors?: unknown }).errors ?? String(e) };
  }
}

describe('the claim parser, case by case', () => {
  it('has an answer on file for every case', () => {
    expect(Object.keys(golden).sort()).toEqual([...CASES, ...INSTITUTIONAL_CASES].map(([name]) => name).sort());
  });
  for (const [name, patch] of CASES) it(`professional: ${name}`, () => expect(answer(patch(base('professional')))).toEqual(golden[name]));
  for (const [name, patch] of INSTITUTIONAL_CASES) it(`institutional: ${name}`, () => expect(answer(patch(base('institutional')))).toEqual(golden[name]));
});

describe('claim file text', () => {
  it('refuses an empty file, a file that is not JSON, and one over 5 MiB; reads one with a byte-order mark', () => {
    const errors = (text: string) => {
      try {
        parseClaimText(text);
        return undefined;
      } catch (e) {
        return (e as { errors: { field: string; message: string }[] }).errors;
      }
    };
    expect(errors('  \n')).toEqual([{ field: '', message: 'claim file is empty' }]);
    expect(errors('{"resourceType":')![0]!.message).toMatch(/^claim file is not valid JSON \(/);
    expect(errors(' '.repeat(5 * 1024 * 1024 + 1))).toEqual([{ field: '', message: 'claim file is larger than 5 MiB' }]);
    expect(errors(`\ufeff${JSON.stringify(base())}`)).toBeUndefined();
  });
});
