// The answer of a verb that changes the schedule: the service's message, with a check mark on a
// terminal, and the ids the answer carries (the schedule's, the item's, the SSP's), so that the
// text screen names what json does.
import type { CommandOutput, TableTools } from '../../../render/output.js';

const IDS: readonly (readonly [string, string])[] = [
  ['rate_schedule_id', 'Rate schedule'],
  ['rate_schedule_item_id', 'Item'],
  ['ssp_id', 'SSP id'],
];

export const changed = (body: { message: string } & Record<string, unknown>): CommandOutput => ({
  data: body,
  table: (t: TableTools) => {
    const ids = IDS.filter(([key]) => typeof body[key] === 'string').map(([key, label]) => [label, body[key] as string] as const);
    return [`${t.c.green('✓')} ${body.message}`, ...(ids.length > 0 ? [t.keyValues(ids)] : [])].join('\n');
  },
});
