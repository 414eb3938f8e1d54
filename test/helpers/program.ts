// The whole command tree, built as `tpa` builds it, with streams that swallow what it writes: for
// the tests that read the tree itself (completions, man pages, help).
import type { Command } from 'commander';
import type { IO, Stream } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';

export function fullProgram(): Promise<Command> {
  const quiet: Stream = { write() {}, isTTY: false, columns: 80 };
  const io: IO = {
    stdout: quiet,
    stderr: quiet,
    stdinIsTTY: false,
    env: {},
    readStdin: async () => '',
    stdinStream: () => {
      throw new Error('no stdin');
    },
  };
  return buildProgram(io, { exitCode: 0 }, 'full');
}
