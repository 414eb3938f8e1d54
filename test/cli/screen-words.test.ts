// What the text screens say, read as a person reads them at 80 columns: ids that other commands
// take, the words beside them, amounts in one format, lines wrapped at spaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTpa, useTpaHome } from '../helpers/cli.js';
import { adjudicatedEncounter } from '../helpers/encounters.js';

const home = useTpaHome(beforeAll, afterAll);
const run = home.run;
/** A command on a terminal `columns` wide, in-process. */
const onTerminal = (args: string[], columns = 80) => runTpa(args, { home: home.dir, tty: true, columns });

describe('the processor trace', () => {
  it('is shown at adjudication as the id the transfer takes once funded, not as a transfer; the ledger calls it the transfer once funded', async () => {
    const e = await adjudicatedEncounter(run, home.dir);
    const trace = e.response.processor_trace_id as string;
    expect(trace).toMatch(/^tr_/);
    const polled = await onTerminal(['claim', 'poll', e.submissionId]);
    expect(polled.code, polled.stderr).toBe(0);
    expect(polled.stdout).not.toMatch(/Processor trace/);
    expect(polled.stdout).toMatch(new RegExp(`\\nTrace\\s+${trace} \\(the transfer's id once funded\\)\\n`));
    const before = await onTerminal(['ledger', 'show', e.id]);
    expect(before.stdout).toMatch(new RegExp(`\\n\\s*Trace\\s+${trace} \\(the transfer's id once funded\\)`));
    const approved = await run(['fund', 'approve', e.id, '--amount', e.amount, '--auth-code', 'AUTH-TRACE-0001', '--yes', '-o', 'json']);
    expect(approved.code, approved.stderr).toBe(0);
    const after = await onTerminal(['ledger', 'show', e.id]);
    expect(after.stdout).toMatch(new RegExp(`\\n\\s*Transfer\\s+${approved.json<{ processor_transfer_id: string }>().processor_transfer_id}\\n`));
    expect(after.stdout).not.toMatch(/once funded|Processor trace/);
  });
});
