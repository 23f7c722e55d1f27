import { createRequire } from 'node:module';
import { MAX_DEPTH, type JsonValue } from './json.js';

type YamlModule = typeof import('yaml');
let yamlModule: YamlModule | undefined;
/** Loaded on first use: most runs read only JSON, and the YAML parser is the largest module on the gate's path. */
export function yaml(): YamlModule {
  yamlModule ??= createRequire(import.meta.url)('yaml') as YamlModule;
  return yamlModule;
}

export class YamlInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlInputError';
  }
}

/**
 * Strict YAML (1.2 core schema): errors and warnings are fatal, no aliases or anchors,
 * no tags, string keys only, no duplicate keys (our own O(n) check), one document,
 * and the result limited to JSON values.
 */
export function parseStrictYaml(text: string, maxDepth = MAX_DEPTH): JsonValue {
  const { isAlias, isMap, isScalar, isSeq, parseDocument, visit } = yaml();
  const doc = parseDocument(text, {
    schema: 'core',
    merge: false,
    uniqueKeys: false,
    strict: true,
    prettyErrors: true,
  });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) throw new YamlInputError(problems.map((p) => p.message.split('\n')[0]).join('; '));
  let problem: string | undefined;
  visit(doc, {
    Alias() {
      problem ??= 'aliases are not allowed';
      return visit.BREAK;
    },
    Node(_key, node) {
      if ('anchor' in node && node.anchor) {
        problem ??= 'anchors are not allowed';
        return visit.BREAK;
      }
      if ('tag' in node && node.tag) {
        problem ??= `tags are not allowed (${node.tag})`;
        return visit.BREAK;
      }
      return undefined;
    },
    Map(_key, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const k = pair.key;
        if (!isScalar(k) || typeof k.value !== 'string') {
          problem ??= 'keys must be plain strings';
          return visit.BREAK;
        }
        if (k.value === '__proto__') {
          problem ??= 'key "__proto__" is not allowed';
          return visit.BREAK;
        }
        if (seen.has(k.value)) {
          problem ??= `duplicate key "${k.value}"`;
          return visit.BREAK;
        }
        seen.add(k.value);
      }
      return undefined;
    },
  });
  if (problem) throw new YamlInputError(problem);
  const check = (node: unknown, depth: number): void => {
    if (depth > maxDepth) throw new YamlInputError(`nesting deeper than ${maxDepth}`);
    if (isMap(node)) for (const p of node.items) check(p.value, depth + 1);
    else if (isSeq(node)) for (const item of node.items) check(item, depth + 1);
    else if (isAlias(node)) throw new YamlInputError('aliases are not allowed');
  };
  check(doc.contents, 0);
  const value: unknown = doc.toJS({ maxAliasCount: 0 });
  return assertJsonValue(value);
}

function assertJsonValue(value: unknown): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new YamlInputError('non-finite number');
    return value;
  }
  if (Array.isArray(value)) return value.map(assertJsonValue);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = assertJsonValue(v);
    return out;
  }
  throw new YamlInputError(`unsupported YAML value of type ${typeof value}`);
}
