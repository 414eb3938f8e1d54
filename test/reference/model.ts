// The reference model of the money rules: docs/money-rules.md "Money rules, line by line" and the rules
// decided with payees, fee kinds and money in time, applied to a sequence of events with maps and
// loops, slowly and plainly. It imports nothing from src/: where it and the engine disagree, one of
// them is wrong, and the rules decide which.
import type {
  Answer,
  ClaimFigures,
  EncounterFigures,
  Event,
  LineEvent,
  LineFigures,
  Outcome,
  PayoutFigures,
  ReportFigures,
  Scenario,
  Sequence,
  TransferFigures,
} from './events.js';
import { emptyReport } from './events.js';
import { type Contract, member as memberOf, provider as providerOf, type Rate, seededContracts } from './fixtures.js';

const DAY_MS = 86_400_000;
/** The processor's fee per payout (docs/api-resources.md "Fee structure"): 2.2% of the amount + 0.30. */
const FEE_PER_MILLE = 22;
const FEE_FLAT_CENTS = 30;
/** The modifiers that make a line another service of its code and date (docs/money-rules.md "Duplicates"). */
export const DISTINCT_SERVICE = ['59', 'XE', 'XS', 'XP', 'XU', '76', '77', '91'];
/** `local simulate aeob-variance` states the AEOB this much below the benefit (docs/money-funding.md "Settlement"). */
const AEOB_SHORT_CENTS = 1234;

/** n / d rounded half away from zero, for n ≥ 0 and d > 0 (docs/money-funding.md "Settlement": fees round half away from zero). */
export function divRound(n: number, d: number): number {
  return Math.floor((2 * n + d) / (2 * d));
}

/**
 * `total` cents shared by `weights` in proportion, by largest remainder: each gets the floor of its
 * exact share, then the cents left go one each to the largest remainders, the earlier on a tie.
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (sum === 0) return weights.map(() => 0);
  const shares = weights.map((w) => Math.floor((total * w) / sum));
  let left = total - shares.reduce((s, x) => s + x, 0);
  const order = weights.map((w, i) => ({ i, r: (total * w) % sum })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left === 0) break;
    shares[i]! += 1;
    left--;
  }
  return shares;
}

/** A quantity sent with up to three decimals, in thousandths of a unit (1.005 → 1005). */
export const thousandths = (quantity: number): number => Math.round(quantity * 1000);

/** A line's charge: its unit price × its quantity, rounded half away from zero to the cent (FHIR's net). */
export const chargeOf = (l: { unitCents: number; quantity: number }): number => divRound(l.unitCents * thousandths(l.quantity), 1000);

/** A HCPCS Level II code: a letter, then four digits (J3490, A4550); the engine reads it and no contract rates it. */
export const isHcpcsLevelII = (code: string): boolean => /^[A-V][0-9]{4}$/.test(code);

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const daysBetween = (a: string, b: string) => Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
const inForce = (from: string, to: string | null, date: string) => from <= date && (to === null || date <= to);

/** The fixtures' plans start their year on 1 January (plan_year_start 01-01): the calendar year. */
const planYear = (date: string) => date.slice(0, 4);

/** T+1 business day: the next day, moved past a weekend. */
export function arrival(ms: number): number {
  let t = ms + DAY_MS;
  for (;;) {
    const day = new Date(t).getUTCDay();
    if (day !== 0 && day !== 6) return t;
    t += DAY_MS;
  }
}

interface Line extends LineEvent {
  index: number;
  chargeCents: number;
  payee: string;
  /** What the duplicate rule counts: the role of whoever rendered the line, even when another is paid for it. */
  feeKind: string;
  /** Anesthesia, for the anesthesia-included rule: rendered by an anesthesia provider, or money going to one. */
  isAnesthesia: boolean;
  /** The price before the anesthesia paid earlier that day was deducted (docs/money-rules.md "Anesthesia included"). */
  priceBeforeDeduction?: number;
  status: 'ALLOWED' | 'NOT_COVERED' | 'DENIED' | 'BUNDLED' | 'PENDED';
  denial: string | null;
  contract?: Contract;
  allowed: number;
  copay: number;
  deductible: number;
  coinsurance: number;
  /** For a BUNDLE line: the episode it belongs to. */
  episode?: Episode;
}

interface Episode {
  key: string;
  days: Set<string>;
  /** Codes paid (allowed > 0) in the episode. */
  parts: Set<string>;
}

interface Transfer {
  status: 'INITIATED' | 'COMPLETED' | 'FAILED' | 'REFUNDED';
  total: number;
  payouts: { npi: string; role: string; amount: number; fee: number }[];
  arrivesAt: number;
  aeob: { amount: number | null; match: 'EXACT' | 'VARIANCE' | 'MISSING_AEOB' } | null;
}

interface Encounter {
  member: string;
  billing: string;
  lines: Line[];
  disposition: string;
  /** A pended claim that a later claim sent again (the same services, member and billing provider). */
  superseded?: boolean;
  benefit: number;
  charges: number;
  allowed: number;
  patient: number;
  transfers: Transfer[];
  /**
   * The AEOB is the claim's, not a transfer's: one the payer stated otherwise (sandbox), or never
   * sent, is what every transfer of the encounter is matched against when it completes.
   */
  aeob?: { amount: number | null; match: 'VARIANCE' | 'MISSING_AEOB' };
  aeobMissing?: boolean;
  aeobVariance?: boolean;
}

