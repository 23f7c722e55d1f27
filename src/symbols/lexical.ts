// A quick lexical form of source text (comments and whitespace dropped, strings whole): equal forms go on to the token comparison.

const isSpace = (c: number) =>
  c === 0 || c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11 || c === 0xa0 || c === 0xfeff;

/** End of a quoted string starting at `i` (the quote), honouring backslash escapes. */
export function quoted(text: string, i: number, quote: string, multiline: boolean): number {
  let k = i + quote.length;
  while (k < text.length) {
    const c = text[k];
    if (c === '\\') {
      k += 2;
      continue;
    }
    if (text.startsWith(quote, k)) return k + quote.length;
    if (!multiline && c === '\n') return k;
    k++;
  }
  return k;
}

const isWord = (c: number) =>
  (c >= 97 && c <= 122) ||
  (c >= 65 && c <= 90) ||
  (c >= 48 && c <= 57) ||
  c === 95 ||
  c === 36 ||
  (c > 127 && c !== 0xa0 && c !== 0xfeff);

const REGEX_AFTER = new Set([
  '',
  '(',
  ',',
  '=',
  ':',
  '[',
  '!',
  '&',
  '|',
  '?',
  '{',
  '}',
  ';',
  '+',
  '-',
  '*',
  '%',
  '<',
  '>',
  '~',
  '^',
]);

/** Whether a `/` at `i` starts a regex rather than dividing (by the previous significant character or keyword). */
function regexAllowed(text: string, i: number, lastSig: string): boolean {
  if (REGEX_AFTER.has(lastSig)) return true;
  return (
    /\w/.test(lastSig) &&
    /(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)\s*$/.test(
      text.slice(Math.max(0, i - 16), i),
    )
  );
}

/** The end of a JS regex literal starting at `i` (after its flags), or -1 when the line holds none. */
function regexLiteralEnd(text: string, i: number): number {
  const n = text.length;
  let k = i + 1;
  let inClass = false;
  while (k < n && text[k] !== '\n') {
    const r = text[k];
    if (r === '\\') k++;
    else if (r === '[') inClass = true;
    else if (r === ']') inClass = false;
    else if (r === '/' && !inClass) break;
    k++;
  }
  if (text[k] !== '/') return -1;
  k++;
  while (k < n && /[a-z]/.test(text[k] ?? '')) k++;
  return k;
}

/** What a C-family language's text looks like to the lexical form: its strings and its comments. */
export interface CLexis {
  /** Block comments nest (Rust). */
  readonly nestedComments: boolean;
  /** A word of up to three letters before a quote or `#` may be a string's prefix (Rust's `r"`, `b'`, `r#"`). */
  readonly stringPrefixes: boolean;
  /** The end of the string or character literal that starts at `i`, or -1 where none does. */
  readonly stringEnd: (text: string, i: number) => number;
}

/** A C-family text's lexical form (Go, Java, Rust): `//` and `/* *\/` comments dropped, strings whole. */
export function lexicalForm(lexis: CLexis, text: string): string {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const ch = text[i] as string;
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    // Fast path: a run of identifier characters (unless it may be a string prefix such as r" or b').
    if (isWord(c)) {
      let k = i + 1;
      while (k < n && isWord(text.charCodeAt(k))) k++;
      const next = text[k];
      if (!(lexis.stringPrefixes && k - i <= 3 && (next === '"' || next === "'" || next === '#'))) {
        out.push(text.slice(i, k));
        i = k;
        continue;
      }
    }
    if (ch === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      if (lexis.nestedComments) {
        let nest = 0;
        while (i < n) {
          if (text.startsWith('/*', i)) {
            nest++;
            i += 2;
          } else if (text.startsWith('*/', i)) {
            nest--;
            i += 2;
            if (nest === 0) break;
          } else i++;
        }
      } else {
        const end = text.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
      }
      continue;
    }
    // String literals, kept whole.
    const end = lexis.stringEnd(text, i);
    if (end > i) {
      out.push(text.slice(i, end));
      i = end;
      continue;
    }
    out.push(ch);
    i++;
  }
  return out.join('');
}

