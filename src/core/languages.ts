// The source languages sealgate reads, as one closed list: every per-language registry is keyed by it.

export const SOURCE_LANGUAGES = ['typescript', 'javascript', 'python', 'go', 'java', 'rust'] as const;
export type SourceLanguage = (typeof SOURCE_LANGUAGES)[number];

export const isSourceLanguage = (x: string): x is SourceLanguage => (SOURCE_LANGUAGES as readonly string[]).includes(x);

/** Languages whose symbols sealgate can extract, by file extension; anything else is class `other`. */
const LANGUAGES: Readonly<Record<string, SourceLanguage>> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  go: 'go',
  java: 'java',
  rs: 'rust',
};

export function languageOf(path: string): SourceLanguage | null {
  const m = /\.([A-Za-z0-9]+)$/.exec(path);
  return (m?.[1] !== undefined ? LANGUAGES[m[1].toLowerCase()] : undefined) ?? null;
}
