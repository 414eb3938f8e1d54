// The acknowledgments an 837's sender gets back (docs/x12-refusals.md "Acknowledgments"): a TA1 for an
// interchange whose envelope cannot be read, a 999 (005010X231A1) for each functional group and a
// 277CA (005010X214) for each claim. Pure: what was received and what tpa made of it in, the X12
// text and its JSON form (the same content) out. The CLI gathers the facts (cli/commands/claim/acks.ts).
import { x12Amount, x12Text } from './x12-835.js';
import { ENVELOPE_REFUSAL } from './x12-837.js';

/** One element problem of a segment (IK4): its position, component, the IK403 code, the bad value. */
export interface AckElementError {
  position: number;
  component?: number;
  /** IK403: 1 required element missing, 7 invalid code value, 8 invalid date, I12 implementation pattern match failure… */
  code: string;
}

/** One segment in error (IK3, with its IK4 when tpa's problem names the element). */
export interface AckSegmentError {
  /** IK301: the segment ID (CLM, SV1, NM1…). */
  segment: string;
  /** IK302: its position in the transaction set, ST being 1. */
  position: number;
  /** IK303: the loop of the 837 guide it is in (2010AA, 2010BA, 2300, 2310B, 2400, 2420A…), when known; none in the header (BHT). */
  loop?: string;
  /** IK304: 3 required segment missing, 8 segment has data element errors, I6 implementation dependent segment missing… */
  code: string;
  element?: AckElementError;
  /** tpa's own words (the JSON form; a 999 has no room for text). */
  message: string;
}

/** What tpa made of one claim: received (validate: checked, nothing sent), accepted by the service, or rejected. */
export interface AckVerdict {
  status: 'received' | 'accepted' | 'rejected';
  /** The service's claim control number (the encounter id), once it acknowledged the claim: the 277CA's REF*1K. */
  encounterId?: string;
  /** Why it was rejected, each with the entity at fault (STC01-3: 85 billing provider, IL subscriber, QC patient, PR payer, 41 submitter). */
  reasons: { message: string; entity?: string }[];
}

export interface AckClaim {
  clm01: string;
  chargeCents: number;
  billing: { npi: string; name: string | null };
  /**
   * The patient: the member id the engine resolved (or the 837 sent), null when neither is known (the
   * 277CA then leaves NM108/NM109 out); the name as the 837's NM103/NM104/NM105 sent it, when known.
   */
  patient: { memberId: string | null; name: string | null; last?: string; first?: string; middle?: string };
  /** YYYY-MM-DD, the claim's first and last dates of service, when it has them. */
  service: { start: string; end: string } | null;
  /** The payer the claim names (NM1*PR of loop 2010BB), when it names one: the 277CA's 2100A. */
  payer?: { id: string; name: string | null };
  verdict: AckVerdict;
}

export interface AckTransactionSet {
  /** ST01, ST02, ST03 of the 837. */
  id: string;
  control: string;
  version: string;
  /** BHT03: the sender's reference of the transaction, which the 277CA gives back (TRN*2 of loop 2200B). */
  bht03: string;
  /** IK5 codes (IK502…): 2 trailer missing, 3 control numbers differ, 4 segment count wrong, 5 segments in error… with tpa's words. */
  problems: { code: string; message: string }[];
  /** Its group's or interchange's envelope problem that refused its claims (the set is then rejected, IK5 R). */
  refusedBy?: string;
  segmentErrors: AckSegmentError[];
  claims: AckClaim[];
}

export interface AckGroup {
  /** GS01, GS02 (the sender), GS03, GS06, GS08 of the 837. */
  functionalId: string;
  sender: string;
  receiver: string;
  control: string;
  version: string;
  /** AK9 codes (AK905…): 3 trailer missing, 4 control numbers differ, 5 transaction set count wrong, with tpa's words. */
  problems: { code: string; message: string }[];
  sets: AckTransactionSet[];
}