export class Model {
  private now: number;
  private readonly contracts = seededContracts();
  /** (member, code, date, fee kind) of every line paid. */
  private readonly paid = new Set<string>();
  /** Deductible met by claims, per member and plan year. */
  private readonly deductibleMet = new Map<string, number>();
  /** Copay taken by claims, per visit: member, billing provider, date of service. */
  private readonly copayTaken = new Map<string, number>();
  /** Bundle episodes per member and BUNDLE contract. */
  private readonly episodes = new Map<string, Episode[]>();
  /** Per member and date: a line paid that includes anesthesia. */
  private readonly includesAnesthesia = new Set<string>();
  /** Per member and date: anesthesia paid before any line including it, and how much of it was deducted since. */
  private readonly anesthesia = new Map<string, { paid: number; deducted: number }>();
  private readonly encounters: Encounter[] = [];
  /** The latest time the engine recorded something (a claim, an approval, a settlement event). */
  private recordedUntil = 0;
  /** (member, code, date, fee kind) of lines accepted at 0.00, not paid. */
  private readonly unpaid = new Set<string>();
  /**
   * Rules of payees, fee kinds and money in time this sequence exercised where the rules before them
   * decided otherwise, for a generator that must avoid them while the engine does not have them yet.
   */
  readonly touched = new Set<string>();

  constructor(start: string) {
    this.now = Date.parse(start);
  }

  static run(sequence: Sequence): Outcome {
    const model = new Model(sequence.start);
    const answers = sequence.events.map((e) => model.apply(e));
    return { answers, encounters: model.encounterFigures(), report: model.report() };
  }

  /**
   * The rules of payees, fee kinds and money in time a sequence exercises where the earlier rules
   * decided otherwise.
   */
  static touches(sequence: Sequence): Set<string> {
    const model = new Model(sequence.start);
    for (const e of sequence.events) model.apply(e);
    return model.touched;
  }

  apply(event: Event): Answer | ClaimFigures {
    this.settleDue();
    const record = <T extends Answer | ClaimFigures>(answer: T): T => {
      if (answer.http === 200 || answer.http === 201) this.recordedUntil = Math.max(this.recordedUntil, this.now);
      return answer;
    };
    switch (event.kind) {
      case 'claim':
        return record(this.claim(event));
      case 'fund':
        return record(this.fund(event.claim));
      case 'simulate':
        return record(this.simulate(event.scenario, event.claim));
      case 'advance':
        this.now += event.hours * 3_600_000;
        this.settleDue();
        return { http: 200 };
      case 'clock-back': {
        // The clock never goes back before the latest time the engine recorded (docs/local.md "The engine clock").
        const target = this.now - event.hours * 3_600_000;
        if (target < this.recordedUntil) return { http: 400 };
        this.now = target;
        return { http: 200 };
      }
      case 'finalize':
        return record(this.finalize(event.rates, event.effective));
    }
  }

  // ---- claims ---------------------------------------------------------------------------------

  private holdsAnyContract(npi: string): boolean {
    return this.contracts.some((c) => c.npi === npi);
  }

  private contractsInForce(npi: string, group: string, date: string): Contract[] {
    return this.contracts.filter((c) => c.npi === npi && c.group === group && inForce(c.effective, c.termination, date));
  }

  private rateOn(contract: Contract, code: string, date: string): Rate | undefined {
    return contract.rates.find((r) => r.code === code && inForce(r.from, r.to, date));
  }

  /** The payee's contract pricing a line (docs/money-rules.md "Contracts"): most of its codes on the claim, newest, id. */
  private pricingContract(line: Line, lines: readonly Line[], group: string): Contract | undefined {
    const candidates = this.contractsInForce(line.payee, group, line.date).filter((c) => this.rateOn(c, line.code, line.date));
    const covering = (c: Contract) => lines.filter((l) => l.payee === line.payee && this.rateOn(c, l.code, l.date)).length;
    candidates.sort((a, b) => covering(b) - covering(a) || (a.effective < b.effective ? 1 : a.effective > b.effective ? -1 : 0) || (a.id < b.id ? -1 : 1));
    return candidates[0];
  }

