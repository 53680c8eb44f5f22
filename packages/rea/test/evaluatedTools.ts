// Which tool definitions a `rea` command evaluated. The command line is two scripts (dist/cli.cjs, and
// dist/cli-extra.cjs read when first needed) whose modules are evaluated when first imported: V8's block
// coverage of a run (NODE_V8_COVERAGE) tells, for the code holding each tool's definition (a `title:`
// property of an object literal), whether it ran.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const bin = join(here, '..', 'dist', 'bin.cjs');
export const commandLine = join(here, '..', 'dist', 'cli.cjs');
/** The script holding the packages only some commands import (see scripts/postbuild.mjs). */
export const extraScript = join(here, '..', 'dist', 'cli-extra.cjs');

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

/** The script's coverage ranges in the run that wrote `coverage`, or null when the run did not load it. */
function scriptRanges(coverage: string, script: string): Range[] | null {
  const urls = new Set([script, pathToFileURL(script).href]);
  const ranges: Range[] = [];
  let found = false;
  for (const file of readdirSync(coverage)) {
    const report = JSON.parse(readFileSync(join(coverage, file), 'utf8')) as {
      result: Array<{ url: string; functions: Array<{ ranges: Range[] }> }>;
    };
    for (const entry of report.result) {
      if (!urls.has(entry.url)) continue;
      found = true;
      for (const fn of entry.functions) ranges.push(...fn.ranges);
    }
  }
  return found ? ranges : null;
}

/**
 * The tools (of `titles`: title → name) whose definition ran in the covered run: the innermost covered
 * range around the definition's `title:` (in dist/cli.cjs, or in dist/cli-extra.cjs, whose definitions
 * did not run when the run did not load it) has a count above zero. Throws when the run did not load
 * dist/cli.cjs, or when a title is not in the two scripts exactly once (the check would prove nothing).
 */
export function evaluatedTools(coverage: string, titles: ReadonlyMap<string, string>): string[] {
  const scripts = [commandLine, extraScript].map((path) => ({
    path,
    source: readFileSync(path, 'utf8'),
    ranges: scriptRanges(coverage, path),
  }));
  if (scripts[0]!.ranges === null) throw new Error(`the run did not load ${commandLine}`);
  const evaluated: string[] = [];
  for (const [title, name] of titles) {
    const literal = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const found = scripts.flatMap((script) =>
      [...script.source.matchAll(new RegExp(`\\btitle:\\s*["'\`]${literal}["'\`]`, 'g'))].map((m) => ({
        script,
        at: m.index,
      })),
    );
    if (found.length !== 1)
      throw new Error(`the title "${title}" is defined ${found.length} times in the command line`);
    const { script, at } = found[0]!;
    let innermost: Range | null = null;
    for (const range of script.ranges ?? [])
      if (range.startOffset <= at && at < range.endOffset)
        if (!innermost || range.endOffset - range.startOffset < innermost.endOffset - innermost.startOffset)
          innermost = range;
    if (innermost !== null && innermost.count > 0) evaluated.push(name);
  }
  return evaluated.sort();
}
