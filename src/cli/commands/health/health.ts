// tpa health: the service and the credentials in one request (environment, key, scopes, the
// service's time); `tpa auth login` shows the same table once a key is accepted.
import type { Health } from '../../../client/types.js';
import type { TableTools } from '../../../render/output.js';
import { fieldsOf, verb } from '../../verb.js';

export const health = verb({
  name: 'health',
  description: "check the service and the credentials: environment, key, scopes, the service's time",
  fields: fieldsOf<Health>({ status: true, environment: true, key_id: true, scopes: true, time: true, database: true }),
  examples: ['tpa health -p sandbox'],
  async run(ctx) {
    const h = (await (await ctx.client()).health()).body;
    return { data: h, table: (t) => healthTable(t, h) };
  },
});

export function healthTable(t: TableTools, h: Health): string {
  return t.keyValues([
    ['Status', h.status === 'ok' ? t.c.green('ok') : t.c.red(h.status)],
    ['Environment', h.environment],
    ['Key', h.key_id ?? '—'],
    ['Scopes', h.scopes.join(', ')],
    ['Service time', h.time],
  ]);
}
