// One parse in this process: node parseOne.mjs <parser> <file>. Prints {ms, peakRssMb, statements}.
// The file is read before the clock starts; the parser module is loaded before it too.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { resourceUsage } from 'node:process';

const [parser, file] = process.argv.slice(2);
const source = readFileSync(file, 'utf8');
const module = file.endsWith('.mjs');

let parse;
if (parser === 'oxc-parser') {
  const { parseSync } = await import('oxc-parser');
  parse = () => {
    const result = parseSync(file, source, { sourceType: module ? 'module' : 'script' });
    if (result.errors.length > 0 && result.program.body.length === 0) throw new Error(result.errors[0].message);
    return result.program;
  };
} else if (parser === 'meriyah') {
  const { parse: meriyah } = await import('meriyah');
  parse = () => meriyah(source, { module, next: true, loc: true, ranges: true });
} else {
  const { parse: acorn } = await import('acorn');
  parse = () => acorn(source, { ecmaVersion: 'latest', sourceType: module ? 'module' : 'script', locations: true });
}

const start = performance.now();
const program = parse();
const ms = performance.now() - start;
// maxRSS is reported in kilobytes.
const peakRssMb = resourceUsage().maxRSS / 1024;
process.stdout.write(JSON.stringify({ ms, peakRssMb, statements: program.body.length }));
