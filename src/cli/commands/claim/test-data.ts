// Test data where real money could move (docs/x12.md "Test data"): an 837 of ISA15 T, or a
// FHIR Claim tagged HTEST, is adjudicated by tpa's embedded engine (the local profile in-process, or
// `tpa local serve`, which names its database in GET /v1/health) and sent to no other service: there
// each such claim is INVALID, naming the mark and the host, and nothing of it is sent.
import type { TpaClient } from '../../../client/client.js';
import { isTestData } from '../../../domain/fhir-claim.js';
import { TpaError } from '../../../errors.js';
import type { Context } from '../../context.js';
import type { ClaimText } from './submit-sources.js';

/** Whether the service of the active profile is tpa's embedded engine, asked once (lazily: only when a test claim is met). */
export function testDataGate(ctx: Context, client: () => Promise<TpaClient>): (item: ClaimText) => Promise<string | undefined> {
  let embedded: Promise<boolean> | undefined;
  const isEmbedded = async (): Promise<boolean> => {
    if (ctx.profile().env === 'local') return true;
    try {
      const body = (await (await client()).health()).body as { database?: { id?: unknown } };
      return typeof body.database?.id === 'string';
    } catch (err) {
      if (err instanceof TpaError) return false;
      throw err;
    }
  };
  return async (item) => {
    if (!isTestData(item.value)) return undefined;
    embedded ??= isEmbedded();
    if (await embedded) return undefined;
    const profile = ctx.profile();
    let host = profile.base_url ?? profile.name;
    try {
      host = new URL(host).host;
    } catch {
      // the profile's own words
    }
    const mark = item.x12 ? 'ISA15 is "T" (test data)' : 'meta.tag HTEST (test data)';
    return `${mark}: test data is adjudicated only by tpa's embedded engine (the local profile, or tpa local serve); ${host} (profile ${profile.name}) is a service where real money moves: not sent`;
  };
}

/** The items, each test claim the gate refuses made INVALID (its refusal among its errors, at ISA15 for an 837's). */
export async function* gated(items: AsyncIterable<ClaimText>, refusal: (item: ClaimText) => Promise<string | undefined>): AsyncGenerator<ClaimText> {
  for await (const item of items) {
    const why = await refusal(item);
    if (why === undefined) yield item;
    else yield { ...item, errors: [...(item.errors ?? []), { field: item.x12 ? '' : 'meta.tag', message: why, ...(item.x12 ? { segment: 'ISA15' } : {}) }] };
  }
}
