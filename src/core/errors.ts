import type { RejectCode } from './codes.js';

/** One finding: a rule's result as data. `path` is a file, or a file and a dotted field path. */
export interface Finding {
  readonly code: RejectCode;
  readonly path: string;
  readonly detail: string;
}

/** An expected failure that carries its code. Caught once, in the CLI. */
export class SealgateError extends Error {
  readonly code: RejectCode;
  readonly findings: readonly Finding[];
  /** True for bad command-line arguments: exit 2 instead of the code's own status. */
  readonly usage: boolean;

  constructor(
    code: RejectCode,
    findings: readonly Finding[] | string,
    options: { usage?: boolean; cause?: unknown } = {},
  ) {
    const list: readonly Finding[] = typeof findings === 'string' ? [{ code, path: '', detail: findings }] : findings;
    super(list.map((f) => (f.path ? `${f.path}: ${f.detail}` : f.detail)).join('; ') || code, { cause: options.cause });
    this.name = 'SealgateError';
    this.code = code;
    this.findings = list;
    this.usage = options.usage ?? false;
  }
}

export function inputInvalid(path: string, detail: string): SealgateError {
  return new SealgateError('E_INPUT_INVALID', [{ code: 'E_INPUT_INVALID', path, detail }]);
}

export function usageError(detail: string): SealgateError {
  return new SealgateError('E_INPUT_INVALID', [{ code: 'E_INPUT_INVALID', path: 'argv', detail }], { usage: true });
}
