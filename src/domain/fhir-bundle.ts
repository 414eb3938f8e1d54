// A Claim inside a FHIR Bundle made self-contained before it is checked and sent (docs/design.md
// "Claims inside a Bundle"). The service takes one Claim (docs/api.md "POST /v1/claims/submit/"), so
// the references a Claim makes to other entries of its Bundle (its patient, its billing provider,
// its care team) would mean nothing once the Claim is sent alone: each one that resolves to an entry
// is replaced by a copy of that entry in the Claim's `contained`, pointed at as `#id`. References are
// resolved as FHIR R4 resolves them in a Bundle (http://hl7.org/fhir/R4/bundle.html#references):
// by `fullUrl` (`urn:uuid:…`, an absolute URL), by `Type/id` relative to the Claim's base, by the
// resource's type and id, and, for a conditional reference (`Practitioner?identifier=system|value`),
// by the entry of that type holding the identifier.
import { conditionalIdentifier } from './fhir-claim.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The base of an absolute `…/Type/id` URL (`https://ehr.example/fhir`), or undefined. */
function baseOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  const m = /^(https?:\/\/.+)\/[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/.exec(url);
  return m?.[1];
}

function hasIdentifier(resource: Json, system: string | undefined, value: string): boolean {
  const ids = Array.isArray(resource.identifier) ? resource.identifier : [];
  return ids.some((id) => isObject(id) && id.value === value && (system === undefined || id.system === system));
}

/** The entry a reference names in its Bundle, or undefined. */
function resolve(reference: string, entries: readonly { fullUrl?: string; resource: Json }[], base: string | undefined): Json | undefined {
  const exact = entries.find((e) => e.fullUrl === reference);
  if (exact) return exact.resource;
  const conditional = conditionalIdentifier(reference);
  if (conditional) {
    const found = entries.filter((e) => e.resource.resourceType === conditional.type && hasIdentifier(e.resource, conditional.system, conditional.value));
    // Two entries holding the identifier: which one is meant is not for tpa to guess.
    return found.length === 1 ? found[0]!.resource : undefined;
  }
  const m = /^(?:(https?:\/\/.+)\/)?([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/.exec(reference);
  if (!m) return undefined;
  const [, absoluteBase, type, id] = m;
  // Relative: against the Claim's own base first (its fullUrl's), as FHIR says.
  if (!absoluteBase && base) {
    const byUrl = entries.find((e) => e.fullUrl === `${base}/${type}/${id}`);
    if (byUrl) return byUrl.resource;
  }
  const byId = entries.filter(
    (e) => e.resource.resourceType === type && e.resource.id === id && (!absoluteBase || baseOf(e.fullUrl) === absoluteBase || e.fullUrl === undefined),
  );
  return byId.length === 1 ? byId[0]!.resource : undefined;
}

/**
 * The Claim of entry `index` of a Bundle, with the references of its patient, provider and care
 * team that name other entries of the Bundle replaced by contained copies of them. A reference that
 * names nothing in the Bundle is left as it is (the parser reads it as a lone Claim's: Patient/<member
 * id>, a conditional reference by identifier, Organization/<NPI>). So is a literal `Patient/<id>`,
 * whose id is the member id, and a literal provider reference to an entry without identifiers,
 * read by its id as before. The Bundle itself is not changed.
 */
export function selfContainedClaim(bundle: Json, index: number): Json {
  const rawEntries = Array.isArray(bundle.entry) ? bundle.entry : [];
  const entries = rawEntries
    .filter((e): e is Json => isObject(e) && isObject(e.resource))
    .map((e) => ({ fullUrl: typeof e.fullUrl === 'string' ? e.fullUrl : undefined, resource: e.resource as Json }));
  const own = rawEntries[index];
  if (!isObject(own) || !isObject(own.resource)) throw new Error(`entry ${index} of the Bundle has no resource`);
  const original = own.resource;
  const claim = structuredClone(original);
  const base = baseOf(own.fullUrl);
  const contained: unknown[] = Array.isArray(claim.contained) ? claim.contained : [];
  const taken = new Set(contained.filter(isObject).map((r) => r.id));
  const placed = new Map<Json, string>();
  const others = entries.filter((e) => e.resource !== original);

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
    return id;
  };

  const rewrite = (ref: unknown) => {
    if (!isObject(ref) || typeof ref.reference !== 'string' || ref.reference.startsWith('#')) return;
    const target = resolve(ref.reference, others, base);
    if (!target) return;
    const literal = !/^urn:/.test(ref.reference) && conditionalIdentifier(ref.reference) === undefined;
    // Patient/MBR-1001: the member id is its id, as it always was, whatever the entry holds. A literal
    // provider reference is resolved only to an entry with identifiers (Organization/1234567893 is read by its id).
    if (literal && (target.resourceType === 'Patient' || !(Array.isArray(target.identifier) && target.identifier.length > 0))) return;
    ref.reference = `#${containedId(target)}`;
  };

  rewrite(claim.patient);
  rewrite(claim.provider);
  if (Array.isArray(claim.careTeam)) for (const member of claim.careTeam) if (isObject(member)) rewrite(member.provider);
  if (contained.length > 0) claim.contained = contained;
  return claim;
}
