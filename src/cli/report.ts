import { CODE_INFO, type DecisionCode } from '../core/codes.js';
import type { Finding } from '../core/errors.js';

/** Human lines for stderr: the code, why, and what to do next. */
export function formatReasons(code: DecisionCode, findings: readonly Finding[]): string {
  const lines = findings.map((f) => `sealgate: ${f.code}: ${f.path ? `${f.path}: ` : ''}${f.detail}`);
  if (code !== 'ALLOW' && lines.length === 0) lines.push(`sealgate: ${code}: ${CODE_INFO[code].condition}`);
  if (code !== 'ALLOW') lines.push(`sealgate: next step: ${CODE_INFO[code].nextStep}`);
  return lines.join('\n') + '\n';
}

export function formatJson(code: DecisionCode, findings: readonly Finding[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ code, exit: CODE_INFO[code].exit, ...extra, findings, next_step: code === 'ALLOW' ? null : CODE_INFO[code].nextStep }) + '\n';
}
