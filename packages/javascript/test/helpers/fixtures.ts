// Fixture builders: the committed sources under test/fixtures, copied, packed into a real ASAR with
// @electron/asar, or bundled with the real esbuild, at test time.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as asar from '@electron/asar';
import { build } from 'esbuild';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** The committed sources esbuildBundle bundles. */
export const BUNDLE_SOURCES = join(fixtures, 'bundle-src');

/** Copies the committed Electron application into `dir` (plus a native addon) and returns its path. */
export function electronApp(dir: string): string {
  const app = join(dir, 'app');
  cpSync(join(fixtures, 'electron-app'), app, { recursive: true });
  mkdirSync(join(app, 'native'));
  // Not a real shared object: the analysis classifies .node files by name and never loads them.
  writeFileSync(join(app, 'native', 'addon.node'), Buffer.from('\u007fELF-stand-in'));
  return app;
}

/** Packs the Electron application into `<dir>/<name>` with its native addon unpacked. */
export async function electronAsar(dir: string, name = 'app.asar'): Promise<string> {
  const app = electronApp(join(dir, 'src'));
  const archive = join(dir, name);
  mkdirSync(dirname(archive), { recursive: true });
  await asar.createPackageWithOptions(app, archive, { unpack: '*.node' });
  return archive;
}

/** Bundles test/fixtures/bundle-src/entry.js with esbuild into `<dir>/dist/<out>`. */
export async function esbuildBundle(
  dir: string,
  options: {
    out: string;
    minify?: boolean;
    sourcemap?: boolean | 'inline';
    format?: 'cjs' | 'esm';
    sources?: string;
  },
): Promise<string> {
  const outfile = join(dir, 'dist', options.out);
  const sources = options.sources ?? BUNDLE_SOURCES;
  await build({
    entryPoints: [join(sources, 'entry.js')],
    bundle: true,
    platform: 'node',
    format: options.format ?? 'cjs',
    minify: options.minify ?? false,
    sourcemap: options.sourcemap ?? false,
    outfile,
    logLevel: 'silent',
    absWorkingDir: sources,
  });
  return outfile;
}

/** The CommonJS sources {@link browserifyBundle} packs: an entry requiring two modules. */
export const BROWSERIFY_SOURCES: Record<string, string> = {
  'main.js':
    "const { greet } = require('./greet');\nconst util = require('./util');\nmodule.exports.run = function run(name, times) {\n  return util.shout(greet(name)).repeat(times);\n};\n",
  'greet.js': "exports.greet = function greet(name) {\n  return 'hello ' + name;\n};\nexports.LANG = 'en';\n",
  'util.js': "module.exports = { shout: (text) => text.toUpperCase() };\nfetch('https://cdn.example.net/ping');\n",
};

/** Writes {@link BROWSERIFY_SOURCES} under `<dir>/src` and packs them with the real browserify into `<dir>/dist/bundle.js`. */
export async function browserifyBundle(dir: string, options: { debug?: boolean } = {}): Promise<string> {
  const sources = join(dir, 'src');
  mkdirSync(sources, { recursive: true });
  for (const [name, text] of Object.entries(BROWSERIFY_SOURCES)) writeFileSync(join(sources, name), text);
  type Packer = { bundle(done: (error: Error | null, bytes: Buffer) => void): void };
  const browserify = createRequire(import.meta.url)('browserify') as (entry: string, options: object) => Packer;
  const bytes = await new Promise<Buffer>((resolve, reject) => {
    browserify(join(sources, 'main.js'), { debug: options.debug ?? false, basedir: sources }).bundle((error, out) =>
      error ? reject(error) : resolve(out),
    );
  });
  const out = join(dir, 'dist', 'bundle.js');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  return out;
}

/** Copies the committed bundle sources into `<dir>/src` and returns that directory. */
export function bundleSources(dir: string): string {
  const sources = join(dir, 'src');
  cpSync(BUNDLE_SOURCES, sources, { recursive: true });
  return sources;
}

/** Bundles test/fixtures/bundle-src/entry.js with webpack 5 into `<dir>/dist/<out>`. */
export async function webpackBundle(
  dir: string,
  options: {
    out: string;
    mode: 'development' | 'production';
    sources?: string;
    naturalIds?: boolean;
    /** Write an external source map beside the bundle. */
    sourceMap?: boolean;
  },
): Promise<string> {
  const { default: webpack } = await import('webpack');
  const outputPath = join(dir, 'dist');
  const compiler = webpack({
    mode: options.mode,
    // No eval wrapping: module bodies stay code, as in shipped builds.
    devtool: options.sourceMap ? 'source-map' : false,
    target: 'node',
    context: options.sources ?? BUNDLE_SOURCES,
    entry: './entry.js',
    // Natural ids number modules in the order they are used: adding one renumbers the rest.
    ...(options.naturalIds ? { optimization: { moduleIds: 'natural' as const } } : {}),
    output: { path: outputPath, filename: options.out },
    infrastructureLogging: { level: 'none' },
  });
  await new Promise<void>((resolve, reject) => {
    compiler.run((error, stats) => {
      // Closing releases the compiler's caches and file handles.
      compiler.close(() => {
        if (error) reject(error);
        else if (stats?.hasErrors()) reject(new Error(stats.toString('errors-only')));
        else resolve();
      });
    });
  });
  return join(outputPath, options.out);
}

/**
 * Writes `<dir>/big/app.js`: `statements` statements, each with a string literal and a call, about
 * 32 bytes apiece (400,000 make some 13 MB), and returns the directory. Its syntax tree is far larger
 * than the file: what a small heap limit cannot hold.
 */
export function bigApplication(dir: string, statements: number): string {
  const app = join(dir, 'big');
  mkdirSync(app, { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < statements; i += 1) lines.push(`var a${i} = "s${i}" + f(${i});`);
  writeFileSync(join(app, 'app.js'), lines.join('\n'));
  return app;
}
