// The answer of a verb that changes the schedule: the service's message, with a check mark on a terminal.
import type { CommandOutput, TableTools } from '../../../render/output.js';

export const changed = (body: { message: string }): CommandOutput => ({ data: body, table: (t: TableTools) => `${t.c.green('✓')} ${body.message}` });