export interface AckInterchange {
  /** ISA05/06 and ISA07/08 of the 837 (qualifier and id), its ISA09/10 (YYMMDD, HHMM), ISA13, ISA14 and ISA15. */
  senderQualifier: string;
  sender: string;
  receiverQualifier: string;
  receiver: string;
  date: string;
  time: string;
  control: string;
  ackRequested: boolean;
  usage: string;
  /** TA1 note codes (TA105: 001 control numbers differ, 021 group count wrong, 023 premature end, 024 invalid content…) with tpa's words. */
  problems: { code: string; message: string }[];
  groups: AckGroup[];
}

/** What one 837 file held, for its acknowledgments. `unreadable`: the file is no interchange at all (its head is no ISA). */
export interface ReceivedFile {
  interchanges: AckInterchange[];
  unreadable?: { message: string; control: string };
}

/** The acknowledgments' own envelope: ISA13 (and GS06), when they were made, test (T) or production (P). */
export interface AckEnvelope {
  controlNumber: number;
  createdAt: string;
  usage: 'P' | 'T';
  /** When the 837's receiver id is unknown (an unreadable file): who tpa says it is. */
  defaultSender?: string;
}

const EL = '*';
const COMP = ':';
const REP = '^';
const SEG = '~';
export const ACK_999_VERSION = '005010X231A1';
export const ACK_277CA_VERSION = '005010X214';

const seg = (elements: readonly string[]): string => {
  const copy = [...elements];
  while (copy.length > 1 && copy.at(-1) === '') copy.pop();
  return copy.join(EL) + SEG;
};
const fixed = (text: string, width: number) => x12Text(text, width).padEnd(width, ' ');
/** X12 decimals as the 835 writes them: no trailing zeros (`1500.7`, `1800`): one rule for every amount tpa writes. */
const amount = (cents: number) => x12Amount(cents);
const ymd = (iso: string) => iso.replace(/-/g, '');

/** The usage of an 837 interchange's acknowledgments: T when it is test data (ISA15 T), else P. */
export function interchangeUsage(i: AckInterchange): 'P' | 'T' {
  return i.usage === 'T' ? 'T' : 'P';
}

/**
 * A file's interchanges by usage: one acknowledgment interchange holds one usage (its ISA15), so a
 * file of production and test interchanges is answered by one acknowledgment interchange of each,
 * in the order their first interchange comes. An unreadable file is one part, production.
 */
export function byUsage(file: ReceivedFile): { usage: 'P' | 'T'; file: ReceivedFile }[] {
  if (file.unreadable || file.interchanges.length === 0) return [{ usage: 'P', file }];
  const parts: { usage: 'P' | 'T'; file: ReceivedFile }[] = [];
  for (const i of file.interchanges) {
    const usage = interchangeUsage(i);
    const part = parts.find((p) => p.usage === usage);
    if (part) part.file.interchanges.push(i);
    else parts.push({ usage, file: { interchanges: [i] } });
  }
  return parts;
}

/** ISA … IEA around groups of one kind; a TA1-only interchange has no group. */
function interchange(
  file: ReceivedFile,
  env: AckEnvelope,
  body: (control: string, date8: string, time4: string) => { segments: string[]; groups: number },
): string {
  const first = file.interchanges[0];
  const iso = new Date(env.createdAt).toISOString();
  const date8 = iso.slice(0, 10).replace(/-/g, '');
  const time4 = iso.slice(11, 16).replace(':', '');
  const control = String(env.controlNumber).padStart(9, '0');
  // The acknowledgment goes back: its sender is the 837's receiver, its receiver the 837's sender.
  const out = [
    seg([
      'ISA',
      '00',
      ' '.repeat(10),
      '00',
      ' '.repeat(10),
      first?.receiverQualifier || 'ZZ',
      fixed(first?.receiver ?? env.defaultSender ?? 'TPA', 15),
      first?.senderQualifier || 'ZZ',
      fixed(first?.sender ?? 'UNKNOWN', 15),
      date8.slice(2),
      time4,
      REP,
      '00501',
      control,
      '0',
      env.usage,
      COMP,
    ]),
  ];
  const { segments, groups } = body(String(env.controlNumber), date8, time4);
  out.push(...segments, seg(['IEA', String(groups), control]));
  return `${out.join('\n')}\n`;
}

