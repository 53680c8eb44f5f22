// Which tool definitions a `rea` command evaluated. The command line is one script (dist/cli.cjs) whose
// modules are evaluated when first imported: V8's block coverage of a run (NODE_V8_COVERAGE) tells, for
// the code holding each tool's definition (a `title:` property of an object literal), whether it ran.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const bin = join(here, '..', 'dist', 'bin.cjs');
export const commandLine = join(here, '..', 'dist', 'cli.cjs');

interface Range {
  startOffset: number;
  endOffset: number;
  count: number;
}

/**
 * Runs `rea <args>` with V8 coverage written to `coverage` (a fresh directory), compiling the command
 * line from source (coverage counts need code compiled for it, not the code cache).
 */
export function runCovered(
  args: readonly string[],
  coverage: string,
): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, NODE_V8_COVERAGE: coverage, REA_CODE_CACHE: 'off' },
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/** The command line's coverage ranges in the run that wrote `coverage`; throws when it did not load it. */
function commandLineRanges(coverage: string): Range[] {
  const urls = new Set([commandLine, pathToFileURL(commandLine).href]);
  const ranges: Range[] = [];
  let found = false;
  for (const file of readdirSync(coverage)) {
    const report = JSON.parse(readFileSync(join(coverage, file), 'utf8')) as {
      result: Array<{ url: string; functions: Array<{ ranges: Range[] }> }>;
    };
    for (const script of report.result) {
      if (!urls.has(script.url)) continue;
      found = true;
      for (const fn of script.functions) ranges.push(...fn.ranges);
    }
  }
  if (!found) throw new Error(`the run did not load ${commandLine}`);
  return ranges;
}

/**
 * The tools (of `titles`: title → name) whose definition in dist/cli.cjs ran in the covered run: the
 * innermost covered range around the definition's `title:` has a count above zero. Throws when a title
 * is not in the bundle exactly once (the check would prove nothing).
 */
export function evaluatedTools(coverage: string, titles: ReadonlyMap<string, string>): string[] {
  const source = readFileSync(commandLine, 'utf8');
  const ranges = commandLineRanges(coverage);
  const evaluated: string[] = [];
  for (const [title, name] of titles) {
    const literal = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const at = [...source.matchAll(new RegExp(`\\btitle:\\s*["'\`]${literal}["'\`]`, 'g'))].map((m) => m.index);
    if (at.length !== 1) throw new Error(`the title "${title}" is defined ${at.length} times in ${commandLine}`);
    let innermost: Range | null = null;
    for (const range of ranges)
      if (range.startOffset <= at[0]! && at[0]! < range.endOffset)
        if (!innermost || range.endOffset - range.startOffset < innermost.endOffset - innermost.startOffset)
          innermost = range;
    if (innermost !== null && innermost.count > 0) evaluated.push(name);
  }
  return evaluated.sort();
}
