// An adjudicated encounter made through the CLI, as most command tests need one: a claim from the
// template (its arguments given), submitted, then polled at once with --wait (adjudication takes no
// time in tests; `submit --wait` would first wait the 2 s the contract (docs/api.md) asks before the first poll).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { formatCents } from '../../src/domain/money.js';
import type { RunResult } from './cli.js';
import { cents } from './values.js';

type Body = Record<string, any>;

export interface Encounter {
  /** The encounter id (external_claim_id). */
  id: string;
  submissionId: string;
  /** The poll's answer: the adjudicated claim response. */
  response: Body;
  /** The benefit as text with two decimals ("2460.00"), for --amount. */
  amount: string;
}

export interface EncounterOptions {
  /** `claim template` arguments; an institutional claim (benefit 2,460.00, four providers) by default. */
  template?: string[];
  /** Changes the claim before it is submitted. */
  edit?: (claim: Body) => void;
  /** Other environment for submit and poll (e.g. a clock). */
  env?: Record<string, string>;
}

/** Runs a tpa command for the test (runTpa or tpa bound to a home). */
export type Run = (args: string[], env?: Record<string, string>) => Promise<RunResult>;

/** A claim file in `home` from the template (its arguments given), changed by `edit`. */
export async function claimFile(run: Run, home: string, options: Pick<EncounterOptions, 'template' | 'edit' | 'env'> = {}): Promise<string> {
  const t = await run(['claim', 'template', ...(options.template ?? ['--type', 'institutional'])], options.env);
  expect(t.code, t.stderr).toBe(0);
  const file = join(home, `claim-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, t.stdout);
  if (options.edit) {
    const claim = JSON.parse(readFileSync(file, 'utf8')) as Body;
    options.edit(claim);
    writeFileSync(file, JSON.stringify(claim));
  }
  return file;
}

export async function adjudicatedEncounter(run: Run, home: string, options: EncounterOptions = {}): Promise<Encounter> {
  const file = await claimFile(run, home, options);
  // --again: each call is a new encounter, even of a claim of the same content as an earlier call's
  // (tpa refuses to send the same claim twice otherwise).
  const submitted = await run(['claim', 'submit', file, '-o', 'json', '--again'], options.env);
  expect(submitted.code, submitted.stderr).toBe(0);
  const ack = submitted.json<{ submission_id: string; external_claim_id: string }>();
  const polled = await run(['claim', 'poll', ack.submission_id, '--wait', '-o', 'json'], options.env);
  expect(polled.code, polled.stderr).toBe(0);
  const response = polled.json<Body>();
  return {
    id: ack.external_claim_id,
    submissionId: ack.submission_id,
    response,
    get amount() {
      return formatCents(cents(response.adjudication?.benefit_amount));
    },
  };
}
