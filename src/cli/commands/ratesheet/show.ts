// tpa ratesheet show: the schedule's settings and its items.
import { instanceArgument } from './instance.js';
import type { ScheduleItem, ScheduleSettings } from '../../../client/types.js';
import { rateInCsv, rateOnScreen } from '../../../domain/schedule-rates.js';
import type { TableTools } from '../../../render/output.js';
import { fieldsOf, verb } from '../../verb.js';

/** A schedule item's fields: `--json` selects from them, and they are the CSV header, written even when there is none. */
const ITEM_FIELDS = fieldsOf<ScheduleItem>({
  id: true,
  ssp_id: true,
  ssp_code: true,
  ssp_name: true,
  rate_type: true,
  rate_value: true,
  is_bundle_eligible: true,
  bundle_type: true,
  notes: true,
  sort_order: true,
});

export const show = verb({
  name: 'show',
  description: 'the schedule settings and its items',
  args: { instanceId: instanceArgument() },
  fields: ITEM_FIELDS,
  examples: ['tpa ratesheet show BLD-1001'],
  async run(ctx, { instanceId }) {
    const s = (await (await ctx.client()).schedule(instanceId)).body.rate_schedule;
    return {
      data: { rate_schedule: s },
      // In CSV a rate is written as export writes it (rateInCsv): a case rate is money, two decimals; a multiplier stays as it is.
      items: ctx.format === 'csv' ? s.items.map((i) => ({ ...i, rate_value: rateInCsv(i.rate_type, i.rate_value) })) : s.items,
      columns: ITEM_FIELDS,
      table: (t) =>
        [
          t.keyValues([
            ['Rate schedule', `${s.id} (${instanceId})`],
            ['Status', s.status === 'FINALIZED' ? t.c.green(s.status) : t.c.yellow(s.status)],
            ...settingsPairs(s),
          ]),
          s.items.length === 0 ? 'No items yet: tpa ratesheet add, or tpa ratesheet load-catalog' : itemsTable(t, s.items),
        ].join('\n'),
    };
  },
});

function itemsTable(t: TableTools, items: ScheduleItem[]): string {
  return t.table(
    // One line an item at any width: the notes, the bundle, then the rate type give way on a narrow terminal.
    ['#', 'Code', 'Name', { header: 'Rate type', drop: 3 }, { header: 'Rate', align: 'right' }, { header: 'Bundle', drop: 2 }, { header: 'Notes', drop: 1 }],
    items.map((i) => [
      String(i.sort_order),
      i.ssp_code,
      i.ssp_name,
      i.rate_type,
      rateOnScreen(i.rate_type, i.rate_value),
      i.is_bundle_eligible ? String(i.bundle_type) : '—',
      i.notes,
    ]),
    { list: true },
  );
}

function settingsPairs(s: ScheduleSettings): [string, string][] {
  return [
    ['Reference type', s.ssp_reference_type],
    ['Scope of care', s.scope_of_care],
    ['Service logic', s.service_logic],
    ['Elective advance', `${s.elective_advance_hours} h`],
    ['Non-elective fallback', `${s.non_elective_fallback} (${s.non_elective_fallback_percent}× Medicare)`],
    ['Default rate', `${s.default_rate_type} ${rateOnScreen(s.default_rate_type, s.default_rate_value)}`],
  ];
}
