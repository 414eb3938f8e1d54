// A Claim inside a FHIR Bundle made self-contained before it is checked and sent (docs/claim-batches.md
// "Claims inside a Bundle"). The service takes one Claim (docs/api-routes.md "POST /v1/claims/submit/"), so
// the references a Claim makes to other entries of its Bundle (its patient, its billing provider,
// its care team) would mean nothing once the Claim is sent alone: each one that resolves to an entry
// is replaced by a copy of that entry in the Claim's `contained`, pointed at as `#id`. References are
// resolved as FHIR R4 resolves them in a Bundle (http://hl7.org/fhir/R4/bundle.html#references):
// by `fullUrl` (`urn:uuid:…`, an absolute URL), by `Type/id` relative to the Claim's base, by the
// resource's type and id, and, for a conditional reference (`Practitioner?identifier=system|value`),
// by the entry of that type holding the identifier.
import { BUNDLE_REFERENCE_URL, conditionalIdentifier, conditionalProviderNpi, isNpiSystem, literalProviderNpi, patientMemberId } from './fhir-claim.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The base of an absolute `…/Type/id` URL (`https://ehr.example/fhir`), or undefined. */
function baseOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const m = /^(https?:\/\/.+)\/[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/.exec(url);
  return m?.[1];
}

/**
 * A Bundle's entries indexed once (by fullUrl, by type and id, by type and identifier), so that
 * making each of its many Claims self-contained costs the few references each one makes, not a
 * walk over every entry.
 */
export class BundleIndex {
  private readonly byUrl = new Map<string, Json>();
  private readonly byTypeId = new Map<string, { fullUrl?: string; resource: Json }[]>();
  private readonly byIdentifier = new Map<string, Json[]>();
  /** Each entry's resource → its index in `entry`. */
  private readonly positions = new Map<Json, number>();

  constructor(bundle: Json) {
    for (const [i, e] of (Array.isArray(bundle.entry) ? bundle.entry : []).entries()) {
      if (!isObject(e) || !isObject(e.resource)) continue;
      const resource = e.resource;
      if (!this.positions.has(resource)) this.positions.set(resource, i);
      const fullUrl = typeof e.fullUrl === 'string' ? e.fullUrl : undefined;
      if (fullUrl !== undefined && !this.byUrl.has(fullUrl)) this.byUrl.set(fullUrl, resource);
      if (typeof resource.resourceType !== 'string') continue;
      if (typeof resource.id === 'string') push(this.byTypeId, `${resource.resourceType}/${resource.id}`, { fullUrl, resource });
      for (const id of Array.isArray(resource.identifier) ? resource.identifier : []) {
        if (!isObject(id) || typeof id.value !== 'string') continue;
        push(this.byIdentifier, `${resource.resourceType}|${id.value}`, resource);
        if (typeof id.system === 'string') push(this.byIdentifier, `${resource.resourceType}|${id.system}|${id.value}`, resource);
      }
    }
  }

  /** The index in the Bundle's `entry` of the entry holding this resource, or undefined. */
  entryIndex(resource: Json): number | undefined {
    return this.positions.get(resource);
  }

