// Hostile nesting against each parser, one process per case: does a deep input end in a catchable
// error, or does it take the process down? Usage: node bench/javascript/hostile.mjs
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CASES = ['paren', 'plus', 'fn', 'arr'];
const DEPTHS = [5_000, 100_000];
const self = fileURLToPath(import.meta.url);

if (process.argv[2] === '--one') {
  const [, , , parser, kind, n] = process.argv;
  const count = Number(n);
  const source = {
    paren: `x = ${'('.repeat(count)}1${')'.repeat(count)}`,
    plus: `x = 1${'+1'.repeat(count)}`,
    fn: `${'function f(){'.repeat(count)}${'}'.repeat(count)}`,
    arr: `x = ${'['.repeat(count)}${']'.repeat(count)}`,
  }[kind];
  try {
    if (parser === 'oxc-parser') (await import('oxc-parser')).parseSync('x.js', source, {});
    else if (parser === 'meriyah') (await import('meriyah')).parse(source, { ranges: true, loc: true });
    else (await import('acorn')).parse(source, { ecmaVersion: 'latest', locations: true });
    console.log('parsed');
  } catch (error) {
    console.log(`threw ${error.constructor.name}`);
  }
} else {
  console.log('| parser | input | depth | outcome |');
  console.log('|---|---|---|---|');
  for (const parser of ['oxc-parser', 'meriyah', 'acorn']) {
    for (const kind of CASES) {
      for (const depth of DEPTHS) {
        const child = spawnSync(process.execPath, [self, '--one', parser, kind, String(depth)], { encoding: 'utf8' });
        const outcome =
          child.status === 0 ? child.stdout.trim() : `process died (${child.signal ?? `exit ${child.status}`})`;
        console.log(`| ${parser} | ${kind} | ${depth} | ${outcome} |`);
      }
    }
  }
}
