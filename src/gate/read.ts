import { dirname, join } from 'node:path';
import type { Config } from '../config/schema.js';
import { parseDocument, formatFor } from '../core/document.js';
import { SealgateError, type Finding } from '../core/errors.js';
import { fileExists, readBoundedFile, resolveInRepo, MAX_INPUT_BYTES } from '../core/io.js';
import { DIGEST_PATTERN, sha256Hex } from '../core/ids.js';
import { LAYOUT } from '../core/layout.js';
import { fail, ok, type Result } from '../core/result.js';
import type { Instant } from '../core/time.js';
import { decodeStrictUtf8 } from '../core/text.js';
import { CreditSchema } from '../credit/schema.js';
import { classifyFile } from '../diff/classify.js';
import { parseGitPatch, pathOf } from '../diff/parse.js';
import { FreezeSchema } from '../freeze/schema.js';
import { readSurfaceFiles, namesMixedFile } from '../policy/contents.js';
import { checkPolicySurface, type SurfaceFile } from '../policy/surface.js';
import { RecordSchema } from '../record/schema.js';
import { parseResults } from '../runner/results.js';
import type { GateInputs } from './decide.js';

/** Cap on a patch file. */
export const MAX_PATCH_BYTES = 256 * 1024 * 1024;

/** The raw bytes of every gate input; null where a file is absent. */
export interface GateFiles {
  readonly record: Uint8Array;
  readonly recordFormat: 'json' | 'yaml';
  readonly credit: Uint8Array | null;
  readonly freeze: Uint8Array | null;
  /** The patch the record names, or the finding that stopped it being read. */
  readonly patch: Uint8Array | Finding;
  readonly digestTxt: Uint8Array | null;
  readonly statusTxt: Uint8Array | null;
  /** The sealed run's results.json; null when absent. */
  readonly results: Uint8Array | null;
  /**
   * The patch's files with both sides of any mixed policy file (package.json, pyproject.toml,
   * setup.cfg), read from the base; null when not gathered (a mixed file then fails closed).
   */
  readonly surface: readonly SurfaceFile[] | null;
}

/** A one-line runner file (digest.txt, digest.status): exactly one line, newline-terminated. */
function parseRunnerLine(bytes: Uint8Array | null, label: string): Result<string | null> {
  if (bytes === null) return ok(null);
  const d = decodeStrictUtf8(bytes);
  if ('problem' in d) return fail([{ code: 'E_INPUT_INVALID', path: label, detail: d.detail }]);
  if (!/^[^\n]*\n$/.test(d.text))
    return fail([{ code: 'E_INPUT_INVALID', path: label, detail: 'must be exactly one line ending in a newline' }]);
  return ok(d.text.slice(0, -1));
}

/**
 * Bytes to the decision's inputs: every file parsed and schema-checked, and every problem
 * collected so one run names all of them. Pure: no clock, no file system.
 */
export function parseGateFiles(files: GateFiles, config: Config, now: Instant): Result<GateInputs> {
  const findings: Finding[] = [];
  const take = <T>(r: Result<T>): T | undefined => {
    if (r.ok) return r.value;
    findings.push(...r.findings);
    return undefined;
  };
  const record = take(parseDocument(files.record, RecordSchema, files.recordFormat, 'record'));
  const credit = files.credit === null ? null : take(parseDocument(files.credit, CreditSchema, 'json', 'credit'));
  const freeze = files.freeze === null ? null : take(parseDocument(files.freeze, FreezeSchema, 'json', 'freeze'));
  let patch;
  if (files.patch instanceof Uint8Array) {
    const parsed = take(parseGitPatch(files.patch, 'patch'));
    if (parsed) patch = { parsed, sha256: sha256Hex(files.patch) };
  } else findings.push(files.patch);
  const results = files.results === null ? null : take(parseResults(files.results, LAYOUT.results));
  const status = take(parseRunnerLine(files.statusTxt, LAYOUT.status));
  const digest = take(parseRunnerLine(files.digestTxt, LAYOUT.digest));
  if (typeof digest === 'string' && !DIGEST_PATTERN.test(digest))
    findings.push({ code: 'E_INPUT_INVALID', path: LAYOUT.digest, detail: 'is not a lowercase hex digest' });
  if (
    findings.length > 0 ||
    record === undefined ||
    credit === undefined ||
    freeze === undefined ||
    patch === undefined ||
    status === undefined ||
    digest === undefined ||
    results === undefined
  ) {
    return fail(
      findings.length > 0 ? findings : [{ code: 'E_INPUT_INVALID', path: '', detail: 'an input could not be read' }],
    );
  }
  const surfaceFiles =
    files.surface ?? patch.parsed.files.map((file) => ({ oldPath: file.oldPath, newPath: file.newPath }));
  return ok({
    record,
    patchFiles: patch.parsed.files.map((file) => ({ path: pathOf(file), class: classifyFile(file, config) })),
    patchSha256: patch.sha256,
    surface: checkPolicySurface(surfaceFiles, { policyFiles: config.policyFiles, testCommand: config.test.command }),
    credit,
    freeze,
    results: results === null || files.results === null ? null : { value: results, sha256: sha256Hex(files.results) },
    runnerFiles: { status, digest },
    now,
    sandbox: config.sandbox,
  });
}

