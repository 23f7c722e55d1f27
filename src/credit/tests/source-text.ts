// Tests that read the text of a production file: they tell its bytes apart, not its behaviour.
import { escapeRegExp } from '../../core/text.js';

/** Module specifiers (imports, requires, mocks): they name production files without reading them. */
const SPECIFIERS = [
  /\b(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])[^'"\n]*\1/g,
  /\bimport\s*(['"])[^'"\n]*\1/g,
  /\b(?:import|require)\s*\(\s*(['"`])[^'"`\n]*\1/g,
  /\b(?:jest|vi)\s*\.\s*(?:mock|doMock|unmock|unstable_mockModule|requireActual|importActual|requireMock|importMock)\s*\(\s*(['"`])[^'"`\n]*\1/g,
];
/** A call that reads a file's bytes or text (Node's fs, Python's open and pathlib). */
const READ_CALL = /\b(?:readFileSync|readFile|createReadStream|openSync|openAsBlob|read_text|read_bytes|open)\s*\(/;

/**
 * Why a test file reads the text of one of the patch's production files, or null: it calls a
 * file-reading function and names one of them at the end of a quoted string outside its imports
 * and mocks. Such a test tells the file's bytes apart, not its behaviour, so none of its tests
 * earns anything. Textual and static: a name built at run time gets past it.
 */
export function readsProductionSource(text: string, productionFiles: readonly string[]): string | null {
  let code = text;
  for (const re of SPECIFIERS) code = code.replace(re, '');
  if (!READ_CALL.test(code)) return null;
  for (const f of [...new Set(productionFiles)].sort()) {
    const name = f.split('/').pop() ?? '';
    if (name === '') continue;
    for (const [spelling, before] of namesOf(name)) {
      if (new RegExp(`${before}${escapeRegExp(spelling)}['"\`]`).test(code))
        return `its file reads the text of ${f}, a production file of the patch (a file-reading call and "${spelling}" in a string)`;
    }
  }
  return null;
}

/** Import spellings that resolve to a TS/JS file of another extension (`./pricing.js` is src/pricing.ts under TypeScript's resolution). */
const SPELT_AS: Readonly<Record<string, readonly string[]>> = {
  '.ts': ['.js'],
  '.tsx': ['.js', '.jsx'],
  '.mts': ['.mjs'],
  '.cts': ['.cjs'],
};

/**
 * The names a string may give a production file by, each with what must come before it: its own
 * name; for a TS/JS file also the spelling an import uses (`pricing.js` for pricing.ts) and its
 * name without an extension at the end of a relative module path (`'../src/pricing'`).
 */
function namesOf(name: string): [string, string][] {
  const quoteOrSlash = '[\'"`/\\\\]';
  const out: [string, string][] = [[name, quoteOrSlash]];
  const m = /^(.+)(\.(?:[cm]?[jt]sx?))$/.exec(name);
  if (m === null) return out;
  const [, stem, ext] = m as unknown as [string, string, string];
  for (const alt of SPELT_AS[ext] ?? []) out.push([stem + alt, quoteOrSlash]);
  if (/^\.[jt]sx?$/.test(ext)) out.push([stem, '[\'"`]\\.{1,2}[/\\\\](?:[^\'"`\\n]*[/\\\\])?']);
  return out;
}
