// The one function behind --jq (src/render/jq.ts): real jq, in-process.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { jq } from '../../src/render/jq.js';

describe('jq', () => {
  it('returns every result in order, as values', async () => {
    const input = [
      { x: 1, n: 'a' },
      { x: 2, n: 'b,"c' },
      { x: 3, n: 'd' },
    ];
    expect(await jq('map(select(.x > 1)) | map(.n)', input)).toEqual([['b,"c', 'd']]);
    expect(await jq('.[] | .x', input)).toEqual([1, 2, 3]);
    expect(await jq('.[0] | to_entries | map(.key)', input)).toEqual([['x', 'n']]);
    expect(await jq('.[1] | [.x, .n] | @csv', input)).toEqual(['2,"b,""c"']);
    expect(await jq('empty', input)).toEqual([]);
    // A string is a JSON string, not JSON text to parse.
    expect(await jq('.', '[1]')).toEqual(['[1]']);
  });

  it("throws tpa's usage error with jq's message, for a syntax error and for an error while it runs", async () => {
    await expect(jq('.[', null)).rejects.toThrow(UsageError);
    await expect(jq('.[', null)).rejects.toThrow(/syntax error/);
    await expect(jq('error("no way")', 1)).rejects.toThrow(/no way/);
    await expect(jq('.a', 'text')).rejects.toThrow(/Cannot index string/);
  });

  it("an expression that exhausts jq's memory is a usage error naming it, and jq works again after", async () => {
    const failed = await jq('[range(1e9)]', null).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(UsageError);
    expect((failed as Error).message).toMatch(/^--jq "\[range\(1e9\)\]": jq stopped \(Aborted\(\)\): the expression needs more memory than jq has/);
    expect(await jq('.[0]', [7])).toEqual([7]);
  });
});
