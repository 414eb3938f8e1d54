// The acknowledgments of `claim submit --ack` and `claim validate --ack` (docs/x12-refusals.md
// "Acknowledgments"): each X12 claim the readers give is noted as it passes, with what the command
// made of it (valid, sent and acknowledged, refused); at the end each 837 file is read once more for
// its envelopes and the places of its segments, and its TA1, 999 and 277CA are written (X12 and
// JSON) beside each other in the folder asked for, or on stdout. The writers are src/domain/x12-ack.ts.
import { lstatSync } from 'node:fs';
import { basename, join } from 'node:path';
import { refusedByService } from '../../../jobs/claim-batch.js';
import { jsonNumberToCents } from '../../../domain/money.js';
import {
  type AckClaim,
  type AckEnvelope,
  type AckGroup,
  type AckInterchange,
  type AckSegmentError,
  type AckTransactionSet,
  type AckVerdict,
  ack277Json,
  ack999Json,
  byUsage,
  has277ca,
  has999,
  hasTa1,
  type ReceivedFile,
  ta1Json,
  write277ca,
  write999,
  writeTa1,
} from '../../../domain/x12-ack.js';
import { ENVELOPE_REFUSAL, type EnvelopeReport, element, ISA_LENGTH, type X12Segment } from '../../../domain/x12-837.js';
import { UsageError } from '../../../errors.js';
import { oneLine } from '../../../render/screen.js';
import type { Context } from '../../context.js';
import { withStreams } from '../../io.js';
import type { ClaimOutcome } from '../../../jobs/claim-batch.js';
import type { ClaimText } from './submit-sources.js';

/** Where each claim's segments are in its transaction set, for the 999's IK3 (ST is 1). */
interface ClaimPlaces {
  clm: number;
  /** The header's segments before the claim (NM1*85, NM1*IL, SBR…), last position of each. */
  header: Record<string, number>;
  /** The claim's own segments, in order: [key (CLM, LX, SV1, NM1*82, DTP*472…), position]. */
  segments: [string, number][];
  /** The patient's name as sent: NM103, NM104, NM105 of its NM1*QC (a dependent), else of its NM1*IL. */
  patientName?: { last: string; first: string; middle: string };
  /** The header's segments said more than once in their HL (the last of them is in `header`). */
  twice?: Record<string, true>;
  /** The loop of the implementation guide each segment of the set is in, by position (none for the header: BHT). */
  loops?: Record<number, string>;
}

interface Outline {
  file: ReceivedFile;
  /** Each claim the reader gives, in order: its set and places. */
  claims: { set: AckTransactionSet; places: ClaimPlaces }[];
}

// HI is not among them: its first element is a composite (qualifier and code), and a problem names it by its place (`HI #2`).
const QUALIFIED = new Set(['NM1', 'REF', 'DTP', 'HL', 'AMT', 'PRV', 'CN1']);
const HEADER_LOOPS: Record<string, string> = {
  'HL*20': '2000A',
  'NM1*85': '2010AA',
  'HL*22': '2000B',
  SBR: '2000B',
  'NM1*IL': '2010BA',
  'NM1*PR': '2010BB',
  'HL*23': '2000C',
  'NM1*QC': '2010CA',
  BHT: '',
};

/** The 837's loops an NM1 begins, by its entity (NM101), in the header, the claim (2310), another payer's (2330) and a line (2420). */
const NM1_LOOPS = {
  header: { '41': '1000A', '40': '1000B', '85': '2010AA', '87': '2010AB', PE: '2010AC', IL: '2010BA', PR: '2010BB', QC: '2010CA' } as Record<string, string>,
  professional: {
    claim: { DN: '2310A', P3: '2310A', '82': '2310B', '77': '2310C', DQ: '2310D', PW: '2310E', '45': '2310F' } as Record<string, string>,
    other: { IL: '2330A', PR: '2330B', DN: '2330C', P3: '2330C', '82': '2330D', '77': '2330E', DQ: '2330F', '85': '2330G' } as Record<string, string>,
    line: { '82': '2420A', QB: '2420B', '77': '2420C', DQ: '2420D', DK: '2420E', DN: '2420F', P3: '2420F', PW: '2420G', '45': '2420H' } as Record<
      string,
      string
    >,
  },
  institutional: {
    claim: { '71': '2310A', '72': '2310B', ZZ: '2310C', '82': '2310D', '77': '2310E', DN: '2310F' } as Record<string, string>,
    other: { IL: '2330A', PR: '2330B', '71': '2330C', '72': '2330D', ZZ: '2330E', '77': '2330F', '82': '2330G', DN: '2330H', '85': '2330I' } as Record<
      string,
      string
    >,
    line: { '72': '2420A', ZZ: '2420B', '82': '2420C', DN: '2420D' } as Record<string, string>,
  },
};

