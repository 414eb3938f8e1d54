// X12's published 837 examples (test/fixtures/public/x12/README.md) and what tpa needs to take
// them: the claims they carry written as FHIR by hand, and the one identifier the local engine
// cannot hold as published, the billing provider's NPI (the examples' NPIs are illustrative and
// fail the NPI check digit; the seed holds each provider under the same first nine digits with the
// right check digit, docs/design.md "The local engine's fixtures").
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const IG_DIR = fileURLToPath(new URL('../fixtures/public/x12/', import.meta.url));

export interface IgExample {
  /** 837P or 837I. */
  kind: 'professional' | 'institutional';
  /** The published interchange, as published. */
  x12: string;
  /** The claim it carries, as a FHIR R4 Claim written by hand. */
  fhir: string;
  clm01: string;
  /** The billing provider's NPI as published, and as the seed holds it. */
  npi: { published: string; seeded: string };
  memberId: string;
}

export const IG_EXAMPLES: readonly IgExample[] = [
  {
    kind: 'professional',
    x12: 'X222-commercial-health-insurance.edi',
    fhir: 'X222-commercial-health-insurance.fhir.json',
    clm01: '26463774',
    npi: { published: '9876543210', seeded: '9876543213' },
    memberId: 'JS00111223333',
  },
  {
    kind: 'institutional',
    x12: 'X223-837-institutional-claim.edi',
    fhir: 'X223-837-institutional-claim.fhir.json',
    clm01: '756048Q',
    npi: { published: '9876540809', seeded: '9876540805' },
    memberId: '030005074A',
  },
];

export const igText = (file: string): string => readFileSync(`${IG_DIR}${file}`, 'utf8');

/**
 * The published interchange with its billing provider's NPI as the seed holds it (NM1*85 …*XX*<npi>)
 * and marked production data (ISA15 P, where the example says T), every other byte as published:
 * what `claim submit` is given.
 */
export function igX12Mapped(example: IgExample): string {
  const text = igText(example.x12);
  const e = text[3]!;
  const from = `${e}XX${e}${example.npi.published}`;
  if (text.split(from).length !== 2) throw new Error(`${example.x12}: expected one ${from}`);
  // The published examples are test data (ISA15 T), which tpa does not pay: as production sends them (P).
  if (text[102] !== 'T' && text[102] !== 'P') throw new Error(`${example.x12}: expected ISA15 at offset 102`);
  const production = `${text.slice(0, 102)}P${text.slice(103)}`;
  return production.replace(from, `${e}XX${e}${example.npi.seeded}`);
}

/** The segments of an interchange, each a list of elements, by the delimiters its ISA declares. */
export function x12Segments(text: string): string[][] {
  const element = text[3]!;
  const terminator = text[105]!;
  return text
    .split(terminator)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => s.split(element));
}

/** The component separator an interchange's ISA declares (ISA16). */
export const x12Component = (text: string): string => text[104]!;
