// tpa local clients list: the registered OAuth clients and their scopes.
import { verb } from '../../../verb.js';
import { withEngine } from '../engine.js';

export const list = verb({
  name: 'list',
  description: 'the registered clients and their scopes',
  examples: ['tpa local clients list'],
  async run(ctx) {
    const clients = await withEngine(ctx, (e) => e.listClients());
    return {
      data: clients,
      items: clients,
      columns: ['client_id', 'scopes', 'registered_at'],
      table: (t) =>
        t.table(
          ['Client', 'Scopes', 'Registered'],
          clients.map((c) => [c.client_id, c.scopes.join(', '), c.registered_at]),
        ),
    };
  },
});
