import type { Result } from '../core/result.js';
import { parseJestJson } from './jest.js';
import { parseJunitXml, type JunitCase } from './junit.js';

/**
 * One test report file to its cases, by the configured path's extension: `.json` is jest's
 * own `--json` report (src/runner/jest.ts), anything else JUnit XML (src/runner/junit.ts).
 */
export function parseTestReport(bytes: Uint8Array, path: string, roots: readonly string[]): Result<JunitCase[]> {
  return /\.json$/i.test(path) ? parseJestJson(bytes, path, { roots }) : parseJunitXml(bytes, path);
}