/**
 * The loop (of the 837P or 837I guide) a segment is in, from the loop of the segment before it: an HL,
 * SBR, CLM, LX, LIN, SVD, LQ or NM1 begins one, any other segment stays in the loop it comes in.
 */
export function nextLoop(current: string, name: string, e1: string, e3: string, institutional: boolean): string {
  const at = current.slice(0, 4);
  const guide = institutional ? NM1_LOOPS.institutional : NM1_LOOPS.professional;
  switch (name) {
    case 'HL':
      return ({ '20': '2000A', '22': '2000B', '23': '2000C' } as Record<string, string>)[e3] ?? current;
    case 'SBR':
      return at >= '2300' ? '2320' : '2000B';
    case 'CLM':
      return '2300';
    case 'LX':
      return '2400';
    case 'LIN':
      return '2410';
    case 'SVD':
      return '2430';
    case 'LQ':
      return '2440';
    case 'NM1':
      if (at < '2300') return NM1_LOOPS.header[e1] ?? current;
      if (at === '2320' || at === '2330') return guide.other[e1] ?? current;
      if (at < '2400') return guide.claim[e1] ?? current;
      return guide.line[e1] ?? current;
    default:
      return current;
  }
}

/**
 * The second reading for the acknowledgments: the interchanges, groups and transaction sets with
 * their control numbers, BHT03, and the places of each claim's segments. It counts claims as the
 * claim reader does (a CLM inside an ST of an 837P or 837I), so that the n-th claim given is the n-th here.
 */
async function outline(path: string): Promise<Outline> {
  const { envelopeReport, fileSegments, fileProblem } = await import('./x12-source.js');
  const problem = fileProblem(path);
  if (problem) {
    const { readHead } = await import('./x12-files.js');
    const head = readHead(path, ISA_LENGTH);
    // ISA13, the interchange control number: nine characters at the ISA's fixed offset 90.
    const control = head.startsWith('ISA') && head.length >= ISA_LENGTH ? head.slice(90, 99) : '000000000';
    return { file: { interchanges: [], unreadable: { message: problem, control: /^\d{9}$/.test(control) ? control : '000000000' } }, claims: [] };
  }
  const report = await envelopeReport(path);
  const reader = new OutlineReader();
  if (!report.fatal) for await (const s of fileSegments(path)) reader.read(s);
  return reader.finish(report);
}

/** The outline of one file, segment by segment (outline). */
class OutlineReader {
  readonly file: ReceivedFile = { interchanges: [] };
  readonly claims: Outline['claims'] = [];
  private readonly setsByOrdinal = new Map<number, { set: AckTransactionSet; group: AckGroup | undefined; interchange: AckInterchange | undefined }>();
  private isa: AckInterchange | undefined;
  private gs: AckGroup | undefined;
  private st: AckTransactionSet | undefined;
  private ordinal = 0;
  private position = 0;
  private readable = false;
  private header: Record<string, number> = {};
  // The header's segments said twice in one HL (a second NM1*IL, SBR, DMG…), and where the last HL is.
  private twice: Record<string, true> = {};
  private hlAt = 0;
  private names: Record<string, ClaimPlaces['patientName']> = {};
  private claim: ClaimPlaces | undefined;
  private loop = '';
  private loops: Record<number, string> = {};
  private institutional = false;
  private bhtSeen = false;
  // An interchange of other delimiters than the first is not read (the readers say why): its ISA is
  // kept for its TA1, its segments skipped up to the next ISA.
  private foreign = false;

  read(s: X12Segment) {
    const name = s.name;
    if (name === '' && s['1'] === undefined) return;
    if (name.startsWith('ISA') && name.length >= 105 && !/[A-Za-z0-9 ]/.test(name[3]!)) return this.foreignInterchange(name);
    if (name !== 'ISA' && this.foreign) return;
    if (name === 'ISA') return this.interchange(s);
    if (name === 'GS') return this.group(s);
    if (name === 'ST') return this.transactionSet(s);
    if (name === 'SE') {
      this.st = this.claim = undefined;
      return;
    }
    if (name === 'GE' || name === 'IEA' || !this.st) return;
    this.position++;
    if (this.readable) this.inSet(s, this.st);
  }

  private foreignInterchange(name: string): void {
    const e = name.split(name[3]!);
    this.isa = {
      senderQualifier: e[5] ?? '',
      sender: (e[6] ?? '').trim(),
      receiverQualifier: e[7] ?? '',
      receiver: (e[8] ?? '').trim(),
      date: e[9] ?? '',
      time: e[10] ?? '',
      control: e[13] ?? '',
      ackRequested: e[14] === '1',
      usage: e[15] ?? '',
      problems: [],
      groups: [],
    };
    this.file.interchanges.push(this.isa);
    this.gs = this.st = this.claim = undefined;
    this.foreign = true;
  }

