// Runs after `tsc` has built dist/ (tools/build.mjs calls it): bundles rea's three paths in one esbuild
// build with code splitting.
//
// MCP clients start `rea mcp` for every session, so its start-up, and its first tool call, are part of the
// interface. Loaded as separate modules, each reads, resolves and compiles a few hundred files (the MCP
// SDK, zod, the server, @rea/evidence, @rea/provider-kit, the providers); bundled, a few dozen chunks.
//   - dist/mcpStdio.js (what dist/bin.js imports for the stdio fast path) and the chunks it imports: the
//     MCP SDK, zod and the start-up core of @rea/server (transports, initialize, tools/list), the few pure
//     helpers it uses from @rea/evidence and @rea/provider-kit, and the default providers' settings
//     declarations (each provider package's `settings` module). Nothing of the call path (checked below).
//   - dist/mcpCalls.js (@rea/server/calls: sessions, ledgers, tool execution) and ./defaults.js (the
//     providers and composition tools), loaded on the first tool call; ./generated/* (the precomputed
//     catalogs), loaded at start by a dynamic import.
//   - dist/cli.js, what dist/bin.js imports for every other command.
// A module two paths reach is one copy in a shared chunk: a process runs one zod, one @rea/evidence and
// one of each provider. Kept out: @alexaltea/capstone-js (CommonJS glue beside its capstone.wasm, resolved
// from @rea/provider-capstone's directory) and esbuild. Chunks sit in dist/ itself, so code that reads
// files relative to its module finds them where it expects (../package.json is this package's manifest).
// The bundle holds a copy of every workspace package it uses, so this package depends on their exact
// versions (workspace:*). In the workspace, rebuild rea after rebuilding any of them (a full
// `node tools/build.mjs` does both).
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BANNER, BUNDLE } from './bundleOptions.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const entry = join(dist, 'mcpStdio.js');
const serverDist = dirname(fileURLToPath(import.meta.resolve('@rea/server/serve')));

/**
 * zod's translated error messages (`z.locales`, about 270 KB of the bundle) are re-exported by its
 * namespace, which esbuild cannot shake: nothing in REA reads them (REA's messages are its own, and
 * zod's default English ones come from locales/en.js, kept), so the bundle resolves the locales' index
 * to English alone instead of parsing the others in every process.
 */
const englishZodMessagesOnly = {
  name: 'rea-zod-english-only',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core)$/.test(args.resolveDir)
        ? { path: join(args.resolveDir, '..', 'locales', 'index.js'), namespace: 'rea-zod-locales' }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'rea-zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * True for a module that belongs to the call path, never to start-up: the server's call path (calls,
 * sessions, the server's tools, responses and budgets), any provider (not @rea/provider-kit, whose
 * settings reader start-up uses), and this package's composition and generated catalogs.
 */
function callPathModule(file) {
  const server = relative(serverDist, file);
  if (!server.startsWith('..'))
    return /^(calls|session|respond|budget|catalog|availability|tools[\\/]index)\.js$/.test(server);
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
  await bundle();
}

/**
 * Both paths in one build with code splitting: dist/mcpStdio.js (the stdio fast path) and dist/cli.js
 * (the command line), each with the chunks it imports. Modules both reach are one copy in a shared
 * chunk, so a process runs one zod, one @rea/evidence and one of each provider whichever way it
 * started. The server's call path is a named entry, dist/mcpCalls.js, which the first tool call loads
 * (a missing one is the server's typed call-path-load-failed answer).
 */
async function bundle() {
  const cliEntry = join(dist, 'cli.js');
  for (const file of readdirSync(dist)) if (/^chunk-[A-Z0-9]+\.js$/.test(file)) rmSync(join(dist, file));
  const result = await build({
    ...BUNDLE,
    entryPoints: { mcpStdio: entry, cli: cliEntry, mcpCalls: join(serverDist, 'calls.js') },
    splitting: true,
    outdir: dist,
    chunkNames: 'chunk-[hash]',
    external: ['@alexaltea/capstone-js', 'esbuild'],
    plugins: [englishZodMessagesOnly],
  });
  checkStartup(result.metafile);
  // For a look at what went where (esbuild's analyzer reads it): REA_BUNDLE_METAFILE=/tmp/meta.json.
  if (process.env.REA_BUNDLE_METAFILE) writeFileSync(process.env.REA_BUNDLE_METAFILE, JSON.stringify(result.metafile));
  for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
  for (const name of ['mcpStdio', 'cli']) rmSync(join(dist, `${name}.js.map`), { force: true });
  const modules = Object.keys(result.metafile.inputs).length;
  const chunks = result.outputFiles.filter((f) => /[\\/]chunk-[A-Z0-9]+\.js$/.test(f.path)).length;
  const kib = (result.outputFiles.reduce((sum, f) => sum + f.contents.length, 0) / 1024).toFixed(0);
  console.error(
    `rea: bundled the stdio fast path, the call path and the command line (${modules} modules, ${kib} KiB) into dist/mcpStdio.js, dist/mcpCalls.js, dist/cli.js and ${chunks} chunks`,
  );
}

/**
 * Start-up of the stdio path loads dist/mcpStdio.js and the chunks it imports statically: none of them
 * may hold a module of the call path (those load on the first tool call, through dynamic imports).
 */
function checkStartup(metafile) {
  const outputs = metafile.outputs;
  const key = Object.keys(outputs).find((file) => resolve(process.cwd(), file) === entry);
  const seen = new Set();
  const pending = [key];
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const edge of outputs[file].imports)
      if (edge.kind === 'import-statement' && !edge.external) pending.push(edge.path);
  }
  const inputs = [...seen].flatMap((file) => Object.keys(outputs[file].inputs));
  // Metafile inputs are relative to the working directory; compare real absolute paths.
  const absolute = inputs.map((file) => resolve(process.cwd(), file.replace(/^[a-z]+:/, '')));
  if (process.env.REA_BUNDLE_REPORT) console.error(absolute.map((file) => relative(root, file)).join('\n'));
  const forbidden = absolute.filter((file) => callPathModule(file) || file.endsWith('.ts'));
  if (forbidden.length > 0) throw new Error(`the stdio start-up must not load the call path: ${forbidden.join(', ')}`);
  const kib = ([...seen].reduce((sum, file) => sum + outputs[file].bytes, 0) / 1024).toFixed(0);
  console.error(`rea: the stdio start-up loads ${inputs.length} modules (${kib} KiB) from ${seen.size} files`);
}
