// npm run bench [name ...]: runs scripts/bench/<name>.mjs (all of them by default). Each
// benchmark measures sealgate against a baseline in the same run and prints the ratio.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = new URL('./bench/', import.meta.url);
const all = readdirSync(fileURLToPath(dir))
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => f.slice(0, -4))
  .sort();
const wanted = process.argv.slice(2);
for (const w of wanted) if (!all.includes(w)) throw new Error(`no benchmark "${w}"; have: ${all.join(', ')}`);
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n== ${name} ==`);
  const mod = await import(new URL(`${name}.mjs`, dir).href);
  await mod.run();
}
