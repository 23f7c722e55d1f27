// Whether Python texts compile, in one isolated interpreter: the validity check of Python mutants.
import { execFile } from 'node:child_process';

/**
 * Whether Python texts compile (`compile()`, nothing run), in one isolated interpreter (`-I -S`:
 * no site, no user paths, no environment). Null per text when it compiles, else the error;
 * every entry null when no interpreter is there (the parse check still ran). A child process
 * the event loop waits on: the runs the oracle has started go on meanwhile.
 */
export function checkPyCompiles(
  items: readonly { readonly path: string; readonly text: string }[],
  python = 'python3',
): Promise<(string | null)[]> {
  if (items.length === 0) return Promise.resolve([]);
  const script = [
    'import sys, json',
    'out = []',
    'for p, t in json.load(sys.stdin):',
    '    try:',
    '        compile(t, p, "exec", dont_inherit=True)',
    '        out.append(None)',
    '    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as e:',
    '        out.append(type(e).__name__ + ": " + str(getattr(e, "msg", e))[:200] + (" (line %s)" % e.lineno if getattr(e, "lineno", None) else ""))',
    'sys.stdout.write(json.dumps(out))',
  ].join('\n');
  const none = (): (string | null)[] => items.map(() => null);
  return new Promise((resolvePromise) => {
    execFile(
      python,
      ['-I', '-S', '-c', script],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        cwd: '/',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 60_000,
      },
      (err, stdout) => {
        if (err) return resolvePromise(none());
        try {
          const v = JSON.parse(stdout) as unknown;
          if (Array.isArray(v) && v.length === items.length && v.every((x) => x === null || typeof x === 'string'))
            return resolvePromise(v as (string | null)[]);
        } catch {
          /* an answer we cannot read: no opinion */
        }
        resolvePromise(none());
      },
    )
      .on('error', () => resolvePromise(none()))
      .stdin?.on('error', () => undefined)
      .end(JSON.stringify(items.map((i) => [i.path, i.text])));
  });
}
