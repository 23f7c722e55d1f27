import { CODE_INFO, type DecisionCode } from '../core/codes.js';
import type { Finding } from '../core/errors.js';
import { visible } from '../core/text.js';

/**
 * Human lines for stderr: the code, why, and what to do next. A reason quotes names the
 * patch chose (a file, a test id): terminal controls and bidi overrides in it are shown as
 * escapes, so it cannot redraw the code line. A detail's own line breaks stay, but every line
 * after a reason's first is indented: a name with a line break in it cannot start a line that
 * reads as a reason of its own (`sealgate: CODE: ...`), here or where a step's reason is read
 * back from its stderr (runner.ts).
 */
export function formatReasons(code: DecisionCode, findings: readonly Finding[]): string {
  const lines = findings.map((f) =>
    visible(`sealgate: ${f.code}: ${f.path ? `${f.path}: ` : ''}${f.detail}`, '\n').replace(/\n/g, '\n    '),
  );
  if (code !== 'ALLOW' && lines.length === 0) lines.push(`sealgate: ${code}: ${CODE_INFO[code].condition}`);
  if (code !== 'ALLOW') lines.push(`sealgate: next step: ${CODE_INFO[code].nextStep}`);
  return lines.join('\n') + '\n';
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