  private claim(event: Extract<Event, { kind: 'claim' }>): ClaimFigures {
    const billing = providerOf(event.billing);
    // The claim's network group is the billing provider's when it is in the network (holds a
    // contract); outside it, no care-team member can be paid on its claim.
    const group = this.contracts.some((c) => c.npi === event.billing) ? billing.group : '(no network)';
    const member = memberOf(event.member);
    // A service not yet rendered on the engine clock is 400 errors[] (docs/money-rules.md "Money rules").
    const today = new Date(this.now).toISOString().slice(0, 10);
    if (event.lines.some((l) => l.date > today)) return { http: 400 };
    const lines: Line[] = event.lines.map((l, index) => {
      const provider = l.careTeam ?? event.billing;
      const payee = this.holdsAnyContract(provider) ? provider : event.billing;
      return {
        ...l,
        index,
        chargeCents: chargeOf(l),
        payee,
        feeKind: providerOf(provider).role,
        isAnesthesia: providerOf(provider).role === 'ANESTHESIA' || providerOf(payee).role === 'ANESTHESIA',
        status: 'ALLOWED',
        denial: null,
        allowed: 0,
        copay: 0,
        deductible: 0,
        coinsurance: 0,
      };
    });
    // The contract's 404 no_active_contract: no line has a payee contract covering its code on its
    // date; but a claim of codes no contract can rate alone (HCPCS Level II) is denied line by line
    // when the billing provider holds a contract in force in its group on the claim's first date.
    for (const line of lines) line.contract = this.pricingContract(line, lines, group);
    const firstDate = lines.map((l) => l.date).sort()[0]!;
    const onlyUnpriced = lines.every((l) => isHcpcsLevelII(l.code)) && this.contractsInForce(event.billing, group, firstDate).length > 0;
    if (!onlyUnpriced && lines.every((l) => !l.contract || (l.payee !== event.billing && this.contractsInForce(l.payee, group, l.date).length === 0))) {
      return { http: 404 };
    }

    // Coverage, then the payee's eligibility, then the contract (docs/money-rules.md "Money rules, line by line", in that order).
    for (const line of lines) {
      if (line.date < member.coverageStart) this.deny(line, 'DENIED', 'CARC-26');
      else if (member.coverageEnd !== null && line.date > member.coverageEnd) this.deny(line, 'DENIED', 'CARC-27');
      else if (line.payee !== event.billing && this.contractsInForce(line.payee, group, line.date).length === 0) this.deny(line, 'DENIED', 'CARC-B7');
      // A drug or supply code (HCPCS Level II): no contract rates one, so the plan does not cover it.
      else if (isHcpcsLevelII(line.code)) this.deny(line, 'DENIED', 'CARC-96');
      else if (!line.contract) this.deny(line, 'NOT_COVERED', 'CARC-96');
    }

    // Duplicates (docs/money-rules.md "Money rules, line by line"), a line at a time: a line already paid (allowed > 0) on an earlier claim,
    // or earlier on this one, is denied. What an earlier line of this claim is allowed can depend on
    // the lines after it (a bundle's spread, a percentage on the contract's total), so the claim is
    // priced again after each decision.
    let priced = this.price(lines, event.member);
    for (const line of lines) {
      if (line.status !== 'ALLOWED') continue;
      const key = this.paidKey(event.member, line);
      const same = lines.filter((l) => l.index < line.index && this.paidKey(event.member, l) === key && l.status !== 'DENIED');
      const earlier = same.some((l) => priced.allowedOf(l) > 0 || priced.carriers.has(l.index));
      if (same.length > 0 && !earlier) this.touched.add('a 0.00 line is no duplicate');
      if (this.unpaid.has(key) && !this.paid.has(key)) this.touched.add('a 0.00 line is no duplicate');
      if (this.paid.has(key) || earlier) {
        this.deny(line, 'DENIED', 'CARC-18');
        priced = this.price(lines, event.member);
      }
    }
    // A code that needs a preauthorization, without one, on a line not denied: the claim is pended.
    if (!event.preauthorization && lines.some((l) => l.status === 'ALLOWED' && this.rateOn(l.contract!, l.code, l.date)?.preauthorization)) {
      this.supersedePended(event.member, event.billing, lines);
      const encounter: Encounter = {
        member: event.member,
        billing: event.billing,
        lines: lines.map((l) => ({ ...l, status: 'PENDED', denial: null })),
        disposition: 'PENDING_REVIEW',
        benefit: 0,
        charges: lines.reduce((s, l) => s + l.chargeCents, 0),
        allowed: 0,
        patient: 0,
        transfers: [],
      };
      this.encounters.push(encounter);
      return this.claimFigures(encounter);
    }

    priced.commitAmounts();

    // The copay once per visit (member, billing provider, date of service), on the visit's first
    // covered lines, whichever claims it came on; then the deductible left in each line's plan year,
    // then coinsurance on the claim's rest (docs/money-rules.md "Adjudication").
    const copayHere = new Map<string, number>();
    const metAdded = new Map<string, number>();
    for (const line of lines) {
      if (line.status !== 'ALLOWED' || line.allowed === 0) continue;
      const visit = `${event.member}|${event.billing}|${line.date}`;
      const taken = (this.copayTaken.get(visit) ?? 0) + (copayHere.get(visit) ?? 0);
      line.copay = Math.min(Math.max(0, member.copayCents - taken), line.allowed);
      copayHere.set(visit, (copayHere.get(visit) ?? 0) + line.copay);
      const year = planYear(line.date);
      const met = member.metCents + (this.deductibleMet.get(`${event.member}|${year}`) ?? 0) + (metAdded.get(year) ?? 0);
      line.deductible = Math.min(line.allowed - line.copay, Math.max(0, member.deductibleCents - met));
      metAdded.set(year, (metAdded.get(year) ?? 0) + line.deductible);
    }
    const rest = lines.map((l) => (l.status === 'ALLOWED' ? l.allowed - l.copay - l.deductible : 0));
    const coinsurance = divRound(rest.reduce((s, x) => s + x, 0) * member.coinsurancePercent, 100);
    allocate(coinsurance, rest).forEach((c, i) => {
      lines[i]!.coinsurance = c;
    });

    // APPROVED when every line is paid, PARTIAL_APPROVAL when some are, DENIED (with the first line's
    // reason) when none is. A bundled line is included in what was paid elsewhere, not paid here.
    const paidLines = lines.filter((l) => l.status === 'ALLOWED');
    const disposition = paidLines.length === lines.length ? 'APPROVED' : paidLines.length > 0 ? 'PARTIAL_APPROVAL' : 'DENIED';
    this.supersedePended(event.member, event.billing, lines);
    const encounter: Encounter = {
      member: event.member,
      billing: event.billing,
      lines,
      disposition,
      charges: lines.reduce((s, l) => s + l.chargeCents, 0),
      allowed: lines.reduce((s, l) => s + l.allowed, 0),
      patient: lines.reduce((s, l) => s + l.copay + l.deductible + l.coinsurance, 0),
      benefit: 0,
      transfers: [],
    };
    encounter.benefit = encounter.allowed - encounter.patient;
    this.encounters.push(encounter);
    if (disposition !== 'DENIED') {
      this.accept(event.member, lines, metAdded, priced);
      for (const [visit, cents] of copayHere) this.copayTaken.set(visit, (this.copayTaken.get(visit) ?? 0) + cents);
    } else this.includeDays(lines, event.member);
    return this.claimFigures(encounter);
  }

