// tpa local clients register: an OAuth client of the mutual-TLS server, and the scopes its tokens may carry.
import { UsageError } from '../../../../errors.js';
import { argument, option, verb } from '../../../verb.js';
import { withEngine } from '../engine.js';
import { SCOPES_HELP, scopesOption } from '../scopes.js';

export const register = verb({
  name: 'register',
  description:
    'register a client (the common name of its certificates) with the scopes its tokens may have, or change them; a revoked client is never registered again (exit 4)',
  args: { clientId: argument.required('<client_id>', "the client id: its certificates' common name") },
  options: { scopes: option.requiredList('--scopes <scope...>', SCOPES_HELP, { values: SCOPES_HELP.split(' ') }) },
  examples: [
    'tpa local clients register acme-tpa --scopes contract_lookup claim_pricing fund_release ledger_access',
    'tpa local clients register reports-only --scopes ledger_access',
  ],
  async run(ctx, { clientId }, opts) {
    const scopes = await scopesOption(opts.scopes);
    if (!clientId || clientId.trim() !== clientId) throw new UsageError('the client id is the common name of its certificates, without surrounding spaces');
    const registered = await withEngine(ctx, (e) => e.registerClient(clientId, scopes));
    ctx.note(`registered client ${clientId}: its tokens may carry ${scopes.join(', ')}`);
    return { data: registered };
  },
});
