import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Config } from '../config/schema.js';
import { parseDocument, formatFor } from '../core/document.js';
import { SealgateError, inputInvalid, type Finding } from '../core/errors.js';
import { fileExists, readBoundedFile, MAX_INPUT_BYTES } from '../core/io.js';
import { DIGEST_PATTERN, sha256Hex } from '../core/ids.js';
import type { Instant } from '../core/time.js';
import { decodeStrictUtf8 } from '../core/text.js';
import { CreditSchema } from '../credit/schema.js';
import { classifyFile } from '../diff/classify.js';
import { parseGitPatch, pathOf } from '../diff/parse.js';
import { FreezeSchema } from '../freeze/schema.js';
import { RecordSchema } from '../record/schema.js';
import type { GateInputs } from './decide.js';

export interface GatePaths {
  readonly record: string;
  readonly credit: string;
  readonly freeze: string | undefined;
  readonly repo: string;
}

/** Resolve a path named inside a record against the repository; refuse anything that leaves it. */
export function resolveInRepo(repo: string, p: string, label: string): string {
  if (isAbsolute(p) || p.includes('\\') || p.includes('\0')) throw inputInvalid(label, `"${p}" must be a relative POSIX path inside the repository`);
  const root = realpathSync(resolve(repo));
  const full = resolve(root, p);
  const rel = relative(root, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw inputInvalid(label, `"${p}" escapes the repository`);
  let real: string;
  try {
    real = realpathSync(full);
  } catch {
    throw inputInvalid(label, `"${p}" not found in the repository`);
  }
  if (real !== root && !real.startsWith(root + sep)) throw inputInvalid(label, `"${p}" resolves (through a link) outside the repository`);
  return real;
}

/** A one-line runner file (digest.txt, digest.status): exactly one line, newline-terminated. */
function readRunnerLine(path: string, label: string): string | null {
  if (!fileExists(path)) return null;
  const bytes = readBoundedFile(path, 4096, label);
  const d = decodeStrictUtf8(bytes);
  if ('problem' in d) throw inputInvalid(label, d.detail);
  if (!/^[^\n]*\n$/.test(d.text)) throw inputInvalid(label, 'must be exactly one line ending in a newline');
  return d.text.slice(0, -1);
}

/**
 * Read every gate input from disk and hand back the pure decision's inputs. Every
 * unreadable or invalid file is collected, so one run names all of them.
 */
export function readGateInputs(paths: GatePaths, config: Config, now: Instant): GateInputs {
  const findings: Finding[] = [];
  const collect = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof SealgateError) {
        findings.push(...err.findings);
        return undefined;
      }
      throw err;
    }
  };

  const record = collect(() => {
    const r = parseDocument(readBoundedFile(paths.record, MAX_INPUT_BYTES, 'record'), RecordSchema, formatFor(paths.record, 'json-or-yaml'), 'record');
    if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
    return r.value;
  });
  // A credit file that does not exist means "no property run" (E_CREDIT_MISSING), not bad input.
  const credit = fileExists(paths.credit)
    ? collect(() => {
        const r = parseDocument(readBoundedFile(paths.credit, MAX_INPUT_BYTES, 'credit'), CreditSchema, 'json', 'credit');
        if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
        return r.value;
      })
    : null;
  const freeze = paths.freeze === undefined
    ? null
    : collect(() => {
        const r = parseDocument(readBoundedFile(paths.freeze as string, MAX_INPUT_BYTES, 'freeze'), FreezeSchema, 'json', 'freeze');
        if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
        return r.value;
      });
  const patch = record === undefined
    ? undefined
    : collect(() => {
        const full = resolveInRepo(paths.repo, record.patch_path, 'record#patch_path');
        const bytes = readBoundedFile(full, 256 * 1024 * 1024, 'patch');
        const parsed = parseGitPatch(bytes, 'patch');
        if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
        return { parsed: parsed.value, sha256: sha256Hex(bytes) };
      });
  const runnerDir = join(paths.repo, 'review', 'runner');
  const status = collect(() => readRunnerLine(join(runnerDir, 'digest.status'), 'review/runner/digest.status'));
  const digest = collect(() => {
    const d = readRunnerLine(join(runnerDir, 'digest.txt'), 'review/runner/digest.txt');
    if (d !== null && !DIGEST_PATTERN.test(d)) throw inputInvalid('review/runner/digest.txt', 'is not a lowercase hex digest');
    return d;
  });
  if (findings.length > 0 || record === undefined || credit === undefined || freeze === undefined || patch === undefined) {
    throw new SealgateError('E_INPUT_INVALID', findings.length > 0 ? findings : [{ code: 'E_INPUT_INVALID', path: '', detail: 'an input could not be read' }]);
  }
  return {
    record,
    patchFiles: patch.parsed.files.map((file) => ({ path: pathOf(file), class: classifyFile(file, config) })),
    patchSha256: patch.sha256,
    credit,
    freeze,
    runnerFiles: { status: status ?? null, digest: digest ?? null },
    now,
  };
}