  /**
   * A claim accepted for the same services (code and date of each line) of a member and billing
   * provider as a pended claim sends that claim again: the oldest such pended claim not yet sent
   * again is superseded, and the report counts it no more (docs/money-funding.md "The finance desk's report").
   */
  private supersedePended(member: string, billing: string, lines: Line[]): void {
    const services = (ls: Line[]) =>
      ls
        .map((l) => `${l.code}|${l.date}`)
        .sort()
        .join(',');
    for (const e of this.encounters) {
      if (e.disposition !== 'PENDING_REVIEW' || e.superseded || e.member !== member || e.billing !== billing) continue;
      if (services(e.lines) !== services(lines)) continue;
      e.superseded = true;
      return;
    }
  }

  private deny(line: Line, status: Line['status'], code: string): void {
    line.status = status;
    line.denial = code;
  }

  /**
   * One service: member, code, date, fee kind, and the modifiers that say the line is a service of its
   * own (docs/money-rules.md "Duplicates"), as a set; any other modifier is not part of it.
   */
  private paidKey(member: string, line: Line): string {
    const distinct = (line.modifiers ?? []).filter((m) => DISTINCT_SERVICE.includes(m));
    const set = [...new Set(distinct)].sort().join(',');
    return `${member}|${line.code}|${line.date}|${line.feeKind}|${set}`;
  }

  /** What an accepted claim leaves for later claims: paid lines, deductible, episodes, anesthesia. */
  private accept(member: string, lines: Line[], metAdded: Map<string, number>, priced: Priced): void {
    for (const [year, cents] of metAdded) this.deductibleMet.set(`${member}|${year}`, (this.deductibleMet.get(`${member}|${year}`) ?? 0) + cents);
    // An episode opened by this claim holds the days of its lines that were paid, no others.
    for (const line of lines) if (line.episode && !this.episodes.get(line.episode.key)?.includes(line.episode)) line.episode.days.clear();
    for (const line of lines) {
      // Paid: priced above 0.00 before the anesthesia deduction (a price that went to anesthesia
      // paid before was paid), or the line that carried its bundle part, even at a 0.00 share; a
      // line charged nothing never carries one.
      const paidWithEpisode =
        line.status === 'ALLOWED' && ((line.priceBeforeDeduction ?? line.allowed) > 0 || (line.episode !== undefined && line.chargeCents > 0));
      if (!paidWithEpisode && (line.status === 'BUNDLED' || (line.status === 'ALLOWED' && line.allowed === 0))) this.unpaid.add(this.paidKey(member, line));
      if (line.status !== 'ALLOWED' || (line.allowed === 0 && !paidWithEpisode)) continue;
      this.paid.add(this.paidKey(member, line));
      if (line.episode) {
        line.episode.parts.add(line.code);
        line.episode.days.add(line.date);
        const list = this.episodes.get(line.episode.key) ?? [];
        if (!list.includes(line.episode)) list.push(line.episode);
        this.episodes.set(line.episode.key, list);
      }
      // Only a line allowed more than 0.00 includes its day's anesthesia (docs/money-rules.md "Anesthesia included").
      if (this.includes(line)) {
        if ((line.priceBeforeDeduction ?? line.allowed) > 0) this.includesAnesthesia.add(`${member}|${line.date}`);
      } else if (line.isAnesthesia) {
        const a = this.anesthesia.get(`${member}|${line.date}`) ?? { paid: 0, deducted: 0 };
        a.paid += line.allowed;
        this.anesthesia.set(`${member}|${line.date}`, a);
      }
    }
    this.includeDays(lines, member);
    for (const [key, taken] of priced.deducted) {
      const a = this.anesthesia.get(key)!;
      a.deducted += taken;
    }
  }