/** A functional group of transaction sets, each given as its body (ST and SE are added, counted). */
function group(
  functionalId: string,
  version: string,
  first: AckInterchange | undefined,
  control: string,
  date8: string,
  time4: string,
  sets: string[][][],
): string[] {
  const out = [
    seg([
      'GS',
      functionalId,
      x12Text(first?.receiver ?? 'TPA', 15) || 'TPA',
      x12Text(first?.sender ?? 'UNKNOWN', 15) || 'UNKNOWN',
      date8,
      time4,
      control,
      'X',
      version,
    ]),
  ];
  sets.forEach((body, i) => {
    const st = String(i + 1).padStart(4, '0');
    out.push(seg(['ST', functionalId === 'FA' ? '999' : '277', st, version]));
    for (const s of body) out.push(seg(s));
    out.push(seg(['SE', String(body.length + 2), st]));
  });
  out.push(seg(['GE', String(sets.length), control]));
  return out;
}

// ---- TA1 ----

/** The TA1s of a file: one per interchange whose envelope has problems or that asked for one (ISA14 1); none when neither. */
/** Whether a file gets a TA1: an envelope tpa cannot read, an interchange with a problem, or one that asks for it (ISA14 1). */
export function hasTa1(file: ReceivedFile): boolean {
  return file.unreadable !== undefined || file.interchanges.some((i) => i.problems.length > 0 || i.ackRequested);
}

/** Whether a file gets a 999: it has a functional group. */
export const has999 = (file: ReceivedFile): boolean => file.interchanges.some((i) => i.groups.length > 0);

export function ta1Json(file: ReceivedFile, env: AckEnvelope): Record<string, unknown> | undefined {
  const acks = file.unreadable
    ? [{ control_number: file.unreadable.control, date: '', time: '', status: 'R', note_code: '024', message: file.unreadable.message }]
    : file.interchanges
        .filter((i) => i.problems.length > 0 || i.ackRequested)
        .map((i) => ({
          control_number: i.control,
          date: i.date,
          time: i.time,
          status: i.problems.length > 0 ? 'R' : 'A',
          note_code: i.problems[0]?.code ?? '000',
          message: i.problems.map((p) => p.message).join('; ') || 'the interchange envelope was read',
        }));
  if (acks.length === 0) return undefined;
  return { kind: 'TA1', ...envelopeJson(file, env), acknowledgments: acks };
}

export function writeTa1(file: ReceivedFile, env: AckEnvelope): string | undefined {
  const json = ta1Json(file, env);
  if (!json) return undefined;
  const acks = json.acknowledgments as { control_number: string; date: string; time: string; status: string; note_code: string }[];
  return interchange(file, env, () => ({
    segments: acks.map((a) => seg(['TA1', x12Text(a.control_number, 9).padStart(9, '0'), a.date || '000000', a.time || '0000', a.status, a.note_code])),
    groups: 0,
  }));
}

// ---- 999 ----

/** A transaction set's IK5: A accepted, E accepted with errors (some claims refused), R rejected (none of its claims can be taken, or its envelope refused them). */
function setStatus(t: AckTransactionSet): 'A' | 'E' | 'R' {
  if (t.problems.length > 0 || t.refusedBy !== undefined) return 'R';
  if (t.segmentErrors.length === 0) return 'A';
  return t.claims.some((c) => c.verdict.status !== 'rejected') ? 'E' : 'R';
}

/** A group's AK9: A accepted (every set accepted, with errors or not), P partially accepted, R rejected. */
function groupStatus(g: AckGroup): { status: 'A' | 'P' | 'R'; accepted: number } {
  const accepted = g.sets.filter((t) => setStatus(t) !== 'R').length;
  if (g.problems.length > 0) return { status: 'R', accepted };
  return { status: accepted === g.sets.length && g.sets.length > 0 ? 'A' : accepted > 0 ? 'P' : 'R', accepted };
}