  private interchange(s: X12Segment): void {
    this.foreign = false;
    this.isa = {
      senderQualifier: element(s, 5),
      sender: element(s, 6).trim(),
      receiverQualifier: element(s, 7),
      receiver: element(s, 8).trim(),
      date: element(s, 9),
      time: element(s, 10),
      control: element(s, 13),
      ackRequested: element(s, 14) === '1',
      usage: element(s, 15),
      problems: [],
      groups: [],
    };
    this.file.interchanges.push(this.isa);
    this.gs = this.st = this.claim = undefined;
  }

  private group(s: X12Segment): void {
    this.gs = {
      functionalId: element(s, 1),
      sender: element(s, 2),
      receiver: element(s, 3),
      control: element(s, 6),
      version: element(s, 8),
      problems: [],
      sets: [],
    };
    this.isa?.groups.push(this.gs);
  }

  private transactionSet(s: X12Segment): void {
    this.ordinal++;
    const version = element(s, 3) || this.gs?.version || '';
    this.st = { id: element(s, 1), control: element(s, 2), version, bht03: '', problems: [], segmentErrors: [], claims: [] };
    this.gs?.sets.push(this.st);
    this.setsByOrdinal.set(this.ordinal, { set: this.st, group: this.gs, interchange: this.isa });
    this.readable = element(s, 1) === '837' && (version.includes('X222') || version.includes('X223'));
    this.position = 1;
    this.header = {};
    this.twice = {};
    this.hlAt = 0;
    this.names = {};
    this.claim = undefined;
    this.loop = '';
    this.loops = {};
    this.institutional = version.includes('X223');
    this.bhtSeen = false;
  }

  /** A segment of a readable 837 set: its loop, the set's BHT03, a claim begun, or a place noted in the claim or the header. */
  private inSet(s: X12Segment, st: AckTransactionSet): void {
    const name = s.name;
    const position = this.position;
    const key = QUALIFIED.has(name) ? `${name}*${element(s, 1)}` : name;
    this.loop = nextLoop(this.loop, name, element(s, 1), element(s, 3), this.institutional);
    if (this.loop !== '') this.loops[position] = this.loop;
    // The set's reference is its first BHT's: a second one (refused) changes nothing the 277CA echoes.
    if (name === 'BHT' && !this.bhtSeen) st.bht03 = element(s, 3);
    if (name === 'BHT') this.bhtSeen = true;
    if (name === 'HL') this.claim = undefined;
    // A subscriber's HL begins another patient: a dependent's name of the one before is not theirs.
    if (name === 'HL' && element(s, 3) === '22') delete this.names['NM1*QC'];
    if (key === 'NM1*IL' || key === 'NM1*QC') this.names[key] = { last: element(s, 3), first: element(s, 4), middle: element(s, 5) };
    if (name === 'CLM') {
      const patientName = this.names['NM1*QC'] ?? this.names['NM1*IL'];
      this.claim = {
        clm: position,
        header: { ...this.header },
        twice: { ...this.twice },
        segments: [['CLM', position]],
        loops: this.loops,
        ...(patientName ? { patientName } : {}),
      };
      this.claims.push({ set: st, places: this.claim });
      return;
    }
    if (this.claim) this.claim.segments.push([key, position]);
    else {
      if (name === 'HL') this.hlAt = position;
      else if (this.header[key] !== undefined && this.header[key] > this.hlAt) this.twice[key] = true;
      else delete this.twice[key];
      this.header[key] = position;
    }
  }

  /** The outline, with the envelope's problems (the first reading's) on the interchange, group or set they concern. */
  finish(report: EnvelopeReport): Outline {
    const file = this.file;
    if (report.fatal) {
      if (file.interchanges.length === 0) file.unreadable = { message: `${report.fatal.place}: ${report.fatal.message}`, control: '000000000' };
    }
    for (const [t, problems] of report.byTransaction) for (const p of problems) this.attach(p.place, p.message, t);
    for (const p of report.loose) this.attach(p.place, p.message, undefined);
    if (file.interchanges.length === 0 && !file.unreadable) file.unreadable = { message: 'holds no interchange (ISA)', control: '000000000' };
    return { file, claims: this.claims };
  }