  /**
   * A part included in an episode paid (on this claim or before) is one of its days, even on a claim
   * denied because all its lines were included: the episode starts on its earliest day, whichever
   * claim brought it.
   */
  private includeDays(lines: Line[], member: string): void {
    for (const line of lines) {
      if (line.status === 'BUNDLED' && line.episode && this.episodes.get(line.episode.key)?.includes(line.episode)) {
        line.episode.days.add(line.date);
        // Its day's anesthesia is included in the package too (docs/money-rules.md "Anesthesia included").
        if (this.includes(line)) this.includesAnesthesia.add(`${member}|${line.date}`);
      }
    }
  }

  /** A line whose contract includes anesthesia and that is no anesthesia itself (neither rendered by nor paid to an anesthesia provider). */
  private includes(line: Line): boolean {
    return !!line.contract?.anesthesiaIncluded && !line.isAnesthesia;
  }

  /**
   * The episode a BUNDLE line's date belongs to, among the member's and those this claim opens
   * (docs/money-rules.md "Bundles"): the one already holding the day (on an earlier claim or
   * earlier on this one); else, of those that with the day would still lie within the span from
   * their earliest day, the one that comes out shortest (then the earlier earliest day); else a new
   * one. `claimDays` are the days this claim adds to episodes already recorded.
   */
  private episodeOf(member: string, contract: Contract, date: string, opened: Episode[], claimDays: Map<Episode, Set<string>>): Episode {
    const key = `${member}|${contract.id}`;
    const all = [...(this.episodes.get(key) ?? []), ...opened.filter((e) => e.key === key)];
    const daysOf = (e: Episode) => [...e.days, ...(claimDays.get(e) ?? [])].sort();
    const holding = all.find((e) => daysOf(e).includes(date));
    if (holding) return holding;
    const span = contract.bundleType === 'PACKAGE' ? 90 : 1;
    const fits = all
      .map((e) => {
        const days = [...daysOf(e), date].sort();
        return { e, first: days[0]!, length: daysBetween(days[0]!, days.at(-1)!) };
      })
      .filter((x) => x.length < span)
      .sort((a, b) => a.length - b.length || (a.first < b.first ? -1 : 1));
    const chosen = fits[0]?.e;
    if (chosen) {
      if (this.episodes.get(key)?.includes(chosen)) claimDays.set(chosen, new Set([...(claimDays.get(chosen) ?? []), date]));
      else chosen.days.add(date);
      return chosen;
    }
    const episode: Episode = { key, days: new Set([date]), parts: new Set() };
    opened.push(episode);
    return episode;
  }

