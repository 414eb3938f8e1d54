// Handler of `tpa completion` (declared in completion.ts).
import type { Command } from 'commander';
import type { Handler } from '../action.js';
import { bashScript, fishScript, zshScript } from '../completion-scripts.js';

export const completion: Handler = async (ctx, [shell], _opts, cmd) => {
  const program = cmd.parent as Command;
  const script = shell === 'bash' ? bashScript(program) : shell === 'zsh' ? zshScript(program) : fishScript(program);
  // A script, whatever the output format.
  ctx.io.stdout.write(script);
};
