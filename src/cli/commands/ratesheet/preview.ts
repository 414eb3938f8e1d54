// tpa ratesheet preview: the allowed amount of every item, and their total; nothing is saved.
import { instanceArgument } from './instance.js';
import { formatCentsGrouped, jsonNumberToCents } from '../../../domain/money.js';
import { rateOnScreen } from '../../../domain/schedule-rates.js';
import type { PreviewItem } from '../../../client/types.js';
import { fieldsOf, verb } from '../../verb.js';

export const preview = verb({
  name: 'preview',
  description: 'the allowed amount of every item, without saving anything',
  args: { instanceId: instanceArgument() },
  fields: fieldsOf<PreviewItem>({
    ssp_code: true,
    ssp_name: true,
    rate_type: true,
    rate_value: true,
    calculated_allowed_amount: true,
    medicare_rate: true,
    bundle_type: true,
  }),
  examples: ['tpa ratesheet preview BLD-1001'],
  async run(ctx, { instanceId }) {
    const { items } = (await (await ctx.client()).previewSchedule(instanceId)).body;
    const totalCents = items.reduce((sum, i) => sum + (jsonNumberToCents(i.calculated_allowed_amount) ?? 0), 0);
    return {
      data: { items },
      items,
      table: (t) =>
        t.table(
          [
            'Code',
            'Name',
            { header: 'Rate type', drop: 2 },
            { header: 'Rate', align: 'right' },
            { header: 'Medicare', align: 'right', drop: 3 },
            { header: 'Allowed', align: 'right' },
            { header: 'Bundle', drop: 1 },
          ],
          [
            ...items.map((i) => [
              i.ssp_code,
              i.ssp_name,
              i.rate_type,
              rateOnScreen(i.rate_type, i.rate_value),
              t.amount(i.medicare_rate),
              t.amount(i.calculated_allowed_amount),
              i.bundle_type ?? '—',
            ]),
            [t.c.bold('Total'), `${items.length} SSPs`, '', '', '', t.c.bold(formatCentsGrouped(totalCents)), ''],
          ],
          { list: true },
        ),
    };
  },
});