  /**
   * Allowed amounts of the lines still ALLOWED: bundles, anesthesia included,
   * quantity and rate types (docs/money-rules.md "Money rules, line by line"). Statuses of bundled parts and included anesthesia are set on
   * a copy and applied by commitAmounts.
   */
  private price(lines: Line[], member: string): Priced {
    const allowed = new Map<number, number>();
    const status = new Map<number, { status: Line['status']; denial: string | null }>();
    const episodes = new Map<number, Episode>();
    const live = lines.filter((l) => l.status === 'ALLOWED');

    // Bundles: per episode, each part not yet billed is paid once, its own share, by the first of
    // its lines (service date, then line) charged anything, at most that line's charge; the part's
    // other lines are included in it.
    const carriers = new Set<number>();
    const opened: Episode[] = [];
    const claimDays = new Map<Episode, Set<string>>();
    const byEpisode = new Map<Episode, Line[]>();
    // A claim's bundle lines join their episodes in order of service date, then line.
    const bundleLines = live.filter((l) => l.contract!.rateType === 'BUNDLE').sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index));
    for (const line of bundleLines) {
      const episode = this.episodeOf(member, line.contract!, line.date, opened, claimDays);
      episodes.set(line.index, episode);
      byEpisode.set(episode, [...(byEpisode.get(episode) ?? []), line]);
    }
    for (const [episode, members] of byEpisode) {
      const contract = members[0]!.contract!;
      const codes = contract.rates.map((r) => r.code).filter((c, i, all) => all.indexOf(c) === i);
      const shares = allocate(
        contract.bundleCents!,
        codes.map(() => 1),
      );
      const carrierOf = new Map<string, Line>();
      // members are in order of service date, then line.
      for (const l of members) {
        if (episode.parts.has(l.code) || carrierOf.has(l.code)) {
          allowed.set(l.index, 0);
          status.set(l.index, { status: 'BUNDLED', denial: 'CARC-97' });
        } else if (l.chargeCents > 0) {
          carrierOf.set(l.code, l);
          carriers.add(l.index);
          allowed.set(l.index, Math.min(shares[codes.indexOf(l.code)]!, l.chargeCents));
        } else {
          // Charged nothing, before any line of its part that is: allowed 0.00, and no part paid.
          allowed.set(l.index, 0);
        }
      }
    }
    for (const line of live) {
      const c = line.contract!;
      const rate = this.rateOn(c, line.code, line.date);
      // The rate times the units (to the thousandth), rounded half away from zero to the cent once.
      if (c.rateType === 'FLAT_RATE') allowed.set(line.index, Math.min(divRound(rate!.cents! * thousandths(line.quantity), 1000), line.chargeCents));
      if (c.rateType === 'CASE_RATE') allowed.set(line.index, Math.min(rate!.cents!, line.chargeCents));
    }

    // Anesthesia included: the including lines first give up the anesthesia already paid that
    // day on earlier claims; then anesthesia lines of a day included are bundled.
    const deducted = new Map<string, number>();
    const before = new Map<number, number>();
    // A line's price before the deduction: it decides whether the line includes its day's
    // anesthesia and whether it was paid (its price was paid, partly by the anesthesia paid before).
    const priceOf = (l: Line) => before.get(l.index) ?? allowed.get(l.index) ?? 0;
    for (const line of live) {
      if (!this.includes(line) || status.has(line.index)) continue;
      const key = `${member}|${line.date}`;
      const a = this.anesthesia.get(key);
      // What is left of the anesthesia paid before, after earlier including lines took theirs
      // (docs/money-rules.md "Anesthesia included": a second including line that day deducts only what is left).
      if (!a) continue;
      const available = a.paid - a.deducted - (deducted.get(key) ?? 0);
      const price = allowed.get(line.index)!;
      before.set(line.index, price);
      const take = Math.min(price, Math.max(0, available));
      allowed.set(line.index, price - take);
      deducted.set(key, (deducted.get(key) ?? 0) + take);
    }
    const included = new Set(this.includesAnesthesia);
    for (const line of live) if (this.includes(line) && !status.has(line.index) && priceOf(line) > 0) included.add(`${member}|${line.date}`);
    // A bundle part included (BUNDLED) in its episode: the package paid for that day, anesthesia and all.
    for (const line of live)
      if (this.includes(line) && episodes.has(line.index) && status.get(line.index)?.status === 'BUNDLED') included.add(`${member}|${line.date}`);
    for (const line of live) {
      if (line.isAnesthesia && included.has(`${member}|${line.date}`)) {
        allowed.set(line.index, 0);
        status.set(line.index, { status: 'BUNDLED', denial: 'CARC-97' });
      }
    }

    // Percentages on the contract's charges on the claim, allocated by largest remainder.
    const pools = new Map<Contract, Line[]>();
    for (const line of live) {
      if (line.contract!.rateType !== 'PERCENT_OF_CHARGES' || status.has(line.index)) continue;
      pools.set(line.contract!, [...(pools.get(line.contract!) ?? []), line]);
    }
    for (const [contract, pool] of pools) {
      const total = divRound(pool.reduce((s, l) => s + l.chargeCents, 0) * contract.percent!, 100);
      allocate(
        total,
        pool.map((l) => l.chargeCents),
      ).forEach((a, i) => allowed.set(pool[i]!.index, a));
    }

    return {
      deducted,
      carriers,
      allowedOf: (l: Line) => (l.status === 'ALLOWED' && !status.has(l.index) ? priceOf(l) : 0),
      commitAmounts: () => {
        for (const line of live) {
          line.allowed = allowed.get(line.index) ?? 0;
          line.priceBeforeDeduction = priceOf(line);
          const s = status.get(line.index);
          if (s) this.deny(line, s.status, s.denial!);
          line.episode = episodes.get(line.index);
        }
      },
    };
  }

  private claimFigures(e: Encounter): ClaimFigures {
    const pended = e.disposition === 'PENDING_REVIEW';
    const denied = e.disposition === 'DENIED';
    const none = pended || denied;
    const lines: LineFigures[] = e.lines.map((l) => ({
      status: l.status,
      denial_code: l.denial,
      allowed: none ? null : l.allowed,
      copay: none ? null : l.copay,
      deductible: none ? null : l.deductible,
      coinsurance: none ? null : l.coinsurance,
      patient: none ? null : l.copay + l.deductible + l.coinsurance,
      benefit: none ? null : l.allowed - l.copay - l.deductible - l.coinsurance,
      payee: l.payee,
    }));
    const sum = (f: (l: Line) => number) => (none ? null : e.lines.reduce((s, l) => s + f(l), 0));
    return {
      http: 201,
      disposition: e.disposition,
      denial_code: denied ? e.lines[0]!.denial : null,
      allowed: sum((l) => l.allowed),
      copay: sum((l) => l.copay),
      deductible: sum((l) => l.deductible),
      coinsurance: sum((l) => l.coinsurance),
      patient: none ? null : e.patient,
      benefit: none ? null : e.benefit,
      lines,
    };
  }

  // ---- funding and settlement -----------------------------------------------------------------

  /** The fee on one payout: 2.2% rounded half away from zero, + 0.30, never above the payout. */
  static fee(amount: number): number {
    return Math.min(amount, divRound(amount * FEE_PER_MILLE, 1000) + FEE_FLAT_CENTS);
  }

  private encounter(n: number): Encounter | undefined {
    if (this.encounters.length === 0) return undefined;
    return this.encounters[n % this.encounters.length];
  }

  private fund(n: number): Answer {
    const e = this.encounter(n);
    if (!e) return { http: 0 };
    if (e.disposition === 'DENIED') return { http: 400, reason: 'CLAIM_DENIED' };
    if (e.disposition === 'PENDING_REVIEW') return { http: 400, reason: 'CLAIM_NOT_ADJUDICATED' };
    if (e.benefit === 0) return { http: 400, reason: 'NOTHING_TO_FUND' };
    const last = e.transfers.at(-1);
    if (last && (last.status === 'INITIATED' || last.status === 'COMPLETED')) return { http: 400, reason: 'DUPLICATE' };
    // Each line's benefit goes to its payee; payees in the order of their first line; none for 0.00.
    const payouts: Transfer['payouts'] = [];
    for (const line of e.lines) {
      if (line.status !== 'ALLOWED') continue;
      const benefit = line.allowed - line.copay - line.deductible - line.coinsurance;
      let p = payouts.find((x) => x.npi === line.payee);
      if (!p) {
        p = { npi: line.payee, role: providerOf(line.payee).role, amount: 0, fee: 0 };
        payouts.push(p);
      }
      p.amount += benefit;
    }
    const moving = payouts.filter((p) => p.amount > 0);
    for (const p of moving) p.fee = Model.fee(p.amount);
    e.transfers.push({ status: 'INITIATED', total: e.benefit, payouts: moving, arrivesAt: arrival(this.now), aeob: null });
    return { http: 200 };
  }

  /** Transfers whose arrival has come are completed and reconciled (EXACT). */
  private settleDue(): void {
    for (const e of this.encounters) {
      const t = e.transfers.at(-1);
      if (t && t.status === 'INITIATED' && t.arrivesAt <= this.now) {
        t.status = 'COMPLETED';
        t.aeob = e.aeob ?? { amount: t.total, match: 'EXACT' };
        this.recordedUntil = Math.max(this.recordedUntil, t.arrivesAt);
      }
    }
  }

  private simulate(scenario: Scenario, n: number): Answer {
    const e = this.encounter(n);
    if (!e) return { http: 0 };
    const t = e.transfers.at(-1);
    const refused: Answer = { http: 409 };
    switch (scenario) {
      case 'settlement-failure':
        if (t?.status !== 'INITIATED') return refused;
        t.status = 'FAILED';
        return { http: 200 };
      case 'refund':
        if (t?.status !== 'COMPLETED') return refused;
        t.status = 'REFUNDED';
        return { http: 200 };
      // Stated while a transfer is in transit, the AEOB waits for it to complete. A trigger that
      // would state what already holds is refused; a variance after a missing AEOB is the payer's
      // AEOB arriving late (no longer missing), a missing AEOB after a variance withdraws it.
      case 'aeob-variance':
      case 'missing-aeob': {
        if (t?.status !== 'COMPLETED' && t?.status !== 'INITIATED') return refused;
        const missing = scenario === 'missing-aeob';
        if (missing ? e.aeobMissing : e.aeobVariance && !e.aeobMissing) return refused;
        if (missing) e.aeobMissing = true;
        else {
          e.aeobVariance = true;
          e.aeobMissing = false;
        }
        e.aeob = e.aeobMissing ? { amount: null, match: 'MISSING_AEOB' } : { amount: Math.max(0, e.benefit - AEOB_SHORT_CENTS), match: 'VARIANCE' };
        if (t.status === 'COMPLETED') t.aeob = e.aeob;
        return { http: 200 };
      }
    }
  }

  // ---- rate schedules ---------------------------------------------------------------------------

  private finalize(rates: { code: string; cents: number }[], effective: string): Answer {
    const contract = this.contracts.find((c) => c.id === 'ctr_8d21b5e09f4c7a13')!;
    const from = effective;
    for (const r of contract.rates) if (inForce(r.from, r.to, addDays(from, -1)) && (r.to === null || r.to >= from)) r.to = addDays(from, -1);
    // A code keeps the contract's own preauthorization; a code newly rated needs one when the plan
    // requires it for that code under any contract.
    const own = new Map(contract.rates.map((r) => [r.code, r.preauthorization]));
    const plan = new Set(this.contracts.flatMap((c) => c.rates.filter((r) => r.preauthorization).map((r) => r.code)));
    for (const r of rates) contract.rates.push({ code: r.code, cents: r.cents, from, to: null, preauthorization: own.get(r.code) ?? plan.has(r.code) });
    return { http: 200 };
  }

  // ---- what is observed ---------------------------------------------------------------------------

  private transferFigures(t: Transfer): TransferFigures {
    const payouts: PayoutFigures[] = t.payouts.map((p) => {
      const status = { INITIATED: 'PENDING', COMPLETED: 'COMPLETED', FAILED: 'FAILED', REFUNDED: 'RETURNED' }[t.status];
      return t.status === 'FAILED'
        ? { npi: p.npi, role: p.role, amount: p.amount, status }
        : { npi: p.npi, role: p.role, amount: p.amount, fee: p.fee, net: p.amount - p.fee, status };
    });
    const fees = t.payouts.reduce((s, p) => s + p.fee, 0);
    let aeob: TransferFigures['aeob'] = null;
    let reconciliation = t.status === 'FAILED' ? 'PENDING' : 'PENDING';
    if (t.aeob) {
      const settled = t.status === 'REFUNDED' ? 0 : t.total;
      // A refund leaves nothing settled: it no longer matches an AEOB (one never sent stays missing).
      const match = t.status === 'REFUNDED' && t.aeob.match !== 'MISSING_AEOB' ? 'VARIANCE' : t.aeob.match;
      const variance = t.aeob.amount === null ? settled : settled - t.aeob.amount;
      aeob = { aeob_amount: t.aeob.amount, settlement_amount: settled, variance, match_status: match };
      reconciliation = match === 'EXACT' ? 'MATCHED' : 'UNMATCHED';
    }
    // The order of payouts is not a money rule: compared by payee.
    payouts.sort((a, b) => (a.npi < b.npi ? -1 : 1));
    return {
      status: t.status,
      total: t.total,
      payouts,
      reconciliation_status: reconciliation,
      aeob,
      refund: t.status === 'REFUNDED' ? { amount: t.total - fees, gross: t.total, fees_not_returned: fees } : null,
    };
  }

  private ledgerStatus(e: Encounter): { ledger: string; balance: string } {
    if (e.disposition === 'DENIED') return { ledger: 'DENIED', balance: 'DENIED' };
    if (e.disposition === 'PENDING_REVIEW') return { ledger: 'PENDED', balance: 'PENDED' };
    const t = e.transfers.at(-1);
    if (!t) return { ledger: 'ADJUDICATED', balance: e.benefit === 0 ? 'SETTLED' : 'OPEN' };
    if (t.status === 'INITIATED') return { ledger: 'FUNDED', balance: 'IN_TRANSIT' };
    // Arrived: reconciled only when the AEOB matched; otherwise the money is there but the ledger stays FUNDED.
    if (t.status === 'COMPLETED') return { ledger: t.aeob?.match === 'EXACT' ? 'RECONCILED' : 'FUNDED', balance: 'SETTLED' };
    return { ledger: 'ADJUDICATED', balance: t.status };
  }

  encounterFigures(): EncounterFigures[] {
    this.settleDue();
    return this.encounters.map((e) => {
      const s = this.ledgerStatus(e);
      return {
        ledger_status: s.ledger,
        balance_status: s.balance,
        transfers: e.transfers.map((t) => this.transferFigures(t)),
        superseded: e.superseded === true,
      };
    });
  }

  /** The finance desk's report over every service date of the sequence (docs/money-funding.md "The finance desk's report"). */
  report(): ReportFigures {
    this.settleDue();
    const { report: r, add } = emptyReport();
    for (const e of this.encounters) {
      if (e.superseded) continue;
      const status = this.ledgerStatus(e).ledger;
      const none = e.disposition === 'DENIED' || e.disposition === 'PENDING_REVIEW';
      const s = (r.by_status[status] ??= { count: 0, charges: 0, allowed: 0, patient: 0, benefit: 0 });
      s.count++;
      s.charges += e.charges;
      if (!none) {
        s.allowed += e.allowed;
        s.patient += e.patient;
        s.benefit += e.benefit;
      }
      for (const t of e.transfers) {
        const fees = t.payouts.reduce((sum, p) => sum + p.fee, 0);
        add(t.status === 'INITIATED' ? 'in_transit' : t.status === 'COMPLETED' ? 'settled' : t.status === 'FAILED' ? 'failed' : 'refunded', t.total);
        if (t.status !== 'FAILED') {
          add('funded', t.total);
          add('fees_charged', fees);
        }
        if (t.status === 'REFUNDED') {
          add('came_back', t.total - fees);
          add('fees_kept', fees);
        }
        if (t.status === 'INITIATED' || t.status === 'COMPLETED') {
          for (const p of t.payouts) {
            add('processor_fees', p.fee);
            add('net_to_providers', p.amount - p.fee);
          }
        }
        // A provider's row: every payout that left the plan, a refunded one too (under refunded, no net).
        if (t.status !== 'FAILED') {
          for (const p of t.payouts) {
            const q = (r.providers[p.npi] ??= { payouts: 0, amount: 0, refunded: 0, fees: 0, net: 0 });
            q.payouts++;
            q.amount += p.amount;
            q.fees += p.fee;
            if (t.status === 'REFUNDED') q.refunded += p.amount;
            else q.net += p.amount - p.fee;
          }
        }
      }
      const t = e.transfers.at(-1);
      if (t?.status === 'INITIATED') r.reconciliation.not_reconciled++;
      if (t?.status === 'COMPLETED' && t.aeob) {
        if (t.aeob.match === 'EXACT') r.reconciliation.matched = [r.reconciliation.matched[0] + 1, r.reconciliation.matched[1] + t.total];
        if (t.aeob.match === 'VARIANCE') r.reconciliation.variance.push(t.total - t.aeob.amount!);
        if (t.aeob.match === 'MISSING_AEOB') r.reconciliation.missing_aeob = [r.reconciliation.missing_aeob[0] + 1, r.reconciliation.missing_aeob[1] + t.total];
      }
    }
    r.reconciliation.variance.sort((a, b) => a - b);
    add('spent', (r.money.funded ?? 0) - (r.money.came_back ?? 0));
    return r;
  }
}

interface Priced {
  deducted: Map<string, number>;
  /** The lines carrying a bundle part on this claim (by index): a line of the same service after one is a duplicate. */
  carriers: Set<number>;
  allowedOf: (line: Line) => number;
  commitAmounts: () => void;
}
