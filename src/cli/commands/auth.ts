// tpa auth login | keys | rotate, and tpa health — credentials for the service (docs/design.md "Credentials and config").
// Declarations only: the handlers live in auth.run.ts and load when the command runs.
import type { Command } from 'commander';
import { examples, valuesOption, type Act } from '../action.js';

const run = () => import('./auth.run.js');

/** Adds the subcommands of `tpa auth` to its command. */
export function registerAuth(auth: Command, act: Act): void {
  examples(
    auth
      .command('login')
      .description('save a profile and its API key (masked prompt on a terminal, --with-key-stdin for scripts); the key is checked with the service first')
      .addOption(
        valuesOption('--env <env>', 'sandbox, staging (API key) or production (OAuth over mutual TLS)', ['sandbox', 'staging', 'production'], 'sandbox'),
      )
      .option('--base-url <url>', 'the service, e.g. http://127.0.0.1:4010 for tpa local serve')
      .option('--with-key-stdin', 'read the API key from stdin (never pass a key as an argument)')
      .option('--auth-url <url>', 'production: where POST /oauth2/token is (default: the base URL)')
      .option('--client-id <id>', 'production: the OAuth client id (the client certificate names it)')
      .option('--cert <file>', 'production: the client certificate (PEM)')
      .option('--key <file>', 'production: its private key (PEM; the passphrase of an encrypted one is kept in the keychain)')
      .option('--ca <file>', "production: the service's CA (PEM)")
      .option('--scopes <scope...>', 'production: the scopes to ask tokens for (default: all the client is registered for)')
      .option('--legacy-tls', 'allow TLS 1.2 for a legacy service (TLS 1.3 otherwise)')
      .option('--passphrase-stdin', 'production: read the client key passphrase from stdin'),
    'tpa auth login --env sandbox --base-url http://127.0.0.1:4010',
    'tpa local keys create | tpa auth login --env sandbox --base-url http://127.0.0.1:4010 --with-key-stdin',
    'tpa auth login --env production --base-url https://127.0.0.1:8443 --client-id acme-tpa --cert client.pem --key client-key.pem --ca ca.pem',
  ).action(act(run, 'login'));

  examples(
    auth
      .command('status')
      .description('the profile, where its key is kept (keychain or file), the key by prefix and last four, its scopes; exit 5 when not logged in'),
    'tpa auth status -p sandbox',
  ).action(act(run, 'status'));

  examples(auth.command('logout').description("remove the profile's key from wherever it is kept"), 'tpa auth logout -p sandbox').action(act(run, 'logout'));

  examples(auth.command('keys').description("the service's active API keys (prefix and last four only)"), 'tpa auth keys -p sandbox').action(act(run, 'keys'));

  examples(auth.command('rotate').description('get a new API key and save it; the old one keeps working for 24 hours'), 'tpa auth rotate -p sandbox').action(
    act(run, 'rotate'),
  );
}

export function registerHealth(program: Command, act: Act): void {
  examples(
    program.command('health').description("check the service and the credentials: environment, key, scopes, the service's time"),
    'tpa health -p sandbox',
  ).action(act(run, 'health'));
}