export function ack999Json(file: ReceivedFile, env: AckEnvelope): Record<string, unknown> {
  return {
    kind: '999',
    version: ACK_999_VERSION,
    ...envelopeJson(file, env),
    acknowledgments: file.interchanges.flatMap((i) =>
      i.groups.map((g) => {
        const { status, accepted } = groupStatus(g);
        return {
          interchange_control_number: i.control,
          functional_id: g.functionalId,
          group_control_number: g.control,
          version: g.version,
          status,
          transaction_sets_included: g.sets.length,
          transaction_sets_received: g.sets.length,
          transaction_sets_accepted: accepted,
          problems: g.problems,
          transaction_sets: g.sets.map((t) => ({
            id: t.id,
            control_number: t.control,
            version: t.version,
            status: setStatus(t),
            problems: setProblems(t),
            segment_errors: t.segmentErrors.map((e) => ({
              segment: e.segment,
              position: e.position,
              loop: e.loop ?? null,
              code: e.code,
              element: e.element ? { position: e.element.position, component: e.element.component ?? null, code: e.element.code } : null,
              message: e.message,
            })),
          })),
        };
      }),
    ),
  };
}

/** A set's IK5 problems: its own, else the envelope's refusal of its claims (IK502 5). */
function setProblems(t: AckTransactionSet): { code: string; message: string }[] {
  if (t.problems.length > 0 || t.refusedBy === undefined) return t.problems;
  return [{ code: '5', message: t.refusedBy }];
}

/**
 * The segments in error of a set, each once (one IK3 per segment, in the order first named) with the
 * elements each problem of it names (its IK4s, each once): `8` when one is named, else the first problem's code.
 */
export function inError(errors: readonly AckSegmentError[]): (Omit<AckSegmentError, 'element'> & { elements: AckElementError[] })[] {
  const out: (Omit<AckSegmentError, 'element'> & { elements: AckElementError[] })[] = [];
  for (const e of errors) {
    const { element, ...rest } = e;
    let at = out.find((x) => x.position === e.position && x.segment === e.segment);
    if (!at) {
      at = { ...rest, elements: [] };
      out.push(at);
    }
    if (element && !at.elements.some((x) => x.position === element.position && x.component === element.component && x.code === element.code)) {
      at.elements.push(element);
      at.code = '8';
    }
  }
  return out;
}

export function write999(file: ReceivedFile, env: AckEnvelope): string {
  const first = file.interchanges[0];
  return interchange(file, env, (control, date8, time4) => {
    const sets: string[][][] = [];
    for (const i of file.interchanges)
      for (const g of i.groups) {
        const body: string[][] = [['AK1', x12Text(g.functionalId, 2), x12Text(g.control, 9), x12Text(g.version, 12)]];
        for (const t of g.sets) {
          body.push(['AK2', x12Text(t.id, 3), x12Text(t.control, 9), x12Text(t.version, 35)]);
          for (const e of inError(t.segmentErrors).slice(0, 999)) {
            body.push(['IK3', x12Text(e.segment, 3), String(e.position), x12Text(e.loop ?? '', 6), e.code]);
            for (const el of e.elements.slice(0, 99))
              body.push(['IK4', el.component ? `${el.position}${COMP}${el.component}` : String(el.position), '', el.code]);
          }
          const status = setStatus(t);
          const codes = setProblems(t).map((p) => p.code);
          if (status !== 'A' && codes.length === 0) codes.push(t.segmentErrors.length > 0 ? 'I5' : '5');
          body.push(['IK5', status, ...codes.slice(0, 5)]);
        }
        const { status, accepted } = groupStatus(g);
        const codes = g.problems.map((p) => p.code).slice(0, 5);
        body.push(['AK9', status, String(g.sets.length), String(g.sets.length), String(accepted), ...codes]);
        sets.push(body);
      }
    if (sets.length === 0) return { segments: [], groups: 0 };
    return { segments: group('FA', ACK_999_VERSION, first, control, date8, time4, sets), groups: 1 };
  });
}

// ---- 277CA ----

/** STC01 of a claim: A1:19 received (validate), A2:20 accepted into adjudication, A7:21 rejected for invalid information, A3:21 returned as unprocessable (its envelope was wrong). */
function stc01(c: AckClaim): { category: string; code: string; entity: string; action: string } {
  if (c.verdict.status === 'received') return { category: 'A1', code: '19', entity: 'PR', action: 'WQ' };
  if (c.verdict.status === 'accepted') return { category: 'A2', code: '20', entity: 'PR', action: 'WQ' };
  // A claim of an envelope that is wrong was never read as a claim: returned as unprocessable (A3).
  const category = c.verdict.reasons.some((r) => r.message.startsWith(ENVELOPE_REFUSAL)) ? 'A3' : 'A7';
  return { category, code: '21', entity: c.verdict.reasons[0]?.entity ?? '85', action: 'U' };
}

