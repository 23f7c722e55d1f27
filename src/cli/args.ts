import { parseArgs, type ParseArgsConfig } from 'node:util';
import { usageError } from '../core/errors.js';
import { isInstant, parseInstant, type Instant } from '../core/time.js';
import { isJobId } from '../core/ids.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs in strict mode; every mistake is a usage error (E_INPUT_INVALID, exit 2). */
export function parseCommandArgs<O extends Options>(
  argv: readonly string[],
  options: O,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>> {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals });
  } catch (err) {
    throw usageError((err as Error).message);
  }
}

export function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw usageError(`--${name} is required`);
  return value;
}

export function parseNowOption(value: string | undefined): Instant {
  const text = requireOption(value, 'now');
  const t = parseInstant(text);
  if (!isInstant(t)) throw usageError(`--now: ${t.problem}`);
  return t;
}

export function parseJobOption(value: string | undefined, name: string): string {
  const v = requireOption(value, name);
  if (!isJobId(v)) throw usageError(`--${name}: "${v}" is not a job id (letters, digits and ._:/@-, no whitespace)`);
  return v;
}

/** A full commit id (40 or 64 lowercase hex digits), as CI names one: never a branch or a short id, which could be moved. */
export function parseCommitOption(value: string | undefined, name: string): string {
  const v = requireOption(value, name);
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(v))
    throw usageError(
      `--${name}: "${v}" is not a full commit id (40 or 64 lowercase hex digits, such as \${{ github.event.pull_request.base.sha }})`,
    );
  return v;
}
