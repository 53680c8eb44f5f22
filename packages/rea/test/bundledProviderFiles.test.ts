import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { BuildOptions, OutputFile } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
// The options rea's own postbuild bundles with.
const { BUNDLE, COMMAND_LINE_BUNDLE, stampCommandLine } = (await import(
  pathToFileURL(resolve(here, '..', 'scripts', 'bundleOptions.mjs')).href
)) as {
  BUNDLE: BuildOptions;
  COMMAND_LINE_BUNDLE: BuildOptions;
  stampCommandLine: (code: string) => string;
};
// What compiles the command line's script, as built.
const commandLineLoader = pathToFileURL(resolve(here, '..', 'dist', 'commandLine.js')).href;

const work = mkdtempSync(join(tmpdir(), 'rea-bundled-provider-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/**
 * An installation like the one npm makes: a provider package with a data file of its own (standing in
 * for a WebAssembly engine) and a host package whose entry imports it, bundled with rea's options into
 * the host's dist/. The provider reads its file two ways: by its package name, and beside its module.
 */
async function installBundledHost(token: string, as: 'module' | 'command-line' = 'module'): Promise<string> {
  const modules = join(work, 'app', 'node_modules');
  const provider = join(modules, '@example', 'provider-data');
  write(
    join(provider, 'package.json'),
    JSON.stringify({
      name: '@example/provider-data',
      type: 'module',
      exports: { '.': './index.js', './package.json': './package.json' },
    }),
  );
  write(join(provider, 'engine.dat'), token);
  write(
    join(provider, 'index.js'),
    `import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
export function byPackageName() {
  const manifest = createRequire(import.meta.url).resolve('@example/provider-data/package.json');
  return readFileSync(join(dirname(manifest), 'engine.dat'), 'utf8');
}
export function besideModule() {
  return readFileSync(new URL('./engine.dat', import.meta.url), 'utf8');
}
`,
  );
  const host = join(modules, as === 'module' ? 'host' : 'host-command-line');
  const report = 'JSON.stringify({ byPackageName: attempt(byPackageName), besideModule: attempt(besideModule) })';
  write(
    join(host, 'src', 'cli.js'),
    `import { besideModule, byPackageName } from '@example/provider-data';
const attempt = (read) => { try { return read(); } catch (error) { return error.code; } };
${as === 'module' ? `console.log(${report});` : `export async function main() { console.log(${report}); return 0; }`}
`,
  );
  if (as === 'module') {
    const result = await build({ ...BUNDLE, entryPoints: [join(host, 'src', 'cli.js')], outdir: join(host, 'dist') });
    for (const file of result.outputFiles as OutputFile[]) write(file.path, file.text);
    return join(host, 'dist', 'cli.js');
  }
  const result = await build({
    ...COMMAND_LINE_BUNDLE,
    entryPoints: [join(host, 'src', 'cli.js')],
    outfile: join(host, 'dist', 'cli.cjs'),
  });
  const [script] = result.outputFiles as OutputFile[];
  write(script!.path, stampCommandLine(script!.text));
  return script!.path;
}

describe('a provider bundled into rea', () => {
  it('should find its own files by its package name, not beside its module', async () => {
    const token = randomBytes(8).toString('hex');
    const bundle = await installBundledHost(token);
    const output = JSON.parse(execFileSync(process.execPath, [bundle], { encoding: 'utf8' })) as Record<string, string>;
    // By name, the file is found in the installed package; beside the module means beside the bundle.
    expect(output).toEqual({ byPackageName: token, besideModule: 'ENOENT' });
  });

  it('should find them the same way from the command line script', async () => {
    const token = randomBytes(8).toString('hex');
    const script = await installBundledHost(token, 'command-line');
    const driver = `import { loadCommandLine } from ${JSON.stringify(commandLineLoader)};
process.exitCode = await loadCommandLine('x', { bundle: ${JSON.stringify(script)}, env: { REA_CODE_CACHE: 'off' } }).main([]);`;
    const output = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', driver], { encoding: 'utf8' }),
    ) as Record<string, string>;
    expect(output).toEqual({ byPackageName: token, besideModule: 'ENOENT' });
  });
});
