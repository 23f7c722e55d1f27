/** What a command may touch: everything effectful is here, so tests can run commands in-process. */
export interface CommandContext {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The wall clock; commands that decide take --now instead. */
  readonly clock: () => Date;
  readonly isTTY: boolean;
}

export interface Command {
  readonly usage: string;
  run(ctx: CommandContext): Promise<number>;
}
