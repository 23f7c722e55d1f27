/**
 * Strict JSON: RFC 8259 syntax only, and on top of it no duplicate keys, no `__proto__`
 * keys, a nesting cap, and nothing after the value but whitespace. JSON.parse keeps the
 * last of two duplicate keys silently, which is how a second `"pass": true` slips in.
 */

export const MAX_DEPTH = 64;

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${message} at line ${line}, column ${column}`);
    this.name = 'JsonSyntaxError';
  }
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Strict JSON, fast: the value from JSON.parse (native; RFC 8259 syntax, the same whitespace,
 * escapes and number grammar), then one pass of a native regular expression over the tokens
 * that checks what JSON.parse does not: duplicate keys, `__proto__` keys, the nesting cap and
 * numbers out of range. Any problem, found by either, is reported by the reference parser
 * below, so the message (with its line and column) is the same; the reference parser also
 * decides any input the fast path has a doubt about. A property test checks that both give
 * the same value or the same error on every input.
 */
export function parseStrictJson(text: string, maxDepth = MAX_DEPTH): JsonValue {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return parseStrictJsonReference(text, maxDepth);
  }
  return tokensAreStrict(text, maxDepth) ? value : parseStrictJsonReference(text, maxDepth);
}

/** Strings (keys or values), structure, and numbers, in a text JSON.parse accepted. */
const TOKEN = /"(?:[^"\\]|\\.)*"|[{}[\]]|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
const SAFE_NUMBER = /^-?\d{1,15}(?:\.\d+)?$/;

/**
 * Whether a text that JSON.parse accepted has no duplicate or `__proto__` key, no nesting
 * deeper than maxDepth and no number out of range. In valid JSON the first `"` outside a
 * string opens one, so the global scan stays in step with the tokens; a string is a key when
 * the next character after whitespace is `:`.
 */
function tokensAreStrict(text: string, maxDepth: number): boolean {
  const stack: (Set<string> | null)[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const t = m[0];
    const c = t.charCodeAt(0);
    if (c === 34) {
      const top = stack[stack.length - 1];
      if (top === undefined || top === null) continue;
      let k = TOKEN.lastIndex;
      while (k < text.length) {
        const w = text.charCodeAt(k);
        if (w === 32 || w === 9 || w === 10 || w === 13) k++;
        else break;
      }
      if (text.charCodeAt(k) !== 58) continue; // a value, not a key
      const key = t.includes('\\') ? (JSON.parse(t) as string) : t.slice(1, -1);
      if (key === '__proto__' || top.has(key)) return false;
      top.add(key);
    } else if (c === 123 || c === 91) {
      if (stack.length >= maxDepth) return false;
      stack.push(c === 123 ? new Set<string>() : null);
    } else if (c === 125 || c === 93) stack.pop();
    else if (!SAFE_NUMBER.test(t) && !Number.isFinite(Number(t))) return false;
  }
  return true;
}

/** The reference parser: one character at a time, with the exact place of every problem. */
export function parseStrictJsonReference(text: string, maxDepth = MAX_DEPTH): JsonValue {
  let i = 0;
  const n = text.length;

  const fail = (message: string, at = i): never => {
    let line = 1;
    let col = 1;
    for (let k = 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    throw new JsonSyntaxError(message, at, line, col);
  };

  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };

  const str = (): string => {
    // text[i] === '"'
    i++;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= n) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 34) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('control character in string');
      if (c === 92) {
        out += text.slice(start, i);
        i++;
        if (i >= n) fail('unterminated escape');
        const e = text[i];
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            const hex = text.slice(i + 1, i + 5);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            fail('bad escape');
        }
        i++;
        start = i;
        continue;
      }
      i++;
    }
  };

  const num = (): number => {
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = i;
    const r = m.exec(text);
    if (!r) return fail('bad number');
    i += r[0].length;
    const v = Number(r[0]);
    if (!Number.isFinite(v)) fail('number out of range', i - r[0].length);
    return v;
  };

  const lit = (word: string, value: JsonValue): JsonValue => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail('unexpected token');
  };

  const value = (depth: number): JsonValue => {
    ws();
    if (i >= n) fail('unexpected end of input');
    const c = text[i];
    if (c === '{') {
      if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth}`);
      i++;
      const obj: Record<string, JsonValue> = {};
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a string key');
        const keyAt = i;
        const key = str();
        if (key === '__proto__') fail('key "__proto__" is not allowed', keyAt);
        if (seen.has(key)) fail(`duplicate key "${key}"`, keyAt);
        seen.add(key);
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        obj[key] = value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      if (depth >= maxDepth) fail(`nesting deeper than ${maxDepth}`);
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    if (c === 't') return lit('true', true);
    if (c === 'f') return lit('false', false);
    if (c === 'n') return lit('null', null);
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return num();
    return fail('unexpected token');
  };

  const result = value(0);
  ws();
  if (i !== n) fail('trailing content after the JSON value');
  return result;
}

/** Stable output for files sealgate writes: two-space indent and a final newline. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