  /** The entry a reference names, other than `self`, or undefined (none, or more than one: not for tpa to guess). */
  resolve(reference: string, base: string | undefined, self: Json): Json | undefined {
    const one = (found: readonly Json[] | undefined) => {
      const others = [...new Set(found ?? [])].filter((r) => r !== self);
      return others.length === 1 ? others[0] : undefined;
    };
    const exact = this.byUrl.get(reference);
    if (exact) return exact === self ? undefined : exact;
    const conditional = conditionalIdentifier(reference);
    if (conditional) {
      const key =
        conditional.system === undefined ? `${conditional.type}|${conditional.value}` : `${conditional.type}|${conditional.system}|${conditional.value}`;
      return one(this.byIdentifier.get(key));
    }
    const m = /^(?:(https?:\/\/.+)\/)?([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/.exec(reference);
    if (!m) return undefined;
    const [, absoluteBase, type, id] = m;
    // Relative: against the Claim's own base first (its fullUrl's), as FHIR says.
    if (!absoluteBase && base) {
      const byUrl = this.byUrl.get(`${base}/${type}/${id}`);
      if (byUrl && byUrl !== self) return byUrl;
    }
    const candidates = (this.byTypeId.get(`${type}/${id}`) ?? []).filter((e) => !absoluteBase || e.fullUrl === undefined || baseOf(e.fullUrl) === absoluteBase);
    return one(candidates.map((e) => e.resource));
  }
}

/**
 * Why a Bundle's Claims cannot be read: entries that share a fullUrl (and version), which FHIR R4
 * forbids (bdl-7), as a reference to that fullUrl could mean either; or undefined.
 */
export function duplicateFullUrlProblem(bundle: Json): string | undefined {
  const seen = new Map<string, number[]>();
  for (const [i, e] of (Array.isArray(bundle.entry) ? bundle.entry : []).entries()) {
    if (!isObject(e) || typeof e.fullUrl !== 'string') continue;
    const version = isObject(e.resource) && isObject(e.resource.meta) ? e.resource.meta.versionId : undefined;
    // A urn:uuid or urn:oid is one name in any case (RFC 4122, RFC 8141): `AAAA…` and `aaaa…` are one entry's.
    const url = /^urn:(uuid|oid):/i.test(e.fullUrl) ? e.fullUrl.toLowerCase() : e.fullUrl;
    push(seen, `${url}\u0000${typeof version === 'string' ? version : ''}`, i);
  }
  for (const [key, at] of seen) {
    if (at.length < 2) continue;
    const url = key.slice(0, key.indexOf('\u0000'));
    return `${at.length} entries have the fullUrl ${JSON.stringify(url.length > 80 ? `${url.slice(0, 79)}…` : url)} (${at.map((i) => `entry[${i}]`).join(', ')}): a fullUrl names one entry of a Bundle (FHIR bdl-7), and a reference to it could mean either; no Claim of the Bundle is read`;
  }
  return undefined;
}

/** Whether a value holds, at any depth, an object whose `url` is tpa's own mark (BUNDLE_REFERENCE_URL). */
function carriesOwnMark(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(carriesOwnMark);
  if (!isObject(value)) return false;
  return value.url === BUNDLE_REFERENCE_URL || Object.values(value).some(carriesOwnMark);
}

/**
 * Why the Claim of entry `index` cannot be read: it, or an entry copied into it (`origins`, filled by
 * selfContainedClaim), already carries the extension `urn:tpa:fhir:bundle-reference`. That extension is tpa's
 * own mark, set by the Bundle reader on a reference that named another party than its entry, for the
 * parser to refuse; a sender's would be read beside tpa's, so a Claim that carries one is refused
 * before it is read, never trusted. Undefined when it carries none.
 */
export function ownMarkProblem(bundle: Json, index: number, origins: ReadonlyMap<number, number> = new Map()): string | undefined {
  const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
  for (const at of [index, ...origins.values()]) {
    const entry = entries[at];
    if (isObject(entry) && carriesOwnMark(entry.resource))
      return `entry[${at}] carries an extension ${BUNDLE_REFERENCE_URL}: that is tpa's own mark (the reference as a Bundle wrote it, set when tpa reads the Bundle), never a sender's, so the Claim is not read`;
  }
  return undefined;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * The Claim of entry `index` of a Bundle, with the references of its patient, provider and care
 * team that name other entries of the Bundle replaced by contained copies of them. A reference that
 * names nothing in the Bundle is left as it is (the parser reads it as a lone Claim's: Patient/<member
 * id>, a conditional reference by identifier, Organization/<NPI>). So is a literal `Type/id`
 * reference to an entry without identifiers, read by its id as before. The Bundle itself is not
 * changed.
 */
export function selfContainedClaim(
  bundle: Json,
  index: number,
  entries: BundleIndex = new BundleIndex(bundle),
  /** Filled with where each contained copy came from: its index in `contained` → its entry's index in the Bundle. */
  origins?: Map<number, number>,
): Json {
  const rawEntries = Array.isArray(bundle.entry) ? bundle.entry : [];
  const own = rawEntries[index];
  if (!isObject(own) || !isObject(own.resource)) throw new Error(`entry ${index} of the Bundle has no resource`);
  const original = own.resource;
  const claim = structuredClone(original);
  const base = baseOf(own.fullUrl);
  const contained: unknown[] = Array.isArray(claim.contained) ? claim.contained : [];
  const taken = new Set(contained.filter(isObject).map((r) => r.id));
  const placed = new Map<Json, string>();

  const containedId = (resource: Json): string => {
    const known = placed.get(resource);
    if (known) return known;
    let id = typeof resource.id === 'string' && /^[A-Za-z0-9\-.]{1,64}$/.test(resource.id) ? resource.id : undefined;
    for (let n = 1; id === undefined || taken.has(id); n++) id = `ref${n}`;
    taken.add(id);
    placed.set(resource, id);
    // A contained resource holds no contained resources of its own (FHIR R4 dom-2); its narrative is not needed.
    const { contained: _c, text: _t, ...copy } = structuredClone(resource);
    contained.push({ ...copy, id });
    if (origins) {
      const from = entries.entryIndex(resource);
      if (from !== undefined) origins.set(contained.length - 1, from);
    }
    return id;
  };

  const rewrite = (ref: unknown, kind: 'patient' | 'provider' | 'insurer' | 'coverage') => {
    if (!isObject(ref) || typeof ref.reference !== 'string' || ref.reference.startsWith('#')) return;
    const sent = ref.reference;
    const target = entries.resolve(sent, base, original);
    if (!target) return;
    const literal = !/^urn:/.test(sent) && conditionalIdentifier(sent) === undefined;
    // A Coverage says whom it covers by its beneficiary, not by identifiers: it is always brought in,
    // so that its beneficiary is read as a contained Coverage's is. A literal insurer reference
    // (Organization/PAYER-ACME) is the payer's id, given back in the claim's answer: read as it is.
    if (kind === 'insurer' && literal) return;
    // A literal reference (Patient/MBR-1001, Organization/1234567893) to an entry without identifiers
    // is read by its id, as it always was; an entry with identifiers says who it is (its member id, its NPI).
    if (kind !== 'coverage' && literal && !(Array.isArray(target.identifier) && target.identifier.length > 0)) return;
    ref.reference = `#${containedId(target)}`;
    if (kind === 'coverage' || kind === 'insurer') return;
    const provider = kind === 'provider';
    // A provider's literal id that is itself an NPI (in any form: relative, absolute, with a version)
    // or a conditional reference by NPI names the provider too, and a conditional patient reference
    // names the member by its value: when the entry found is another, the reference as sent goes
    // with the claim, so that the parser refuses it naming both (never the entry's party chosen).
    const keep = () => (ref.extension = [...(Array.isArray(ref.extension) ? ref.extension : []), { url: BUNDLE_REFERENCE_URL, valueString: sent }]);
    if (!provider) {
      const named = conditionalIdentifier(sent);
      const member = patientMemberId(target);
      // Found by its medical record number (v2-0203 MR, a hospital's chart number), the entry's member
      // id is the member: the search named the patient, not a member id. Found by any other identifier,
      // the value is read as the member id, as it is alone, and must be the entry's.
      const byRecord = (Array.isArray(target.identifier) ? target.identifier : []).some(
        (id) => isObject(id) && id.value === named?.value && id.system === named?.system && isMedicalRecord(id),
      );
      if (named !== undefined && typeof member === 'string' && member.trim() !== named.value.trim() && !byRecord) keep();
      return;
    }
    const npi = literal ? literalProviderNpi(sent) : conditionalProviderNpi(sent);
    // The entry's NPIs as the parser reads them: of the NPI system, else those without a system.
    const ids = (Array.isArray(target.identifier) ? target.identifier : []).filter(isObject);
    const typed = ids.filter((id) => isNpiSystem(id.system));
    const held = (typed.length > 0 ? typed : ids.filter((id) => id.system === undefined)).map((id) => id.value);
    if (npi !== undefined && held.length > 0 && !held.includes(npi)) keep();
  };

  rewrite(claim.patient, 'patient');
  rewrite(claim.provider, 'provider');
  if (Array.isArray(claim.careTeam)) for (const member of claim.careTeam) if (isObject(member)) rewrite(member.provider, 'provider');
  rewrite(claim.insurer, 'insurer');
  if (Array.isArray(claim.insurance)) for (const insurance of claim.insurance) if (isObject(insurance)) rewrite(insurance.coverage, 'coverage');
  // Each Coverage the claim holds (its own, or one brought in from the Bundle) names its member as
  // the claim's patient does: its beneficiary's entry is brought in the same way, and compared.
  for (const resource of [...contained]) if (isObject(resource) && resource.resourceType === 'Coverage') rewrite(resource.beneficiary, 'patient');
  if (contained.length > 0) claim.contained = contained;
  return claim;
}

/** Whether an identifier is typed a medical record number (v2-0203 MR). */
function isMedicalRecord(id: Record<string, unknown>): boolean {
  const type = id.type;
  if (!isObject(type) || !Array.isArray(type.coding)) return false;
  return type.coding.some((c) => isObject(c) && c.code === 'MR');
}
