// tpa local fixtures | reset — the embedded engine's own housekeeping.
// Declarations only: the handlers live in local.run.ts and load when the command runs.
import { Argument, type Command } from 'commander';
import { examples, valuesOption, type Act } from '../action.js';

const run = () => import('./local.run.js');

/** Adds the subcommands of `tpa local` to its command. */
export function registerLocal(local: Command, act: Act): void {
  examples(
    local.command('fixtures').description('the seeded reference data: providers, contracts, members, so you know what to try'),
    'tpa local fixtures',
    "tpa local fixtures -o json | jq '.contracts[] | {contract_id, npi, group_id}'",
  ).action(act(run, 'fixtures'));

  examples(
    local
      .command('init')
      .description('create the local engine database now (it is otherwise created on first use)')
      .option('--encrypt', 'encrypt it (AES-256); its key goes to the OS keychain, or comes from TPA_DB_KEY'),
    'tpa local init --encrypt',
    'TPA_DB_KEY=$(openssl rand -hex 32) tpa local init --encrypt',
  ).action(act(run, 'init'));
  examples(
    local.command('encrypt').description('encrypt the existing local database (AES-256); its key goes to the OS keychain, or comes from TPA_DB_KEY'),
    'tpa local encrypt',
  ).action(act(run, 'encrypt'));

  examples(
    local
      .command('reset')
      .description('delete the local engine database; it is re-created and re-seeded on next use (asks; --yes to skip; refused while local serve runs)'),
    'tpa local reset',
    'tpa local reset --yes',
  ).action(act(run, 'reset'));

  const clock = local.command('clock').description('the engine clock, shared by every command on this data dir (TPA_CLOCK overrides it)');
  examples(clock.command('show', { isDefault: true }).description('the engine time now, and whether it is real, frozen or shifted'), 'tpa local clock').action(
    act(run, 'clockShow'),
  );
  examples(
    clock
      .command('advance')
      .description('move the clock forward, e.g. to the next business day (never to before the latest time recorded)')
      .argument('<duration>', '30s, 10m, 2h, 1d ...'),
    'tpa local clock advance 1d',
  ).action(act(run, 'clockAdvance'));
  examples(
    clock
      .command('set')
      .description('freeze the clock at a time, never before the latest time the engine recorded')
      .argument('<timestamp>', 'ISO 8601, e.g. 2026-03-02T10:00:00Z'),
    'tpa local clock set 2026-03-02T10:00:00Z',
  ).action(act(run, 'clockSet'));
  examples(
    clock.command('real').alias('reset').description('back to real time (held at the latest time recorded while real time is earlier)'),
    'tpa local clock real',
  ).action(act(run, 'clockReal'));

  examples(
    local
      .command('serve')
      .description(
        'serve the embedded engine over HTTP (API keys, scopes, rate limits), for profiles and scripts to talk to; holds the data directory while it runs',
      )
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--port <port>', 'port; 0 picks a free one (printed on stdout)', '4010')
      .option('--no-rate-limit', 'no rate limits (load tests)')
      .option('--rate-window <duration>', 'length of a rate-limit window (default 60s; shorter for tests)')
      .addOption(
        valuesOption(
          '--rate-clock <clock>',
          'the clock rate-limit windows run on: real time, or the engine clock (tests move it with tpa local clock)',
          ['real', 'engine'],
          'real',
        ),
      )
      .option('--tls-cert <file>', 'serve HTTPS with this certificate (PEM)')
      .option('--tls-key <file>', 'the private key of --tls-cert (PEM)')
      .option('--client-ca <file>', 'require client certificates signed by this CA, and serve POST /oauth2/token (production flow)')
      .addOption(
        valuesOption('--tls-min <version>', 'lowest TLS version to accept (default 1.3; 1.2 for a legacy client, with forward-secret AEAD ciphers only)', [
          '1.2',
          '1.3',
        ]),
      )
      .addOption(
        valuesOption('--tls-max-version <version>', 'highest TLS version to accept, e.g. 1.2 to act as a legacy service (then 1.2 only)', ['1.2', '1.3']),
      )
      .option(
        '--insecure-http',
        'serve plain HTTP on a --host other than loopback (refused without it: keys and member data would cross the network unencrypted)',
      ),
    'tpa local serve --port 4010',
    'tpa local serve --port 0 --no-rate-limit',
    'tpa local serve --port 8443 --tls-cert server.pem --tls-key server-key.pem --client-ca clients-ca.pem',
    'tpa local serve --host 0.0.0.0 --port 8443 --tls-cert server.pem --tls-key server-key.pem --tls-min 1.2',
  ).action(act(run, 'serve'));

  const keys = local.command('keys').description('API keys of `tpa local serve`');
  examples(
    keys
      .command('create')
      .description('create an API key (printed once, on stdout); every scope, contract_build included, unless --scopes narrows them')
      .addOption(valuesOption('--env <env>', 'sandbox or staging (key prefix and rate-limit tier)', ['sandbox', 'staging'], 'sandbox'))
      .option('--scopes <scope...>', 'contract_lookup claim_pricing fund_release ledger_access contract_build'),
    'tpa local keys create',
    'tpa local keys create --scopes contract_lookup ledger_access',
  ).action(act(run, 'keysCreate'));
  examples(
    keys.command('list').description('every key: id, prefix and last four, scopes, status (active, rotated, expired, revoked), the key it was rotated from'),
    'tpa local keys list',
    'tpa local keys list -o json | jq \'.[] | select(.status == "active")\'',
  ).action(act(run, 'keysList'));
  examples(
    keys
      .command('revoke')
      .description('revoke a key at once, with every key of its lineage (rotated from it or to it): their next request is 401 (asks; --yes to skip)')
      .argument('<key_id>', 'a key id, as tpa local keys list shows it'),
    'tpa local keys revoke key_3b302036a412ed8b',
    'tpa local keys revoke key_3b302036a412ed8b --yes',
  ).action(act(run, 'keysRevoke'));

  const clients = local.command('clients').description('OAuth clients of the mutual-TLS server (`tpa local serve --client-ca`) and their scopes');
  examples(
    clients
      .command('register')
      .description('register a client (the common name of its certificates) with the scopes its tokens may have, or change them')
      .argument('<client_id>', "the client id: its certificates' common name")
      .requiredOption('--scopes <scope...>', 'contract_lookup claim_pricing fund_release ledger_access contract_build'),
    'tpa local clients register acme-tpa --scopes contract_lookup claim_pricing fund_release ledger_access',
    'tpa local clients register reports-only --scopes ledger_access',
  ).action(act(run, 'clientsRegister'));
  examples(clients.command('list').description('the registered clients and their scopes'), 'tpa local clients list').action(act(run, 'clientsList'));

  examples(
    local
      .command('simulate')
      .description('sandbox triggers for the unhappy paths: a failed transfer, a refund, an AEOB that does not match')
      .addArgument(
        new Argument('<scenario>', 'settlement-failure | refund | aeob-variance | missing-aeob').choices([
          'settlement-failure',
          'refund',
          'aeob-variance',
          'missing-aeob',
        ]),
      )
      .argument('<encounter_id>', 'a funded encounter'),
    'tpa local simulate settlement-failure enc_3b302036a412ed8b301f',
    'tpa local clock advance 3d && tpa local simulate refund enc_3b302036a412ed8b301f',
  ).action(act(run, 'simulate'));

  const audit = local
    .command('audit')
    .description("the engine's audit chain: every money-moving or irreversible action, each record hashed with the one before (SHA-256)");
  examples(
    audit
      .command('verify')
      .description('walk the chain: whole (count, head hash) with exit 0, or the first record that does not verify, and why, with exit 4')
      .option('--deep', 'also check the money tables (encounters, settlements, payouts) against the chain: the first row that disagrees, exit 4')
      .option(
        '--expect-head <hash>',
        'a head kept outside the database (tpa local audit head): the chain must still hold it and extend it, else exit 4 (a rewrite with every hash recomputed)',
      ),
    'tpa local audit verify',
    'tpa local audit verify --deep',
    'tpa local audit verify --expect-head "$(cat /mnt/anchor/tpa-head)"   # a head kept on another machine',
  ).action(act(run, 'auditVerify'));
  examples(
    audit.command('head').description('the last record: its number and hash, to keep outside the database (a ticket, another machine, a printed log)'),
    'tpa local audit head',
    'tpa local audit head -o json',
  ).action(act(run, 'auditHead'));
  examples(
    audit
      .command('list')
      .description('the audit records in order')
      .option('--from <date>', 'recorded on or after (YYYY-MM-DD or an ISO time)')
      .option('--to <date>', 'recorded on or before (YYYY-MM-DD)')
      .option(
        '--type <type>',
        'SUBMISSION, FUNDING_APPROVED, SETTLEMENT_INITIATED, PAYOUT, SETTLEMENT_COMPLETED, SETTLEMENT_FAILED, SETTLEMENT_REFUNDED, RECONCILIATION, AEOB_VARIANCE, AEOB_MISSING, SCHEDULE_FINALIZED, KEY_CREATED, KEY_ROTATED, KEY_REVOKED, CLIENT_REGISTERED',
      ),
    'tpa local audit list --type FUNDING_APPROVED -o csv',
  ).action(act(run, 'auditList'));
}