/**
 * The transaction sets a 277CA tells: an 837's, with a claim whose outcome is known. A set that is not
 * an 837 has no claims (the 999 rejects it), and one whose claims all wait for their answer has
 * nothing to say yet: neither gets a 2000B (whose HL04 1 says it has claims under it).
 */
function told(g: AckGroup): AckTransactionSet[] {
  return g.sets.filter((t) => t.id === '837' && t.claims.length > 0);
}

/** Whether a file's 277CA has anything to tell (else none is written). */
export function has277ca(file: ReceivedFile): boolean {
  return file.interchanges.some((i) => i.groups.some((g) => told(g).length > 0));
}

export function ack277Json(file: ReceivedFile, env: AckEnvelope): Record<string, unknown> {
  return {
    kind: '277CA',
    version: ACK_277CA_VERSION,
    ...envelopeJson(file, env),
    transactions: file.interchanges.flatMap((i) =>
      i.groups.flatMap((g) =>
        told(g).map((t) => ({
          interchange_control_number: i.control,
          group_control_number: g.control,
          transaction_set_control_number: t.control,
          trace: t.bht03,
          ...totals(t.claims),
          claims: t.claims.map((c) => {
            const s = stc01(c);
            return {
              patient_control_number: c.clm01,
              status: c.verdict.status,
              category: s.category,
              status_code: s.code,
              entity: s.entity,
              action: s.action,
              charge: amount(c.chargeCents),
              billing_provider: c.billing,
              patient: c.patient,
              service: c.service,
              payer_claim_control_number: c.verdict.encounterId ?? null,
              reasons: c.verdict.reasons,
            };
          }),
        })),
      ),
    ),
  };
}

function totals(claims: readonly AckClaim[]) {
  const taken = claims.filter((c) => c.verdict.status !== 'rejected');
  const rejected = claims.filter((c) => c.verdict.status === 'rejected');
  const sum = (list: readonly AckClaim[]) => list.reduce((s, c) => s + c.chargeCents, 0);
  return { accepted: taken.length, rejected: rejected.length, accepted_charges: amount(sum(taken)), rejected_charges: amount(sum(rejected)) };
}

/** The person's name as NM103 (last) and NM104 (the rest). */
function nameParts(name: string | null): [string, string] {
  const words = x12Text(name ?? '', 95)
    .split(' ')
    .filter(Boolean);
  const last = words.pop() ?? '';
  return [last.slice(0, 60), words.join(' ').slice(0, 35)];
}

