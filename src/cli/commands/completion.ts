// tpa completion bash|zsh|fish — scripts generated from the command tree.
// Declarations only: the generator lives in completion.run.ts and loads when the command runs.
import { Argument, type Command } from 'commander';
import { examples, type Act } from '../action.js';

const run = () => import('./completion.run.js');

export function registerCompletion(program: Command, act: Act): void {
  examples(
    program
      .command('completion')
      .description('print the shell completion script (commands, options and their values)')
      .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish'])),
    'tpa completion bash > ~/.local/share/bash-completion/completions/tpa',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh's syntax, shown to the user as it is typed
    'tpa completion zsh > "${fpath[1]}/_tpa"',
    'tpa completion fish > ~/.config/fish/completions/tpa.fish',
  ).action(act(run, 'completion'));
}
