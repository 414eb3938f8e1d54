// tpa completion bash|zsh|fish: the shell completion script, generated from the command tree.
import type { Command } from 'commander';
import { argument, verb } from '../../verb.js';
import { bashScript, fishScript, zshScript } from './scripts.js';

export const completion = verb({
  name: 'completion',
  description: 'print the shell completion script (commands, options and their values)',
  args: { shell: argument.required('<shell>', 'bash, zsh or fish', ['bash', 'zsh', 'fish']) },
  examples: [
    'tpa completion bash > ~/.local/share/bash-completion/completions/tpa',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's syntax, shown to the user as it is typed
    'tpa completion zsh > "${fpath[1]}/_tpa"',
    'tpa completion fish > ~/.config/fish/completions/tpa.fish',
  ],
  async run(ctx, { shell }, _opts, cmd) {
    const program = cmd.parent as Command;
    const script = shell === 'bash' ? bashScript(program) : shell === 'zsh' ? zshScript(program) : fishScript(program);
    // A script, whatever the output format.
    ctx.io.stdout.write(script);
  },
});
