// Builders for the Rollup, Vite and Parcel fixtures: the committed sources of test/fixtures/chunked-src
// built with the real bundler at test time. Each returns the output directory and the bundler's own
// account of what it emitted (chunk file → the source files it holds), to check the recovery against.
import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The committed sources the builders bundle: an entry, two static imports, a lazy chunk with CSS and CommonJS. */
export const CHUNKED_SOURCES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'chunked-src');

/** What a bundler emitted: its output directory and, per emitted script (relative path), its source files. */
export interface BuiltBundle {
  dir: string;
  chunks: Map<string, string[]>;
}

const sourceName = (id: string) => relative(CHUNKED_SOURCES, id);

/** Builds main.js with Rollup 4 (ES chunks) into `<dir>/rollup`; CSS and CommonJS stay external. */
export async function rollupBuild(dir: string, options: { sourcemap: boolean }): Promise<BuiltBundle> {
  const { rollup } = await import('rollup');
  const root = join(dir, 'rollup-src');
  cpSync(CHUNKED_SOURCES, root, { recursive: true });
  const out = join(dir, 'rollup');
  const build = await rollup({
    input: join(root, 'main.js'),
    external: (id) => /\.(?:css|cjs)$/.test(id),
    onwarn: () => undefined,
  });
  try {
    const { output } = await build.write({ dir: out, format: 'es', sourcemap: options.sourcemap });
    const chunks = new Map<string, string[]>();
    for (const item of output) {
      if (item.type === 'chunk')
        chunks.set(
          item.fileName,
          Object.keys(item.modules).map((id) => relative(root, id)),
        );
    }
    return { dir: out, chunks };
  } finally {
    await build.close();
  }
}

/** Builds index.html with Vite 7 into `<dir>/vite` (production, minified unless `minify: false`). */
export async function viteBuild(dir: string, options: { sourcemap: boolean; minify: boolean }): Promise<BuiltBundle> {
  const { build } = await import('vite');
  const root = join(dir, 'vite-src');
  cpSync(CHUNKED_SOURCES, root, { recursive: true });
  const out = join(dir, 'vite');
  const result = await build({
    root,
    configFile: false,
    logLevel: 'silent',
    build: { outDir: out, emptyOutDir: true, sourcemap: options.sourcemap, minify: options.minify ? 'esbuild' : false },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as {
    output: { type: string; fileName: string; modules?: object }[];
  }[];
  const chunks = new Map<string, string[]>();
  for (const item of outputs.flatMap((r) => r.output)) {
    if (item.type === 'chunk')
      chunks.set(
        item.fileName,
        Object.keys(item.modules ?? {}).map((id) => relative(root, id)),
      );
  }
  return { dir: out, chunks };
}

/** The part of @parcel/core's API the builder uses. */
interface ParcelRunner {
  run(): Promise<{
    bundleGraph: {
      getBundles(): {
        type: string;
        filePath: string;
        traverseAssets(visit: (asset: { filePath: string }) => void): void;
      }[];
      getAssetPublicId(asset: { filePath: string }): string;
    };
  }>;
}

/** Builds main.js with Parcel 2 into `<dir>/parcel` (production; scope hoisting unless `hoist: false`). */
export async function parcelBuild(
  dir: string,
  options: { sourcemap: boolean; minify: boolean; hoist: boolean },
): Promise<BuiltBundle & { publicIds: Map<string, string> }> {
  // Parcel's API is @parcel/core, a dependency of the parcel package, with its default configuration.
  const parcel = createRequire(createRequire(import.meta.url).resolve('parcel/package.json'));
  const { Parcel } = parcel('@parcel/core') as { Parcel: new (options: object) => ParcelRunner };
  const out = join(dir, 'parcel');
  mkdirSync(out, { recursive: true });
  const bundler = new Parcel({
    entries: [join(CHUNKED_SOURCES, 'main.js')],
    defaultConfig: parcel.resolve('@parcel/config-default'),
    mode: 'production',
    shouldDisableCache: true,
    cacheDir: join(dir, 'parcel-cache'),
    shouldAutoInstall: false,
    shouldPatchConsole: false,
    logLevel: 'error',
    defaultTargetOptions: {
      distDir: out,
      sourceMaps: options.sourcemap,
      shouldOptimize: options.minify,
      shouldScopeHoist: options.hoist,
    },
  });
  const { bundleGraph } = await bundler.run();
  const chunks = new Map<string, string[]>();
  const publicIds = new Map<string, string>();
  for (const bundle of bundleGraph.getBundles()) {
    const files: string[] = [];
    bundle.traverseAssets((asset) => {
      files.push(asset.filePath.startsWith(CHUNKED_SOURCES) ? sourceName(asset.filePath) : asset.filePath);
      publicIds.set(bundleGraph.getAssetPublicId(asset), asset.filePath);
    });
    if (bundle.type === 'js') chunks.set(relative(out, bundle.filePath), files);
  }
  return { dir: out, chunks, publicIds };
}
