// The runner's symbols step: the production symbols the record's patch changes, on the runner's tree.
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config/schema.js';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { readBoundedFile, resolveInRepo, writeFileAtomic } from '../core/io.js';
import { toJsonText } from '../core/json.js';
import { LAYOUT } from '../core/layout.js';
import { readRecordFile } from '../record/file.js';
import { extractChanged } from './extract.js';
import type { Changed } from './schema.js';

/** Patches can be large; refuse anything past this. */
export const MAX_PATCH_BYTES = 256 * 1024 * 1024;

export interface RecordSymbolsRequest {
  /** The repository root. */
  readonly repo: string;
  readonly config: Config;
  /** The runner's tree, built from the record's base commit and patch. */
  readonly tree: { readonly treeId: string; readonly baseCommit: string; readonly patchSha256: string };
  /** The tree id the seal recorded (seal.json), or null before the seal. */
  readonly sealedTree: string | null;
  /** The record, relative to the repository (default review/proposal.json). */
  readonly record?: string | undefined;
  /** Parse workers (default: this thread and, given a second core, one worker thread; docs/symbols.md). */
  readonly workers?: number;
}

/**
 * The changed symbols of the record's patch (checked against patch_sha256) on the record's base
 * commit. Once sealed, the tree must be the sealed one (else E_DIGEST_OPEN), and the patch must
 * not change while it is read.
 */
export async function extractRecordSymbols(req: RecordSymbolsRequest): Promise<Changed> {
  const { repo, tree } = req;
  if (req.sealedTree !== null && req.sealedTree !== tree.treeId) {
    throw new SealgateError('E_DIGEST_OPEN', [
      {
        code: 'E_DIGEST_OPEN',
        path: `${LAYOUT.sealParams}#tree`,
        detail: `the seal is of tree ${req.sealedTree}, the record's base and patch give ${tree.treeId}`,
      },
    ]);
  }
  const recordRel = req.record ?? LAYOUT.record;
  const patchBytes = readBoundedFile(
    resolveInRepo(repo, readRecordFile(resolve(repo, recordRel), recordRel).record.patch_path, 'record#patch_path'),
    MAX_PATCH_BYTES,
    'patch',
  );
  const changed = await extractChanged({
    repo,
    patchBytes,
    base: tree.baseCommit,
    config: req.config,
    label: 'patch',
    workers: req.workers ?? Math.min(2, availableParallelism()),
  });
  if (changed.patch_sha256 !== tree.patchSha256)
    throw inputInvalid('patch', 'the patch changed while the symbols were read');
  return changed;
}

/** Write changed.json (its folder made if absent). */
export function writeChangedFile(path: string, changed: Changed): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, toJsonText(changed));
}
