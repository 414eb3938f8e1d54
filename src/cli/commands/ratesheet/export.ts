// tpa ratesheet export: the schedule's items as the CSV that import reads back.
import { instanceArgument } from './instance.js';
import { rateInCsv } from '../../../domain/schedule-rates.js';
import { toCsv } from '../../../render/output.js';
import { verb } from '../../verb.js';
import { CSV_COLUMNS } from './rates.js';

export const exportCsv = verb({
  name: 'export',
  description: 'the schedule items as CSV (ssp_code,rate_type,rate_value,bundle_type,notes), ready to edit and import',
  args: { instanceId: instanceArgument() },
  examples: ['tpa ratesheet export BLD-1001 > rates.csv'],
  async run(ctx, { instanceId }) {
    const s = (await (await ctx.client()).schedule(instanceId)).body.rate_schedule;
    const rows = s.items.map((i) => ({
      ssp_code: i.ssp_code,
      rate_type: i.rate_type,
      rate_value: rateInCsv(i.rate_type, i.rate_value),
      bundle_type: i.bundle_type ?? '',
      notes: i.notes,
    }));
    // A spreadsheet file whatever the output format, with the header even when there are no items.
    ctx.io.stdout.write(rows.length > 0 ? toCsv(rows) : `${CSV_COLUMNS.join(',')}\n`);
  },
});
