// Names a mutant leaves unbound: a mutant that takes away a name the file still uses is no valid program.

/** What a language tells of names: those a file declares, and those of `wanted` a text refers to. */
export interface NameRules {
  /**
   * The names a file declares, or null where it does not parse: those of its top-level
   * statements, and as `Class.member` those of each top-level class (its methods, its
   * class-level fields, and the attributes its code sets on `self` or `this`).
   */
  readonly topLevel: (path: string, text: string) => Promise<Set<string> | null>;
  /** The names of `wanted` that `text` refers to as values, and its `Class.member`s used as members inside that class. */
  readonly references: (path: string, text: string, wanted: ReadonlySet<string>) => Promise<Set<string>>;
}

/** At most this many lost names are named in a reason. */
const SHOWN = 3;

const reason = (lost: readonly string[]): string =>
  `it refers to ${lost.slice(0, SHOWN).join(', ')}${lost.length > SHOWN ? ` and ${lost.length - SHOWN} more` : ''}, which the file no longer declares at its top level or in its class (a ReferenceError, NameError or AttributeError where that code runs, not a behaviour)`;

/**
 * Why `mutated` is not a valid program for want of a name, or null: a name of `declared` (the
 * names of the base and the patched file) that `mutated` no longer declares but still refers
 * to: a top-level name by itself, a member of a class as `self.x` or `this.x` inside that
 * class. A local declaration of the same name is not told apart (no scope analysis): the mutant
 * is discarded all the same, which only ever loses a mutant.
 */
export async function findLostNames(
  names: NameRules,
  path: string,
  declared: ReadonlySet<string>,
  mutated: string,
): Promise<string | null> {
  const now = await names.topLevel(path, mutated);
  if (now === null) return null;
  const gone = new Set([...declared].filter((n) => !now.has(n)));
  if (gone.size === 0) return null;
  const lost = [...(await names.references(path, mutated, gone))].sort();
  return lost.length > 0 ? reason(lost) : null;
}
