// The schema of changed.json: the patch's files, its changed symbols and where each sits.
import * as v from 'valibot';
import { identifier, sha256, uniqueStrings } from '../core/fields.js';

export const FILE_STATUSES = ['added', 'deleted', 'modified', 'renamed', 'copied', 'mode-only', 'binary'] as const;
export const FILE_CLASSES = ['production', 'test', 'ignored', 'other'] as const;

const line = v.pipe(v.number(), v.integer('must be a whole number'), v.minValue(1, 'lines are 1-based'));

const LineRangeSchema = v.pipe(
  v.tuple([line, line]),
  v.check(([a, b]) => a <= b, 'a line range must not end before it starts'),
);

export const ChangedFileSchema = v.strictObject({
  path: identifier,
  old_path: v.nullable(identifier),
  status: v.picklist(FILE_STATUSES),
  class: v.picklist(FILE_CLASSES),
  language: v.nullable(identifier),
});

export const LocationSchema = v.pipe(
  v.strictObject({
    path: identifier,
    language: identifier,
    start_line: line,
    end_line: line,
    changed_lines: v.array(LineRangeSchema),
  }),
  v.check((l) => l.start_line <= l.end_line, 'end_line is before start_line'),
  v.check(
    (l) => l.changed_lines.every(([a, b]) => a >= l.start_line && b <= l.end_line),
    'changed_lines fall outside the symbol',
  ),
);

/** A symbol id: `path::Qualified.name`. */
const symbolId = v.pipe(identifier, v.regex(/^[^:]+(?::[^:]+)*::.+$/, 'symbol ids are path::Qualified.name'));

/** review/runner/changed.json: what the patch changes, symbol by symbol. */
export const ChangedSchema = v.pipe(
  v.strictObject({
    base: v.pipe(v.string(), v.regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, 'base is a full commit id')),
    patch_sha256: sha256,
    files: v.array(ChangedFileSchema),
    changed: uniqueStrings(symbolId, 'changed symbols'),
    moved: v.array(v.strictObject({ from: symbolId, to: symbolId })),
    deleted: uniqueStrings(symbolId, 'deleted symbols'),
    typeOnly: uniqueStrings(symbolId, 'type-only symbols'),
    uncreditable: uniqueStrings(identifier, 'uncreditable files'),
    locations: v.record(symbolId, LocationSchema),
    /** Test-pattern files that production code imports: classed production, their symbols need credit. */
    imported_tests: v.optional(v.array(v.strictObject({ path: identifier, imported_by: identifier }))),
  }),
  v.check((c) => new Set(c.files.map((f) => f.path)).size === c.files.length, 'a file appears twice in files'),
  v.check((c) => c.changed.every((id) => Object.hasOwn(c.locations, id)), 'every changed symbol needs a location'),
  v.check(
    (c) => Object.keys(c.locations).every((id) => c.changed.includes(id)),
    'locations name a symbol that is not changed',
  ),
  v.check(
    (c) => c.uncreditable.every((p) => c.files.some((f) => f.path === p && f.class === 'other')),
    'uncreditable lists a file that is not of class other',
  ),
);

export type ChangedFile = v.InferOutput<typeof ChangedFileSchema>;
export type SymbolLocation = v.InferOutput<typeof LocationSchema>;
export type Changed = v.InferOutput<typeof ChangedSchema>;
