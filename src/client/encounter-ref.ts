// An encounter as a person names it: its id (enc_…, what the service's routes take) or the number
// every ledger view shows first (ENC-2026-000002). A number is found in the ledger list, over either
// transport: its year is the service year, so only that year's entries are read, a page at a time,
// until the first that has it.
import { NotFoundError } from '../errors.js';
import type { TpaClient } from './client.js';
import { pages } from './pages.js';
import type { LedgerItem } from './types.js';

const NUMBER = /^ENC-(\d{4})-(\d{1,9})$/i;

/** The encounter number `text` names, written as the service writes it (ENC-2026-000002); undefined for anything else. */
export function encounterNumber(text: string): { number: string; year: string } | undefined {
  const m = NUMBER.exec(text.trim());
  if (!m) return undefined;
  return { number: `ENC-${m[1]}-${m[2]!.replace(/^0+(?=\d)/, '').padStart(6, '0')}`, year: m[1]! };
}

/**
 * The encounter id of `ref`: `ref` itself unless it is an encounter number, which is looked up in
 * the ledger (its service year's entries). An unknown number is not found (exit 3), naming it.
 */
export async function resolveEncounter(client: TpaClient, ref: string): Promise<string> {
  const n = encounterNumber(ref);
  if (!n) return ref;
  const first = await client.ledgerList({ start_date: `${n.year}-01-01`, end_date: `${n.year}-12-31`, limit: 100 });
  for await (const page of pages<LedgerItem>(first, (link) => client.ledgerPage(link), { idOf: (e) => e.id, window: 1000 })) {
    const found = page.find((e) => e.encounter_number === n.number);
    if (found) return found.encounter_id;
  }
  throw new NotFoundError(`no encounter ${ref.trim()}: no ledger entry of service year ${n.year} has that number`, {
    code: 'encounter_not_found',
    hint: `see the numbers: tpa ledger list --from ${n.year}-01-01 --to ${n.year}-12-31`,
  });
}
