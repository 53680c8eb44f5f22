// Issue 22: the command line is two scripts. dist/cli.cjs holds what every command uses; the Android,
// browser, LLDB and JavaScript providers and the MCP server are in dist/cli-extra.cjs, which a command
// reads only when it first imports one of them, taking every module the first script holds from it (one
// zod, one @rea/evidence). Checked on the build: what each script holds, that a native analysis never
// reads the second, that a command using it works across the two (errors typed by the other script's
// @rea/evidence keep their codes), and that each script keeps its own code cache.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const dist = join(here, '..', 'dist');
const bin = join(dist, 'bin.cjs');
const work = mkdtempSync(join(tmpdir(), 'rea-command-line-extra-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function rea(binary: string, args: readonly string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [binary, ...args], {
    encoding: 'utf8',
    env: { ...process.env, REA_CODE_CACHE: 'off', ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A program of this machine to analyze (a native binary every Debian system has). */
const native = ['/usr/bin/true', '/bin/true'].find((path) => existsSync(path))!;
const script = join(work, 'app.mjs');
writeFileSync(script, 'export function greet(name) { return `hello ${name}`; }\nconsole.log(greet("x"));\n');

describe('the command line in two scripts', () => {
  it('should hold the extra packages in dist/cli-extra.cjs alone, and zod in dist/cli.cjs alone', () => {
    const main = readFileSync(join(dist, 'cli.cjs'), 'latin1');
    const extra = readFileSync(join(dist, 'cli-extra.cjs'), 'latin1');
    // Strings only each package's code holds: the MCP server's session header, a DevTools method the
    // browser provider calls, the LLDB provider's debugger API, the JavaScript parser's error message.
    for (const marker of ['mcp-session-id', 'Runtime.evaluate', 'SBDebugger', 'Unterminated template']) {
      expect({ marker, main: main.includes(marker) }).toEqual({ marker, main: false });
      expect({ marker, extra: extra.includes(marker) }).toEqual({ marker, extra: true });
    }
    // zod's parse error class is defined once, in the first script; the second requires it from there.
    expect(main).toContain('$ZodError');
    expect(extra).not.toContain('$ZodError');
    expect(statSync(join(dist, 'cli.cjs')).size).toBeLessThan(1.2 * 1024 * 1024);
  });

  it('should analyze a native binary without dist/cli-extra.cjs, and say what is missing when a command needs it', () => {
    // A copy of the installation without the second script.
    const copy = join(work, 'copy');
    const made = spawnSync(process.execPath, [join(root, 'bench', 'cli', 'baseline.mjs'), copy], { encoding: 'utf8' });
    expect(made.status).toBe(0);
    rmSync(join(copy, 'dist', 'cli-extra.cjs'));
    const copied = join(copy, 'dist', 'bin.cjs');
    const analysis = rea(copied, ['analyze', native, '--format', 'json', '--quiet']);
    expect({ code: analysis.code, stderr: analysis.stderr }).toEqual({ code: 0, stderr: '' });
    const operations = (JSON.parse(analysis.stdout) as { records: Array<{ operation: string }> }).records.map(
      (r) => r.operation,
    );
    expect(operations).toEqual(['inspect_binary_layout', 'inspect_artifact', 'binary_overview']);
    // The same copy cannot analyze JavaScript: the error says which file is missing and what to do.
    const js = rea(copied, ['analyze', script, '--quiet']);
    expect(js.code).not.toBe(0);
    expect(js.stderr).toContain(`${join(copy, 'dist', 'cli-extra.cjs')} could not be loaded`);
    expect(js.stderr).toContain('Reinstall REA');
    expect(js.stderr).not.toMatch(/\n\s+at /);
    // Another build's second script (its stamp differs) is refused the same way, not run.
    const extra = readFileSync(join(dist, 'cli-extra.cjs'), 'latin1');
    writeFileSync(
      join(copy, 'dist', 'cli-extra.cjs'),
      extra.replace(/\/\/! rea-bundle [0-9a-f]{64}\n?$/, `//! rea-bundle ${'0'.repeat(64)}\n`),
      'latin1',
    );
    const other = rea(copied, ['analyze', script, '--quiet']);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain('is not the script the command line was built with');
    expect(other.stderr).toContain('Reinstall REA');
  });

  it('should run the extra packages with the first script’s modules: Evidence, and errors typed across the two', () => {
    const js = rea(bin, ['analyze', script, '--format', 'json', '--quiet']);
    expect({ code: js.code, stderr: js.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(js.stdout) as { steps: Array<{ tool: string; note: string | null }> };
    expect(report.steps.map((s) => [s.tool, s.note])).toEqual([
      ['inspect_artifact', null],
      ['analyze_javascript_application', null],
    ]);
    // An Android inspection of a file that is no package: the provider's ReaError (made by the extra
    // script's code with the first script's @rea/evidence) keeps its code and exit status (10).
    const notApk = join(work, 'not-an.apk');
    writeFileSync(notApk, 'not a zip\n');
    const android = rea(bin, ['inspect-android-package', notApk, '--quiet']);
    expect(android.code).toBe(10);
    expect(android.stderr).toMatch(/error \[unsupported_target\]/);
  });

  it('should keep a code cache for each script a command uses, and use both the next time', () => {
    const cache = join(work, 'cache');
    const env = { REA_CODE_CACHE: 'on', REA_CODE_CACHE_DIR: cache };
    expect(rea(bin, ['analyze', script, '--format', 'json', '--quiet'], env).code).toBe(0);
    const names = readdirSync(cache).sort();
    // One for each script, both named for the command.
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^cli-[0-9a-f]{16}-[0-9a-f]{8}-analyze-node/);
    const before = names.map((name) => statSync(join(cache, name)).mtimeMs);
    expect(rea(bin, ['analyze', script, '--format', 'json', '--quiet'], env).code).toBe(0);
    // Both were taken as they were: neither was written again.
    expect(readdirSync(cache).sort()).toEqual(names);
    expect(names.map((name) => statSync(join(cache, name)).mtimeMs)).toEqual(before);
    // A native analysis reads only the first script, with the command's cache as it is.
    expect(rea(bin, ['analyze', native, '--format', 'json', '--quiet'], env).code).toBe(0);
    expect(readdirSync(cache).sort()).toEqual(names);
  });
});
