// Runs after `tsc` has built dist/ (tools/build.mjs calls it): bundles the stdio fast path of `rea mcp`,
// then the command-line path (see the end of this file).
//
// MCP clients start `rea mcp` for every session, so its start-up is part of the interface. Loaded as
// separate modules, the path to a first `tools/list` reads, resolves and compiles a few hundred files
// (the MCP SDK, zod and its locales, the server's start-up core); bundled, it is one file. The bundle
// replaces dist/mcpStdio.js (what dist/bin.js imports for the fast path) and contains only start-up code:
//   - the MCP SDK and zod, and the start-up core of @rea/server (transports, initialize, tools/list);
//   - the few pure helpers it uses from @rea/evidence and @rea/provider-kit (settings, error type), and
//     the default providers' settings declarations (each provider package's `settings` module);
// while everything a tool call needs stays in the installed packages and loads on the first call:
//   - `@rea/server/calls` (sessions, ledgers, tool execution, and through it @rea/evidence and
//     @rea/provider-kit — the same module instances the providers use);
//   - ./defaults.js (the providers and composition tools), ./generated/* (the precomputed catalogs),
//     and @rea/cli (exit statuses on a failed start).
// The bundled start-up core and the installed call path must come from the same @rea/server release, so
// this package depends on its exact version (workspace:*). In the workspace, rebuild rea after rebuilding
// @rea/server (a full `node tools/build.mjs` does both).
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BANNER, BUNDLE } from './bundleOptions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const entry = join(dist, 'mcpStdio.js');
const serverDist = dirname(fileURLToPath(import.meta.resolve('@rea/server/serve')));

/** Keeps the lazily loaded parts out of the bundle, loaded from where they are installed. */
const boundaries = {
  name: 'rea-stdio-boundaries',
  setup(esbuild) {
    // The server's call path: loaded through its package entry, never bundled.
    esbuild.onResolve({ filter: /^\.\/calls\.js$/ }, (args) =>
      args.importer.startsWith(serverDist) ? { path: '@rea/server/calls', external: true } : undefined,
    );
    // This package's own lazily loaded modules stay files beside the bundle (it lives in dist/ too).
    esbuild.onResolve({ filter: /^\.\/(defaults|generated\/.*)\.js$/ }, (args) =>
      args.importer.startsWith(dist) ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * True for a module that belongs to the call path, never to start-up: the server's call path (calls,
 * sessions, the server's tools, responses and budgets), any provider (not @rea/provider-kit, whose
 * settings reader start-up uses), and this package's composition and generated catalogs.
 */
function callPathModule(file) {
  const server = relative(serverDist, file);
  if (!server.startsWith('..')) return /^(calls|session|respond|budget|tools[\\/]index)\.js$/.test(server);
  const own = relative(dist, file);
  if (!own.startsWith('..')) return /^(defaults|generated[\\/].*)\.js$/.test(own);
  // A provider's settings modules (dist/settings.js, or one folder down such as dist/device/settings.js) hold
  // its declarations and nothing of its engine: start-up validates them.
  if (
    /[\\/](@rea[\\/]provider-|packages[\\/]providers[\\/])[a-z-]+[\\/]dist[\\/](?:[a-z]+[\\/])?settings\.js$/.test(file)
  )
    return false;
  return /[\\/](@rea[\\/](artifact|native|provider-(?!kit[\\/])[a-z-]+)|packages[\\/](artifact|native|providers))[\\/]/.test(
    file,
  );
}

if (readFileSync(entry, 'utf8').startsWith(BANNER)) {
  console.error('rea: dist/mcpStdio.js is bundled already (rebuild with tsc first to bundle again)');
} else {
  await bundleStdio();
}
await bundleCli();

async function bundleStdio() {
  const result = await build({
    ...BUNDLE,
    entryPoints: [entry],
    outfile: entry,
    external: ['@rea/cli'],
    plugins: [boundaries],
  });

  // Metafile inputs are relative to the working directory; compare real absolute paths.
  const inputs = Object.keys(result.metafile.inputs);
  const absolute = inputs.map((file) => resolve(process.cwd(), file.replace(/^[a-z]+:/, '')));
  if (process.env.REA_BUNDLE_REPORT) console.error(absolute.map((file) => relative(root, file)).join('\n'));
  const forbidden = absolute.filter((file) => callPathModule(file) || file.endsWith('.ts'));
  if (forbidden.length > 0) throw new Error(`the stdio bundle must not contain the call path: ${forbidden.join(', ')}`);
  const [output] = result.outputFiles;
  writeFileSync(entry, output.contents);
  // The source map of the unbundled module no longer describes the file.
  rmSync(`${entry}.map`, { force: true });
  const size = (output.contents.length / 1024).toFixed(0);
  console.error(
    `rea: bundled the stdio fast path (${inputs.length} modules, ${size} KiB) into ${relative(root, entry)}`,
  );
}

/**
 * The command-line path: dist/cli.js (what dist/bin.js imports for every command but the stdio server)
 * bundled with everything it reaches — the CLI, the composition, the server's call path, the providers,
 * zod — with code splitting, so that what loaded lazily still does, from about fifty chunk files in dist/
 * instead of several hundred modules. The command-line process runs one copy of each package (`rea` pins
 * them exactly, so `rea mcp`, which loads the installed ones, runs the same releases). Kept out:
 * @alexaltea/capstone-js (CommonJS glue beside its capstone.wasm, resolved from @rea/provider-capstone's
 * directory) and esbuild. Chunks sit in dist/ itself, so code that reads files relative to its module
 * finds them where it expects (../package.json is this package's manifest).
 */
async function bundleCli() {
  const cliEntry = join(dist, 'cli.js');
  if (readFileSync(cliEntry, 'utf8').startsWith(BANNER)) {
    console.error('rea: dist/cli.js is bundled already (rebuild with tsc first to bundle again)');
    return;
  }
  for (const file of readdirSync(dist)) if (/^chunk-[A-Z0-9]+\.js$/.test(file)) rmSync(join(dist, file));
  const cli = await build({
    ...BUNDLE,
    entryPoints: { cli: cliEntry },
    splitting: true,
    outdir: dist,
    chunkNames: 'chunk-[hash]',
    external: ['@alexaltea/capstone-js', 'esbuild'],
  });
  for (const file of cli.outputFiles) writeFileSync(file.path, file.contents);
  rmSync(`${cliEntry}.map`, { force: true });
  const modules = Object.keys(cli.metafile.inputs).length;
  const chunks = cli.outputFiles.length - 1;
  const kib = (cli.outputFiles.reduce((sum, f) => sum + f.contents.length, 0) / 1024).toFixed(0);
  console.error(
    `rea: bundled the command-line path (${modules} modules, ${kib} KiB) into dist/cli.js and ${chunks} chunks`,
  );
}