export interface GatePaths {
  readonly record: string;
  readonly credit: string;
  readonly freeze: string | undefined;
  readonly repo: string;
  /** The sealed run's results.json (default: results.json beside the credit file). */
  readonly results?: string;
  /** The revision the patch applies to, for the base side of mixed policy files (default HEAD). */
  readonly base?: string;
  /**
   * The record's bytes, when the caller has read them already (to find the base its policy
   * comes from): then they are what is judged, and the record is not read a second time, so
   * a record changed in between cannot be judged under the policy of another base.
   */
  readonly recordBytes?: Uint8Array;
}

const readOptional = (path: string, label: string): Uint8Array | null =>
  fileExists(path) ? readBoundedFile(path, MAX_INPUT_BYTES, label) : null;

const readOptionalSized = (path: string, max: number, label: string): Uint8Array | null =>
  fileExists(path) ? readBoundedFile(path, max, label) : null;

/** Read every gate input from disk; a credit file that does not exist means "no property run". */
export function readGateFiles(paths: GatePaths): GateFiles {
  const findings: Finding[] = [];
  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof SealgateError)) throw err;
      findings.push(...err.findings);
      return undefined;
    }
  };
  const record = paths.recordBytes ?? attempt(() => readBoundedFile(paths.record, MAX_INPUT_BYTES, 'record'));
  const credit = attempt(() => readOptional(paths.credit, 'credit'));
  const freeze =
    paths.freeze === undefined
      ? null
      : attempt(() => readBoundedFile(paths.freeze as string, MAX_INPUT_BYTES, 'freeze'));
  const digestTxt = attempt(() => readOptional(join(paths.repo, LAYOUT.digest), LAYOUT.digest));
  const statusTxt = attempt(() => readOptional(join(paths.repo, LAYOUT.status), LAYOUT.status));
  const results = attempt(() =>
    readOptionalSized(
      paths.results ?? join(dirname(paths.credit), 'results.json'),
      MAX_INPUT_BYTES * 8,
      LAYOUT.results,
    ),
  );
  // The patch path is inside the record: parse the record far enough to find it.
  let patch: Uint8Array | Finding = {
    code: 'E_INPUT_INVALID',
    path: 'patch',
    detail: 'not read: the record is invalid',
  };
  const format = formatFor(paths.record, 'json-or-yaml');
  const rec = record === undefined ? undefined : parseDocument(record, RecordSchema, format, 'record');
  if (rec?.ok) {
    try {
      patch = readBoundedFile(
        resolveInRepo(paths.repo, rec.value.patch_path, 'record#patch_path'),
        MAX_PATCH_BYTES,
        'patch',
      );
    } catch (err) {
      if (!(err instanceof SealgateError)) throw err;
      patch = err.findings[0] ?? patch;
    }
  }
  if (
    findings.length > 0 ||
    record === undefined ||
    credit === undefined ||
    freeze === undefined ||
    digestTxt === undefined ||
    statusTxt === undefined ||
    results === undefined
  ) {
    throw new SealgateError('E_INPUT_INVALID', findings);
  }
  // Only a patch that names a mixed policy file needs the base: gather both sides for the surface check.
  let surface: SurfaceFile[] | null = null;
  if (patch instanceof Uint8Array && namesMixedFile(patch)) {
    const parsed = parseGitPatch(patch, 'patch');
    if (parsed.ok) surface = readSurfaceFiles(paths.repo, paths.base ?? 'HEAD', parsed.value);
  }
  return { record, recordFormat: format, credit, freeze, patch, digestTxt, statusTxt, results, surface };
}

/** readGateFiles then parseGateFiles; throws a SealgateError listing every invalid input. */
export function readGateInputs(paths: GatePaths, config: Config, now: Instant): GateInputs {
  const r = parseGateFiles(readGateFiles(paths), config, now);
  if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
  return r.value;
}