export interface LexicalForm {
  readonly form: string;
  /** Equal exact forms prove equal token sequences, so no tree walk is needed. */
  readonly exact: boolean;
}

const PY_STRING = /^[rRbBuUfF]{0,3}("""|'''|"|')/;

/**
 * Python's token stream in the manner of its own tokenizer: comments dropped, NEWLINE, INDENT and
 * DEDENT from the logical lines and the indentation stack, a space only where two names or numbers
 * would run together, docstrings dropped. Not exact when an f-string holds a replacement field or
 * the indentation is inconsistent. `startColumn`: the column the text starts at in its file.
 */
export function pythonLexicalForm(
  text: string,
  options: { docstringChanges: boolean; startColumn: number },
): LexicalForm {
  const out: string[] = [];
  const n = text.length;
  const stack = [options.startColumn];
  let exact = true;
  let i = 0;
  let depth = 0;
  let atLineStart = true;
  let col = options.startColumn;
  let lineHasContent = false;
  let docSlot = true;
  let docFrom = -1;
  let lastWord = false;
  let gap = false;
  const endLine = (): void => {
    if (lineHasContent) {
      if (docFrom >= 0) out.length = docFrom;
      else out.push('\u0002;');
    }
    lineHasContent = false;
    docFrom = -1;
    lastWord = false;
  };
  /** Called before the first lexeme of a logical line: indentation, then the docstring slot. */
  const startLine = (isString: boolean): void => {
    const top = stack[stack.length - 1] as number;
    if (col > top) {
      stack.push(col);
      out.push('\u0002>');
      docSlot = true;
    } else if (col < top) {
      while (stack.length > 1 && col < (stack[stack.length - 1] as number)) {
        stack.pop();
        out.push('\u0002<');
      }
      if (col !== stack[stack.length - 1]) exact = false;
      docSlot = false;
    }
    docFrom = docSlot && isString && !options.docstringChanges ? out.length : -1;
    docSlot = false;
    atLineStart = false;
    lineHasContent = true;
  };
  /** `startsWord`/`endsWord`: whether the lexeme begins or ends with a name character (a separator may matter). */
  const emit = (lexeme: string, startsWord: boolean, endsWord: boolean, isString: boolean): void => {
    if (atLineStart && depth === 0) startLine(isString);
    else if (!isString) docFrom = -1;
    if (startsWord && lastWord && gap) out.push(' ');
    out.push(lexeme);
    lastWord = endsWord;
    gap = false;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    const ch = text[i] as string;
    if (c === 10 || c === 13) {
      // A physical line ends; at depth 0 it also ends the logical line.
      if (depth === 0) {
        endLine();
        atLineStart = true;
        col = 0;
      }
      gap = true;
      i++;
      continue;
    }
    if (c === 32 || c === 9 || c === 12 || c === 0) {
      if (atLineStart && depth === 0) col = c === 9 ? (Math.floor(col / 8) + 1) * 8 : c === 32 ? col + 1 : col;
      gap = true;
      i++;
      continue;
    }
    if (ch === '\\' && (text[i + 1] === '\n' || text[i + 1] === '\r')) {
      i += text[i + 1] === '\r' && text[i + 2] === '\n' ? 3 : 2;
      gap = true;
      continue;
    }
    if (ch === '#') {
      while (i < n && text[i] !== '\n' && text[i] !== '\r') i++;
      gap = true;
      continue;
    }
    const word = isWord(c);
    if (word) {
      let k = i + 1;
      while (k < n && isWord(text.charCodeAt(k))) k++;
      // A string prefix (r, b, f, rb...) is a short word followed by a quote.
      const next = text.charCodeAt(k);
      const m = k - i <= 3 && (next === 34 || next === 39) ? PY_STRING.exec(text.slice(i, i + 6)) : null;
      if (!m) {
        emit(text.slice(i, k), true, true, false);
        i = k;
        continue;
      }
    }
    // Only a quote, or a prefix found just above, can start a string.
    const m = word || c === 34 || c === 39 ? PY_STRING.exec(text.slice(i, i + 6)) : null;
    if (m) {
      const q = m[1] as string;
      const end = quoted(text, i + m[0].length - q.length, q, q.length === 3);
      const lit = text.slice(i, end);
      if (/[fF]/.test(m[0].slice(0, m[0].length - q.length)) && lit.includes('{')) exact = false;
      emit(lit, m[0].length > q.length, false, true);
      i = end;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') {
      emit(ch, false, false, false);
      depth++;
    } else if (ch === ')' || ch === ']' || ch === '}') {
      if (depth > 0) depth--;
      emit(ch, false, false, false);
    } else emit(ch, false, false, false);
    i++;
  }
  endLine();
  for (let k = stack.length; k > 1; k--) out.push('\u0002<');
  return { form: out.join(''), exact };
}

/** Characters that can run together into one operator token: a space between two of them is kept. */
const MERGING = new Set(['+', '-', '*', '/', '%', '<', '>', '=', '!', '&', '|', '^', '?', '.', ':']);
/**
 * Places where a newline is a token for JavaScript (automatic semicolon insertion after
 * return/throw/break/continue/yield, around ++ and --): the lexical form cannot prove
 * equality there.
 */
const ASI_HAZARD =
  /\b(?:return|throw|break|continue|yield)[ \t]*(?:\/\/[^\n]*|\/\*[^\n]*?\*\/[ \t]*)?\r?\n|(?:\+\+|--)[ \t]*\r?\n|\n[ \t]*(?:\+\+|--)/;

/**
 * TypeScript and JavaScript: comments dropped, strings whole (quote style normalised as in
 * the token comparison), a space kept only between two names or two operator characters.
 * Exact unless the text holds a template literal, a regex, something that may be JSX
 * (in files that allow it) or a newline that automatic semicolon insertion reads.
 */
export function scriptLexicalForm(text: string, jsx: boolean): LexicalForm {
  const out: string[] = [];
  const n = text.length;
  let exact = !ASI_HAZARD.test(text);
  let i = 0;
  let lastSig = '';
  let lastKind = 0; // 0 other, 1 name, 2 operator character
  let gap = false;
  const push = (lexeme: string, first: number, last: number): void => {
    if (gap && first !== 0 && first === lastKind) out.push(' ');
    out.push(lexeme);
    lastKind = last;
    gap = false;
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    const ch = text[i] as string;
    if (isSpace(c)) {
      gap = true;
      i++;
      continue;
    }
    if (ch === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
      gap = true;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      gap = true;
      continue;
    }
    if (isWord(c)) {
      let k = i + 1;
      while (k < n && isWord(text.charCodeAt(k))) k++;
      push(text.slice(i, k), 1, 1);
      lastSig = text[k - 1] as string;
      i = k;
      continue;
    }
    if (ch === '`') {
      exact = false;
      const end = quoted(text, i, '`', true);
      push(text.slice(i, end), 0, 0);
      lastSig = '"';
      i = end;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const end = quoted(text, i, ch, false);
      let lit = text.slice(i, end);
      if (ch === "'" && !lit.includes('\\') && !lit.slice(1, -1).includes('"')) lit = `"${lit.slice(1, -1)}"`;
      push(lit, 0, 0);
      lastSig = '"';
      i = end;
      continue;
    }
    if (ch === '/' && regexAllowed(text, i, lastSig)) {
      const k = regexLiteralEnd(text, i);
      if (k > 0) {
        exact = false;
        push(text.slice(i, k), 0, 0);
        lastSig = '/';
        i = k;
        continue;
      }
    }
    // `<` after something that cannot end an operand (`(`, `=`, `return`) may open JSX, whose text keeps its spaces.
    if (jsx && ch === '<' && /[A-Za-z>]/.test(text[i + 1] ?? '') && !/[\w$)\]]/.test(lastSig)) exact = false;
    if (
      jsx &&
      ch === '<' &&
      /[A-Za-z>]/.test(text[i + 1] ?? '') &&
      /(?:^|[^\w$])(?:return|yield|await|case|default|in|of)$/.test(text.slice(Math.max(0, i - 12), i).trimEnd())
    )
      exact = false;
    const kind = MERGING.has(ch) ? 2 : 0;
    push(ch, kind, kind);
    lastSig = ch;
    i++;
  }
  return { form: out.join(''), exact };
}