  private attach(place: string, message: string, t: number | undefined): void {
    const file = this.file;
    const at = t === undefined ? undefined : this.setsByOrdinal.get(t);
    const isaAt = /^ISA (\S+)/.exec(place)?.[1];
    const interchange = (isaAt !== undefined ? file.interchanges.find((i) => i.control === isaAt) : undefined) ?? at?.interchange ?? file.interchanges[0];
    if (/ST \S+$/.test(place)) {
      const control = /ST (\S+)$/.exec(place)![1]!;
      const set = at?.set ?? interchange?.groups.flatMap((g) => g.sets).find((x) => x.control === control);
      if (set && !set.problems.some((p) => p.message === message)) return void set.problems.push({ code: setCode(message), message });
    }
    // A problem of the group or interchange the reader gave a transaction set refused its claims: the set is rejected too.
    if (at && at.set.problems.length === 0) at.set.refusedBy ??= `${place}: ${message}`;
    if (/^GS /.test(place)) {
      const control = place.slice(3);
      const group = at?.group ?? interchange?.groups.find((g) => g.control === control);
      if (group && !group.problems.some((p) => p.message === message)) return void group.problems.push({ code: groupCode(message), message });
      if (group) return;
    }
    if (interchange && !interchange.problems.some((p) => p.message === message)) interchange.problems.push({ code: interchangeCode(message), message });
  }
}

/** IK502 of a transaction set's envelope problem. */
function setCode(message: string): string {
  if (/^SE01/.test(message)) return '4';
  if (/^SE02/.test(message)) return '3';
  if (/no SE/.test(message)) return '2';
  if (/not an 837|is not one tpa reads/.test(message)) return '1';
  return '5';
}

/** AK905 of a group's envelope problem. */
function groupCode(message: string): string {
  if (/^GE01/.test(message)) return '5';
  if (/^GE02/.test(message)) return '4';
  if (/no GE/.test(message)) return '3';
  return '5';
}

/** TA105 of an interchange's envelope problem. */
function interchangeCode(message: string): string {
  if (/^IEA01/.test(message)) return '021';
  if (/^IEA02/.test(message)) return '001';
  if (/no IEA/.test(message)) return '023';
  if (/delimiters/.test(message)) return '026';
  return '024';
}

/** STC01-3, the entity a refusal is about, from the segment or field it names. */
function entityOf(segment: string | undefined, field: string | undefined): string {
  const s = segment ?? '';
  if (/NM1\*IL|SBR|HL\*2[23]|NM1\*QC/.test(s) || /^patient|^insurance/.test(field ?? '')) return 'IL';
  if (/NM1\*PR/.test(s) || /^insurer/.test(field ?? '')) return 'PR';
  if (/NM1\*82|NM1\*7[12]|NM1\*DQ|NM1\*ZZ/.test(s) || /^careTeam/.test(field ?? '')) return '82';
  return '85';
}

/**
 * A reader's problem of a claim as a 999 segment error, placed by what its segment names (`SV1 #2,
 * DTP*472`, `HI #2, HI02-1`, `NM1*85`, `CLM`): the n-th HI of the claim, a line's segment within its
 * line, a claim's segment in the claim (2300) before its lines. A problem that says "a second" is
 * placed at the second occurrence (the one refused), as a segment over its maximum use (IK304 5),
 * or a loop over its maximum (4) when the segment begins one (NM1).
 */
