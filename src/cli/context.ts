import type { Policy } from '../policy/read.js';
import type { RunnerTree } from '../tree/build.js';
import type { CreditPrelude } from '../credit/run.js';

/** What `sealgate runner` hands its steps: the tree it built once and the policy it read. */
export interface RunnerShared {
  readonly tree: RunnerTree;
  readonly policy: Policy;
  /** The credit step's mutants, drafted and checked while the sealed run goes on (set before the run step). */
  readonly creditPrelude?: { current: CreditPrelude | null };
}

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
  /** Set by `sealgate runner` for its steps; a step run on its own builds its tree itself. */
  readonly runner?: RunnerShared;
}

export interface Command {
  readonly usage: string;
  run(ctx: CommandContext): Promise<number>;
}
