import { CODE_INFO, type DecisionCode } from '../core/codes.js';
import type { Finding } from '../core/errors.js';
import { visible } from '../core/text.js';

/**
 * Human lines for stderr: the code, why, and what to do next. A reason quotes names the
 * patch chose (a file, a test id): terminal controls and bidi overrides in it are shown as
 * escapes, so it cannot redraw the code line. A detail's own line breaks stay, but every line
 * after a reason's first is indented: a name with a line break in it cannot start a line that
 * reads as a reason of its own (`sealgate: CODE: ...`).
 */
export function formatReasons(code: DecisionCode, findings: readonly Finding[]): string {
  const lines = findings.map((f) =>
    visible(`sealgate: ${f.code}: ${f.path ? `${f.path}: ` : ''}${f.detail}`, '\n').replace(/\n/g, '\n    '),
  );
  if (code !== 'ALLOW' && lines.length === 0) lines.push(`sealgate: ${code}: ${CODE_INFO[code].condition}`);
  if (code !== 'ALLOW') lines.push(`sealgate: next step: ${CODE_INFO[code].nextStep}`);
  return lines.join('\n') + '\n';
}

/**
 * The first line formatReasons writes for `code`, without its `sealgate: CODE: ` (the caller
 * states the code once): the reason `sealgate runner` gives for a step that refused. A finding
 * of another code stands in, with its code, when none has this one.
 */
export function reasonLine(code: DecisionCode, findings: readonly Finding[]): string {
  const own = findings.find((f) => f.code === code);
  const f = own ?? findings[0];
  if (f === undefined) return code === 'ALLOW' ? '' : CODE_INFO[code].condition;
  const line =
    visible(`${own ? '' : `${f.code}: `}${f.path ? `${f.path}: ` : ''}${f.detail}`, '\n').split('\n')[0] ?? '';
  return own ? line.trim() : line.trimStart();
}

/** What a command printed, or would print on its own. */
export interface StepText {
  readonly stdout: string;
  readonly stderr: string;
}

/** A duration for a person: tenths of seconds under a minute, then minutes and seconds. */
export function formatDuration(ms: number): string {
  return ms >= 60_000
    ? `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`
    : `${(ms / 1000).toFixed(1)}s`;
}

export function formatJson(
  code: DecisionCode,
  findings: readonly Finding[],
  extra: Record<string, unknown> = {},
): string {
  return (
    JSON.stringify({
      code,
      exit: CODE_INFO[code].exit,
      ...extra,
      findings,
      next_step: code === 'ALLOW' ? null : CODE_INFO[code].nextStep,
    }) + '\n'
  );
}
