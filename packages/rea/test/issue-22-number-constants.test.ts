// rea's bundles read no constant of `Number` that V8 keeps boxed (`Number.NaN`, `Number.MAX_SAFE_INTEGER`
// and the like): code V8 has not optimized yet allocates a fresh box on each such read, and the build
// writes the values in their place (NUMBER_CONSTANTS in scripts/bundleOptions.mjs). Each replacement
// must be the exact value, and no bundle of the built package may read one of them.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import type { BuildOptions } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(here, '..', 'dist');
const { BUNDLE, COMMAND_LINE_BUNDLE, ENTRY_BUNDLE, NUMBER_CONSTANTS } = (await import(
  pathToFileURL(resolve(here, '..', 'scripts', 'bundleOptions.mjs')).href
)) as {
  BUNDLE: BuildOptions;
  COMMAND_LINE_BUNDLE: BuildOptions;
  ENTRY_BUNDLE: BuildOptions;
  NUMBER_CONSTANTS: Record<string, string>;
};

describe('issue 22: the constants of Number in the bundles', () => {
  it('should replace each with its exact value', () => {
    const names = Object.keys(NUMBER_CONSTANTS);
    expect(names).toEqual(expect.arrayContaining(['Number.NaN', 'Number.MAX_SAFE_INTEGER']));
    for (const [name, text] of Object.entries(NUMBER_CONSTANTS)) {
      const property = name.slice('Number.'.length) as keyof NumberConstructor;
      // Evaluated where nothing shadows NaN or Infinity.
      expect(Object.is(runInNewContext(text), Number[property])).toBe(true);
    }
  });

  it('should be applied by every bundle of the build', async () => {
    for (const options of [BUNDLE, COMMAND_LINE_BUNDLE, ENTRY_BUNDLE]) {
      expect(options.define).toMatchObject(NUMBER_CONSTANTS);
      const { outputFiles } = await build({
        ...options,
        external: [],
        metafile: false,
        stdin: { contents: 'export const values = [Number.NaN, Number.MAX_SAFE_INTEGER, Number.isNaN(1)];' },
      });
      const code = outputFiles![0]!.text;
      expect(code).not.toMatch(/Number\.(NaN|MAX_SAFE_INTEGER)\b/);
      // Functions of Number are left alone.
      expect(code).toMatch(/Number\.isNaN/);
    }
  });

  it('should leave no read of a replaced constant in the built package', () => {
    const replaced = Object.keys(NUMBER_CONSTANTS).map((name) => name.slice('Number.'.length));
    const read = new RegExp(`\\bNumber\\.(${replaced.join('|')})\\b`);
    const scripts = readdirSync(dist).filter((name) => /\.(c?js)$/.test(name) && !name.endsWith('.d.ts'));
    // The executable, the command line's two scripts, the stdio server and its chunks.
    expect(scripts).toEqual(
      expect.arrayContaining(['bin.cjs', 'cli.cjs', 'cli-extra.cjs', 'mcpStdio.js', 'mcpCalls.js']),
    );
    const bundled = scripts.filter((name) => /^(bin|cli|cli-extra)\.cjs$/.test(name) || /^(mcp|chunk-)/.test(name));
    for (const name of bundled)
      expect({ name, read: read.exec(readFileSync(join(dist, name), 'utf8'))?.[0] }).toEqual({ name, read: undefined });
  });
});