export function write277ca(file: ReceivedFile, env: AckEnvelope): string {
  const first = file.interchanges[0];
  const day = new Date(env.createdAt).toISOString().slice(0, 10).replace(/-/g, '');
  return interchange(file, env, (control, date8, time4) => {
    const sets: string[][][] = [];
    for (const i of file.interchanges)
      for (const g of i.groups)
        for (const t of told(g)) {
          const tot = totals(t.claims);
          const body: string[][] = [['BHT', '0085', '08', x12Text(`${g.control}-${t.control}`, 50), date8, time4, 'TH']];
          let hl = 0;
          // 2000A: the payer the claims name (NM1*PR), else the 837's receiver.
          const payer = ++hl;
          body.push(['HL', String(payer), '', '20', '1']);
          const named = t.claims.find((c) => c.payer?.id)?.payer;
          const payerId = x12Text(named?.id ?? i.receiver, 80) || 'TPA';
          body.push(['NM1', 'PR', '2', x12Text(named?.name ?? named?.id ?? i.receiver, 60) || payerId, '', '', '', '', 'PI', payerId]);
          body.push(['TRN', '1', x12Text(`${i.control}${g.control}${t.control}`, 50)]);
          body.push(['DTP', '050', 'D8', day]);
          body.push(['DTP', '009', 'D8', day]);
          // 2000B: the information receiver (the 837's submitter), its trace the 837's BHT03.
          const receiver = ++hl;
          body.push(['HL', String(receiver), String(payer), '21', '1']);
          body.push(['NM1', '41', '2', x12Text(i.sender, 60) || 'UNKNOWN', '', '', '', '', '46', x12Text(i.sender, 80) || 'UNKNOWN']);
          body.push(['TRN', '2', x12Text(t.bht03, 50) || x12Text(t.control, 50)]);
          body.push(['STC', `A1${COMP}19${COMP}PR`, date8, 'WQ', amount(t.claims.reduce((s, c) => s + c.chargeCents, 0))]);
          body.push(['QTY', '90', String(tot.accepted)], ['QTY', 'AA', String(tot.rejected)]);
          body.push(['AMT', 'YU', tot.accepted_charges], ['AMT', 'YY', tot.rejected_charges]);
          // 2000C/D per billing provider, in the order met; each claim a patient (2000D).
          const byProvider = new Map<string, AckClaim[]>();
          for (const c of t.claims) {
            const list = byProvider.get(c.billing.npi) ?? [];
            list.push(c);
            byProvider.set(c.billing.npi, list);
          }
          for (const [npi, claims] of byProvider) {
            const provider = ++hl;
            const pt = totals(claims);
            body.push(['HL', String(provider), String(receiver), '19', '1']);
            body.push(['NM1', '85', '2', x12Text(claims[0]!.billing.name ?? npi, 60) || 'UNKNOWN', '', '', '', '', 'XX', x12Text(npi, 80) || '0000000000']);
            body.push(['TRN', '1', x12Text(npi, 50) || '0']);
            body.push(['QTY', 'QA', String(pt.accepted)], ['QTY', 'QC', String(pt.rejected)]);
            body.push(['AMT', 'YU', pt.accepted_charges], ['AMT', 'YY', pt.rejected_charges]);
            for (const c of claims) {
              const s = stc01(c);
              const [last, first, middle] =
                c.patient.last !== undefined
                  ? [x12Text(c.patient.last, 60), x12Text(c.patient.first ?? '', 35), x12Text(c.patient.middle ?? '', 25)]
                  : [...nameParts(c.patient.name), ''];
              const memberId = x12Text(c.patient.memberId ?? '', 80);
              body.push(['HL', String(++hl), String(provider), 'PT']);
              // No member id known (a dependent the engine has not resolved): NM108/NM109 are left out, never made up.
              body.push(['NM1', 'QC', '1', last || 'UNKNOWN', first, middle, '', '', ...(memberId ? ['MI', memberId] : [])]);
              body.push(['TRN', '2', x12Text(c.clm01, 50) || '0']);
              const reason = c.verdict.reasons.map((r) => r.message).join('; ');
              body.push([
                'STC',
                `${s.category}${COMP}${s.code}${COMP}${s.entity}`,
                date8,
                s.action,
                amount(c.chargeCents),
                ...(reason ? ['', '', '', '', '', '', '', x12Text(reason, 264)] : []),
              ]);
              if (c.verdict.encounterId) body.push(['REF', '1K', x12Text(c.verdict.encounterId, 50)]);
              if (c.service)
                body.push(
                  c.service.start === c.service.end
                    ? ['DTP', '472', 'D8', ymd(c.service.start)]
                    : ['DTP', '472', 'RD8', `${ymd(c.service.start)}-${ymd(c.service.end)}`],
                );
            }
          }
          sets.push(body);
        }
    if (sets.length === 0) return { segments: [], groups: 0 };
    return { segments: group('HN', ACK_277CA_VERSION, first, control, date8, time4, sets), groups: 1 };
  });
}

function envelopeJson(file: ReceivedFile, env: AckEnvelope) {
  const first = file.interchanges[0];
  return {
    interchange_control_number: String(env.controlNumber).padStart(9, '0'),
    created_at: new Date(env.createdAt).toISOString(),
    usage: env.usage,
    sender: first?.receiver ?? env.defaultSender ?? 'TPA',
    receiver: first?.sender ?? 'UNKNOWN',
  };
}
