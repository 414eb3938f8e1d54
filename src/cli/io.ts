// The one object that owns stdout (data) and stderr (everything else), knows which are terminals
// and whether prompting is allowed. Tests drive real processes; this is the seam for the rest.

export interface Stream {
  write(text: string): void;
  isTTY: boolean;
}

export interface IO {
  stdout: Stream;
  stderr: Stream;
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  readStdin(): Promise<string>;
}

export function processIO(): IO {
  return {
    stdout: { write: (t) => void process.stdout.write(t), isTTY: process.stdout.isTTY === true },
    stderr: { write: (t) => void process.stderr.write(t), isTTY: process.stderr.isTTY === true },
    stdinIsTTY: process.stdin.isTTY === true,
    env: process.env,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** Prompts only when stdin and stdout are terminals and TPA_PROMPT_DISABLED is unset (DESIGN.md section 2). */
export function canPrompt(io: IO): boolean {
  return io.stdinIsTTY && io.stdout.isTTY && !io.env.TPA_PROMPT_DISABLED;
}
