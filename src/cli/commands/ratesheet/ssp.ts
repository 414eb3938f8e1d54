// How `add` and `remove` find the SSP that --ssp names: by id, or by code in the schedule, then in the catalog.
import type { TpaClient } from '../../../client/client.js';
import type { RateSchedule } from '../../../client/types.js';
import { NotFoundError, TpaError } from '../../../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function scheduleOrNull(client: TpaClient, instanceId: string): Promise<RateSchedule | null> {
  try {
    return (await client.schedule(instanceId)).body.rate_schedule;
  } catch (err) {
    if (err instanceof TpaError && err.exitCode === 3) return null;
    throw err;
  }
}

/** Resolves --ssp: a UUID as it is; a code from the schedule's own items first, then the catalog. */
export async function resolveSsp(client: TpaClient, schedule: RateSchedule | null, ref: string): Promise<{ id: string; code: string }> {
  if (UUID.test(ref)) return { id: ref.toLowerCase(), code: schedule?.items.find((i) => i.ssp_id === ref.toLowerCase())?.ssp_code ?? ref };
  const code = ref.toUpperCase();
  const item = schedule?.items.find((i) => i.ssp_code === code);
  if (item) return { id: item.ssp_id, code };
  const found = (await client.catalog({ search: code, page_size: 200 })).body.results.find((s) => s.code === code);
  if (!found) throw new NotFoundError(`no active SSP with code ${code} in the catalog`, { hint: `try: tpa ratesheet catalog --search ${code}` });
  return { id: found.id, code };
}