export function segmentError(places: ClaimPlaces, segment: string, message: string): AckSegmentError | undefined {
  if (segment === '' || /^ISA|^GS|^ST|^IEA|^GE|^SE/.test(segment)) return undefined;
  const parts = segment.split(', ');
  const lxs = places.segments.flatMap(([k], i) => (k === 'LX' ? [i] : []));
  // The claim's own segments (2300 and its loops) come before its first line.
  let scope = places.segments.slice(0, lxs[0] ?? places.segments.length);
  let whole = places.segments;
  let found: [string, number] | undefined;
  let id = '';
  let named: string | undefined;
  let numbered = false;
  const saysSecond = /\ba second\b/.test(message);
  let repeated = false;
  for (const part of parts) {
    // An element of the segment named before it (`HI #2, HI02-1`).
    if (/^[A-Z][A-Z0-9]{1,2}\d{2}(?:-\d+)?$/.test(part) && id !== '') {
      named = part;
      continue;
    }
    const m = /^([A-Z][A-Z0-9]{1,2})(?:\*([A-Z0-9]+))?(?: #(\d+))?$/.exec(part);
    if (!m) return undefined;
    id = m[1]!;
    const key = m[2] !== undefined ? `${id}*${m[2]}` : id;
    const is = (k: string) => k === key || (m[2] === undefined && k.split('*')[0] === id);
    repeated = false;
    numbered = false;
    if (m[3] !== undefined && id !== 'SV1' && id !== 'SV2') {
      // The n-th segment of its kind in the claim (`HI #2`).
      let n = 0;
      found = whole.find(([k]) => is(k) && ++n === Number(m[3]));
      numbered = true;
      continue;
    }
    if (m[3] !== undefined) {
      // The n-th service line: its LX, then its SV1/SV2; what follows is looked for in that line only.
      const lx = lxs[Number(m[3]) - 1];
      if (lx === undefined) break;
      const end = lxs.find((i) => i > lx) ?? places.segments.length;
      scope = whole = places.segments.slice(lx, end);
      const own = scope.filter(([k]) => is(k));
      found = (saysSecond && own[1]) || own[0] || scope[0];
      repeated = saysSecond && own[1] !== undefined;
      continue;
    }
    const own = scope.filter(([k]) => is(k));
    const all = own.length > 0 ? own : whole.filter(([k]) => is(k));
    const inHeader = places.header[key];
    // In the header the claim's loop is the last of its kind: a second there is the last one.
    found = (saysSecond && all[1]) || all[0] || (inHeader !== undefined ? [key, inHeader] : undefined);
    repeated =
      saysSecond && (all[1] !== undefined || (all.length === 0 && inHeader !== undefined && (places.twice === undefined || places.twice[key] === true)));
  }
  const inLine = (position: number) => lxs.length > 0 && position >= places.segments[lxs[0]!]![1];
  const loopOf = (key: string, position: number): string | undefined => {
    if (places.loops) return places.loops[position];
    if (HEADER_LOOPS[key] !== undefined) return HEADER_LOOPS[key] || undefined;
    if (position < places.clm) return undefined;
    return inLine(position) ? '2400' : '2300';
  };
  if (!found) {
    // A segment the claim lacks: said at the claim (its CLM), as a required segment missing.
    return { segment: id, position: places.clm, loop: HEADER_LOOPS[parts.at(-1)!] || '2300', code: '3', message };
  }
  const [key, position] = found;
  const loop = loopOf(key, position);
  // A segment said twice is wrong for being there, not for an element it holds (its words may name one to say what it is).
  const elementError = repeated && !numbered ? undefined : elementOf(id, message, named);
  const segmentId = key.split('*')[0]!;
  const code = elementError ? '8' : repeated && !numbered ? (segmentId === 'NM1' ? '4' : '5') : 'I9';
  return {
    segment: segmentId,
    position,
    ...(loop ? { loop } : {}),
    code,
    ...(elementError ? { element: elementError } : {}),
    message,
  };
}

/**
 * The element a problem names (`HI02-1` after its segment, else in its words: `CLM05-3`, `SV107-1`,
 * `NM108`), with an IK403 code from what the words say of it. When the words name several, the one
 * they say is missing, else the first.
 */
function elementOf(id: string, message: string, named?: string): AckSegmentError['element'] {
  const said = [...message.matchAll(new RegExp(`\\b${id}(\\d{2})(?:-(\\d+))?\\b`, 'g'))].map((m) => {
    // Missing (1) only when the words say this element is: `DMG02 is missing`, `has no member id (NM109`,
    // `has no date (HI02-3`; an element present but wrong (`SV107-1, diagnosis pointer 3, names no diagnosis`) is 8 or 7.
    const after = message.slice(m.index + m[0].length);
    const before = message.slice(0, m.index);
    const missing = /^\s*(?:is |was )?(?:missing|empty|absent)\b/.test(after) || /\b(?:has|names) no [^:;(]*\($/.test(before);
    const code = missing ? '1' : /not a date/.test(after) ? '8' : '7';
    return { text: m[0], position: Number(m[1]), ...(m[2] ? { component: Number(m[2]) } : {}), code };
  });
  const named_ = named === undefined ? undefined : /^[A-Z][A-Z0-9]{1,2}(\d{2})(?:-(\d+))?$/.exec(named);
  const pick = named_
    ? (said.find((x) => x.text === named) ?? {
        text: named,
        position: Number(named_[1]),
        ...(named_[2] ? { component: Number(named_[2]) } : {}),
        code: '7',
      })
    : (said.find((x) => x.code === '1') ?? said[0]);
  if (!pick) return undefined;
  const { text: _text, ...element } = pick;
  return element;
}

/** The parts of a FHIR Claim (as the X12 reader makes it) a 277CA names; each checked where read. */
interface ClaimShape {
  item?: unknown;
  billablePeriod?: { start?: unknown; end?: unknown };
  total?: { value?: unknown };
  provider?: { identifier?: { value?: unknown }; display?: unknown };
  patient?: { identifier?: { value?: unknown }; display?: unknown };
  insurer?: { identifier?: { value?: unknown }; display?: unknown };
}

/** The facts of a claim for its 277CA, from the FHIR Claim the reader made. */
function claimFacts(item: ClaimText): Omit<AckClaim, 'verdict'> {
  const c = (item.value ?? {}) as ClaimShape;
  const dates: string[] = [];
  for (const i of (Array.isArray(c.item) ? c.item : []) as { servicedDate?: unknown; servicedPeriod?: { start?: unknown; end?: unknown } }[]) {
    if (typeof i?.servicedDate === 'string') dates.push(i.servicedDate);
    if (typeof i?.servicedPeriod?.start === 'string') dates.push(i.servicedPeriod.start);
    if (typeof i?.servicedPeriod?.end === 'string') dates.push(i.servicedPeriod.end);
  }
  if (typeof c.billablePeriod?.start === 'string') dates.push(c.billablePeriod.start);
  if (typeof c.billablePeriod?.end === 'string') dates.push(c.billablePeriod.end);
  dates.sort();
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    clm01: item.identity?.clm01 ?? '',
    chargeCents: jsonNumberToCents(c.total?.value) ?? 0,
    billing: { npi: text(c.provider?.identifier?.value), name: typeof c.provider?.display === 'string' ? c.provider.display : null },
    patient: { memberId: text(c.patient?.identifier?.value) || null, name: typeof c.patient?.display === 'string' ? c.patient.display : null },
    service: dates.length > 0 ? { start: dates[0]!, end: dates.at(-1)! } : null,
    ...(text(c.insurer?.identifier?.value) !== ''
      ? { payer: { id: text(c.insurer?.identifier?.value), name: typeof c.insurer?.display === 'string' ? c.insurer.display : null } }
      : {}),
  };
}

interface Noted {
  path: string;
  facts: Omit<AckClaim, 'verdict'> | undefined;
  item: ClaimText;
  verdict?: AckVerdict;
  /** The problems tpa itself found with the claim (INVALID: the reader's and the claim's checks), each an IK3 of the 999. */
  own?: readonly PlacedProblem[];
}

type PlacedProblem = { field?: string; message: string; segment?: string };

export type AckTarget = { kind: 'dir'; dir: string } | { kind: 'stdout' };

/** The --ack option's value checked: a folder that exists (not a symlink to one is fine, the files are never written through one), or - with one path. */
export function ackTarget(value: string | undefined, paths: readonly string[]): AckTarget | undefined {
  if (value === undefined) return undefined;
  if (value === '-') {
    if (paths.length !== 1 || paths[0] === '-')
      throw new UsageError('--ack - prints the acknowledgments of one 837 on stdout: name exactly one 837 file (or give --ack a folder)');
    return { kind: 'stdout' };
  }
  let dir = false;
  try {
    const st = lstatSync(value);
    dir = st.isDirectory() || st.isSymbolicLink();
  } catch {
    dir = false;
  }
  if (!dir) throw new UsageError(`--ack ${oneLine(value)}: not a folder; the acknowledgments are written into a folder (or - for stdout)`);
  return { kind: 'dir', dir: value };
}

/**
 * Notes each X12 claim given, takes each verdict, and writes the acknowledgments at the end. Items
 * of JSON claims pass untouched.
 */
export class AckRecorder {
  private readonly noted: Noted[] = [];
  private readonly bySource = new Map<string, Noted[]>();
  private readonly files: string[] = [];

  constructor(
    private readonly ctx: Context,
    private readonly target: AckTarget,
    private readonly mode: 'validate' | 'submit',
  ) {}

  /** The items, each X12 one noted as it passes. */
  async *pass(items: AsyncIterable<ClaimText>): AsyncGenerator<ClaimText> {
    for await (const item of items) {
      this.note(item);
      yield item;
    }
  }

  private note(item: ClaimText): void {
    const x = item.x12;
    if (!x) return;
    if (!this.files.includes(x.path)) this.files.push(x.path);
    if (x.claim === undefined) return;
    const n: Noted = { path: x.path, facts: claimFacts(item), item };
    this.noted.push(n);
    const list = this.bySource.get(item.source) ?? [];
    list.push(n);
    this.bySource.set(item.source, list);
  }

  /** `claim validate`: a claim valid (received, nothing sent) or not (its errors, and whether the engine's rules or tpa's reading refused it). */
  checked(item: ClaimText, valid: boolean, errors: readonly PlacedProblem[], byEngine = false): void {
    const n = this.take(item.source);
    if (!n) return;
    n.verdict = valid ? { status: 'received', reasons: [] } : rejected(errors, this.files);
    // What the engine's rules refuse (a member the plan lacks) is not the 837's syntax: the 277CA says it, as claim submit's does.
    if (!valid && !byEngine) n.own = errors;
  }

  /**
   * `claim submit`: a claim's outcome in the batch. An UNKNOWN one has no acknowledgment yet (the run
   * that settles it says it). Claims of one source (the same CLM01 twice in a transaction set) are
   * told apart as the batch tells them: the first of them is the one sent, a refused one is the one
   * whose own problems the refusal names, else the last.
   */
  outcome(o: ClaimOutcome): void {
    const open = (this.bySource.get(o.source) ?? []).filter((x) => x.verdict === undefined);
    if (open.length === 0) return;
    if ((o.status === 'ACKNOWLEDGED' || o.status === 'SKIPPED') && o.external_claim_id)
      open[0]!.verdict = { status: 'accepted', encounterId: o.external_claim_id, reasons: [] };
    // Rejected only when refused: INVALID here, or the service's own refusal. A send that failed (no
    // answer, a 5xx, a stopped batch) may have been adjudicated: it waits for the run that settles it.
    else if (o.status === 'INVALID' || (o.status === 'FAILED' && refusedByService(o))) {
      const said = new Set(o.errors.map((e) => e.message));
      const own = open.find((x) => (x.item.errors ?? []).length > 0 && (x.item.errors ?? []).every((e) => said.has(e.message)));
      const n = own ?? open.at(-1)!;
      n.verdict = rejected(o.errors, this.files);
      // The service's refusals are not the 837's syntax: the 277CA says them, the 999 does not.
      if (o.status === 'INVALID') n.own = o.errors as PlacedProblem[];
    }
  }

  /** The member id the engine resolved for an encounter (its ledger entry), or null when it cannot be read. */
  private async memberOf(encounterId: string): Promise<string | null> {
    try {
      const detail = (await (await this.ctx.client()).ledgerDetail(encounterId)).body;
      return typeof detail?.encounter?.patient?.member_id === 'string' && detail.encounter.patient.member_id !== '' ? detail.encounter.patient.member_id : null;
    } catch {
      return null;
    }
  }

  private take(source: string): Noted | undefined {
    return this.bySource.get(source)?.find((x) => x.verdict === undefined);
  }

  /** Writes each file's acknowledgments; returns how many were written. */
  async finish(createdAt: string): Promise<void> {
    if (this.files.length === 0) this.ctx.note('--ack: no X12 837 among the claims read, so no acknowledgments were written (they answer 837s)');
    for (const path of this.files) {
      const { file, claims } = await outline(path);
      const waiting = await this.placeVerdicts(path, claims);
      if (waiting.length > 0)
        this.ctx.note(
          `acknowledgments of ${oneLine(path)}: ${waiting.length === 1 ? 'claim' : 'claims'} ${waiting.map(oneLine).join(', ')} not in the 277CA: ${waiting.length === 1 ? 'its' : 'their'} answer is not known (not answered, failed or not reached); run the same command again and its acknowledgment comes with it`,
        );
      const made = await this.acknowledgments(file, createdAt);
      if (this.target.kind === 'stdout') this.print(made);
      else await this.write(path, this.target.dir, made);
    }
  }

  /**
   * Each claim noted in a file, with its verdict, into its transaction set of the outline (the n-th
   * claim given is the n-th CLM of the outline); returns the CLM01s of the claims whose answer is not known.
   */
  private async placeVerdicts(path: string, claims: Outline['claims']): Promise<string[]> {
    const mine = this.noted.filter((n) => n.path === path);
    const waiting: string[] = [];
    for (const [i, n] of mine.entries()) {
      const at = claims[i];
      if (!at || !n.facts) continue;
      if (!n.verdict) {
        if (this.mode === 'submit') waiting.push(n.facts.clm01);
        continue;
      }
      const patient = { ...n.facts.patient, ...(at.places.patientName ?? {}) };
      // A patient the 837 names without a member id (a dependent): the one the engine resolved.
      if (patient.memberId === null && n.verdict.encounterId) patient.memberId = await this.memberOf(n.verdict.encounterId);
      at.set.claims.push({ ...n.facts, patient, verdict: n.verdict });
      for (const e of [...(n.item.errors ?? []), ...(n.own ?? [])]) placeProblem(at, e);
    }
    return waiting;
  }

  /** The TA1, 999 and 277CA of a file, each part (by usage) taking its control number. */
  private async acknowledgments(file: ReceivedFile, createdAt: string): Promise<Made[]> {
    const { nextControlNumber } = await import('../../../jobs/remit.js');
    const made: Made[] = [];
    const parts = byUsage(file);
    // Each acknowledgment a part of the file gets takes a control number, and is written once.
    const add = async (
      suffix: string,
      applies: (part: ReceivedFile) => boolean,
      write: (part: ReceivedFile, env: AckEnvelope) => { text: string; json: Record<string, unknown> },
    ) => {
      const texts: string[] = [];
      const jsons: Record<string, unknown>[] = [];
      for (const part of parts) {
        if (!applies(part.file)) continue;
        const out = write(part.file, { controlNumber: await nextControlNumber(this.ctx.paths.dataDir), createdAt, usage: part.usage });
        texts.push(out.text);
        jsons.push(out.json);
      }
      // One acknowledgment interchange per usage (ISA15): its JSON one object, several an array.
      if (texts.length > 0) made.push({ suffix, text: texts.join(''), json: jsons.length === 1 ? jsons[0]! : jsons });
    };
    await add('ta1', hasTa1, (f, env) => ({ text: writeTa1(f, env)!, json: ta1Json(f, env)! }));
    await add('999', has999, (f, env) => ({ text: write999(f, env), json: ack999Json(f, env) }));
    await add('277ca', has277ca, (f, env) => ({ text: write277ca(f, env), json: ack277Json(f, env) }));
    return made;
  }

  private print(made: Made[]): void {
    if (this.ctx.format === 'json' && this.ctx.formatChosen)
      this.ctx.io.stdout.write(
        `${JSON.stringify(
          made.flatMap((m) => (Array.isArray(m.json) ? m.json : [m.json])),
          null,
          2,
        )}\n`,
      );
    else for (const m of made) this.ctx.io.stdout.write(m.text);
  }

  private async write(path: string, dir: string, made: Made[]): Promise<void> {
    const { replaceWhole } = await import('../../../files/write-whole.js');
    const written: string[] = [];
    for (const m of made) {
      const name = join(dir, `${basename(path)}.${m.suffix}`);
      try {
        replaceWhole(name, m.text);
        replaceWhole(`${name}.json`, `${JSON.stringify(m.json, null, 2)}\n`);
      } catch (err) {
        throw new UsageError(`cannot write ${name}: ${(err as Error).message}; the acknowledgments of ${oneLine(path)} are not all written`);
      }
      written.push(`${basename(name)}`);
    }
    this.ctx.note(
      `acknowledgments of ${oneLine(path)}${this.mode === 'validate' ? ' (validate: nothing was sent)' : ''}: ${written.join(', ')} (and .json) in ${oneLine(dir)}`,
    );
  }
}

/** One acknowledgment of a file: its suffix (ta1, 999, 277ca), its X12 and its JSON. */
type Made = { suffix: string; text: string; json: Record<string, unknown> | Record<string, unknown>[] };

/**
 * A problem tpa found in a claim, on its transaction set. The envelope's refusal is the set's (IK5),
 * and one of the batch's (the same identity twice, no field and no segment) no segment's: every
 * other problem is an IK3, at its segment, else the claim's CLM. A refusal of the set by a segment
 * within it (a second BHT) is that segment's IK3 as well.
 */
function placeProblem(at: Outline['claims'][number], e: PlacedProblem): void {
  if (e.message.startsWith(ENVELOPE_REFUSAL)) {
    const se = e.segment ? segmentError(at.places, e.segment, e.message) : undefined;
    if (se && !at.set.segmentErrors.some((x) => x.position === se.position && x.message === se.message)) at.set.segmentErrors.push(se);
    return;
  }
  if (!e.segment && !e.field) return;
  const se = (e.segment ? segmentError(at.places, e.segment, e.message) : undefined) ?? {
    segment: 'CLM',
    position: at.places.clm,
    loop: '2300',
    code: 'I9',
    message: e.message,
  };
  if (!at.set.segmentErrors.some((x) => x.position === se.position && x.message === se.message)) at.set.segmentErrors.push(se);
}

/**
 * A refusal's words without this machine's file names: an acknowledgment goes to a partner, so a claim
 * is named by its place in its interchange (`ISA 000000001, GS 1, ST 0001, CLM P1`), never by a path.
 */
export function withoutPaths(text: string, paths: readonly string[]): string {
  let out = text;
  for (const p of [...paths].sort((a, b) => b.length - a.length)) if (p !== '') out = out.split(`${p}: `).join('').split(p).join('a file');
  return out.replace(/(?<![\w.:/])(?:~\/|\.{1,2}\/|\/|[A-Za-z]:\\)[^\s:;,"'()]+(?:: )?/g, (m) => (m.endsWith(': ') ? '' : 'a file'));
}

function rejected(errors: readonly { field?: string; message: string; segment?: string }[], paths: readonly string[]): AckVerdict {
  return {
    status: 'rejected',
    reasons: errors.map((e) => ({
      message: withoutPaths(`${e.segment ? `${e.segment}: ` : ''}${e.field ? `${e.field}: ` : ''}${e.message}`, paths),
      entity: entityOf(e.segment, e.field),
    })),
  };
}

/**
 * The context of a command whose stdout carries the acknowledgments (--ack -): its own rows go
 * nowhere, its counts to stderr (as when stdout is not a terminal).
 */
export function withoutStdout(ctx: Context): Context {
  const sink = { write: () => undefined, isTTY: false, columns: 80 };
  return Object.create(ctx, {
    io: { value: withStreams(ctx.io, { stdout: sink }), enumerable: true },
    format: { value: 'ndjson', enumerable: true },
  }) as Context;
}
