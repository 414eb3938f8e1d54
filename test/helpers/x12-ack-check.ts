// An acknowledgment (TA1, 999, 277CA) re-read by a parser that is not tpa's (node-x12, strict: it
// refuses an SE01, GE01 or IEA01 that does not count right), its envelope counts checked again here.
import { type X12Interchange, X12Parser, type X12Segment } from 'node-x12';
import { expect } from 'vitest';

const values = (s: X12Segment): string[] => [s.tag, ...s.elements.map((e) => e.value)];

export interface ReadAck {
  isa: string[];
  /** Each transaction set's segments (ST to SE), each as [tag, e1, e2, …]. */
  sets: string[][][];
  /** GS of the one group (none for a TA1). */
  gs?: string[];
  /** Segments outside any group (a TA1's). */
  loose: string[][];
}

/** Parses an acknowledgment with node-x12 (strict) and checks IEA01, GE01, SE01, the control numbers' echoes and each HL04 1 has a child. */
export function readAck(text: string, version?: string): ReadAck {
  // node-x12's strict mode refuses a TA1 (it sits outside any group, as X12 has it): a TA1 interchange is read leniently, its counts checked all the same.
  const ta1 = /(^|\n)TA1\*/.test(text);
  const interchange = new X12Parser(!ta1).parse(text) as X12Interchange;
  const isa = values(interchange.header);
  const iea = values(interchange.trailer);
  expect(isa[12]).toBe('00501');
  expect(Number(iea[2])).toBe(Number(isa[13]));
  expect(text.slice(90, 99)).toMatch(/^\d{9}$/);
  expect(Number(iea[1])).toBe(interchange.functionalGroups.length);
  const sets: string[][][] = [];
  let gs: string[] | undefined;
  for (const group of interchange.functionalGroups) {
    gs = values(group.header);
    const ge = values(group.trailer);
    expect(ge[2]).toBe(gs[6]);
    if (version) expect(gs[8]).toBe(version);
    expect(Number(ge[1])).toBe(group.transactions.length);
    for (const t of group.transactions) {
      const st = values(t.header);
      const se = values(t.trailer);
      expect(se[2]).toBe(st[2]);
      if (version) expect(st[3]).toBe(version);
      // SE01 counts ST and SE and every segment between them.
      expect(Number(se[1])).toBe(t.segments.length + 2);
      const segments = t.segments.map(values);
      // An HL whose HL04 says it has children (1) has one: an HL whose HL02 is its HL01.
      for (const hl of segments.filter((s) => s[0] === 'HL' && s[4] === '1'))
        expect(
          segments.some((s) => s[0] === 'HL' && s[2] === hl[1]),
          `HL ${hl[1]} says it has children`,
        ).toBe(true);
      sets.push([st, ...segments, se]);
    }
  }
  // A TA1 sits between the ISA and the IEA, outside any group: node-x12 does not give it, so it is read from the text.
  const terminator = text[105]!;
  const loose = text
    .split(terminator)
    .map((s) => s.trim())
    .filter((s) => s.startsWith('TA1'))
    .map((s) => s.split(text[3]!));
  return { isa, sets, ...(gs ? { gs } : {}), loose };
}

/** A file of several acknowledgment interchanges (one per usage), each read and checked as readAck does. */
export function readAcks(text: string, version?: string): ReadAck[] {
  return text
    .split(/(?=^ISA\*)/m)
    .filter((part) => part.trim() !== '')
    .map((part) => readAck(part, version));
}
