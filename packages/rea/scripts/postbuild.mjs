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
//   - dist/cli.cjs, every other command: the command line as one CommonJS script, which
//     dist/commandLine.js compiles with V8's cached code of earlier runs (Node 20 caches no ES module's
//     code). Modules it reaches through dynamic imports are still evaluated only when used.
// A module two paths of the server reach is one copy in a shared chunk: a process runs one zod, one
// @rea/evidence and one of each provider (the command line, a process of its own, has its own copy). Kept out: @alexaltea/capstone-js (CommonJS glue beside its capstone.wasm, resolved
// from @rea/provider-capstone's directory) and esbuild. Chunks sit in dist/ itself, so code that reads
// files relative to its module finds them where it expects (../package.json is this package's manifest).
// The bundle holds a copy of every workspace package it uses, so this package depends on their exact
// versions (workspace:*). In the workspace, rebuild rea after rebuilding any of them (a full
// `node tools/build.mjs` does both).
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BANNER, BUNDLE, COMMAND_LINE_BUNDLE, stampCommandLine } from './bundleOptions.mjs';

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
 * The command line is compiled by dist/commandLine.js as a `vm.Script`, where a dynamic import() has no
 * loader to go to (Node 20's only way to give it one is experimental, warns on stderr, and is lost when
 * the script comes from the code cache). A dynamic import of a Node.js built-in, which esbuild would
 * keep as import(), becomes a require() of it in a one-line module, which esbuild imports lazily as any
 * other bundled module.
 */
const builtinsRequired = {
  name: 'rea-builtins-required',
  setup(esbuild) {
    esbuild.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' && isBuiltin(args.path)
        ? { path: args.path, namespace: 'rea-builtin' }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'rea-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
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
 * The server's two paths in one build with code splitting: dist/mcpStdio.js (the stdio fast path) and the
 * call path, a named entry, dist/mcpCalls.js, which the first tool call loads (a missing one is the
 * server's typed call-path-load-failed answer); modules both reach are one copy in a shared chunk. Then
 * the command line, dist/cli.cjs, as one script.
 */
async function bundle() {
  const cliEntry = join(dist, 'cli.js');
  for (const file of readdirSync(dist)) if (/^chunk-[A-Z0-9]+\.js$/.test(file)) rmSync(join(dist, file));
  const [result, commandLine] = await Promise.all([
    build({
      ...BUNDLE,
      entryPoints: { mcpStdio: entry, mcpCalls: join(serverDist, 'calls.js') },
      splitting: true,
      outdir: dist,
      chunkNames: 'chunk-[hash]',
      external: ['@alexaltea/capstone-js', 'esbuild'],
      plugins: [englishZodMessagesOnly],
    }),
    build({
      ...COMMAND_LINE_BUNDLE,
      entryPoints: [cliEntry],
      outfile: join(dist, 'cli.cjs'),
      external: ['@alexaltea/capstone-js', 'esbuild'],
      plugins: [englishZodMessagesOnly, builtinsRequired],
    }),
  ]);
  checkStartup(result.metafile);
  const kept = Object.values(commandLine.metafile.outputs).flatMap((output) =>
    output.imports.filter((edge) => edge.kind === 'dynamic-import').map((edge) => edge.path),
  );
  if (kept.length > 0) throw new Error(`the command line must not import() at run time: ${kept.join(', ')}`);
  // A module of the command line that reads import.meta for anything but its URL would read nothing.
  const lost = commandLine.warnings.filter((warning) => warning.text.includes('import.meta'));
  if (lost.length > 0)
    throw new Error(
      `the command line reads import.meta beyond its url: ${lost.map((w) => w.location?.file).join(', ')}`,
    );
  // For a look at what went where (esbuild's analyzer reads it): REA_BUNDLE_METAFILE=/tmp/meta.json (the
  // command line's beside it, with .cli before the extension).
  if (process.env.REA_BUNDLE_METAFILE) {
    writeFileSync(process.env.REA_BUNDLE_METAFILE, JSON.stringify(result.metafile));
    writeFileSync(
      process.env.REA_BUNDLE_METAFILE.replace(/(\.json)?$/, '.cli$1'),
      JSON.stringify(commandLine.metafile),
    );
  }
  for (const file of result.outputFiles) writeFileSync(file.path, file.contents);
  const [script] = commandLine.outputFiles;
  writeFileSync(script.path, stampCommandLine(script.text));
  // The command line's ES module build is replaced by the script.
  for (const name of ['cli.js', 'cli.js.map', 'cli.d.ts', 'cli.d.ts.map', 'mcpStdio.js.map'])
    rmSync(join(dist, name), { force: true });
  const modules = Object.keys(result.metafile.inputs).length;
  const chunks = result.outputFiles.filter((f) => /[\\/]chunk-[A-Z0-9]+\.js$/.test(f.path)).length;
  const kib = (result.outputFiles.reduce((sum, f) => sum + f.contents.length, 0) / 1024).toFixed(0);
  console.error(
    `rea: bundled the stdio fast path and the call path (${modules} modules, ${kib} KiB) into dist/mcpStdio.js, dist/mcpCalls.js and ${chunks} chunks, and the command line (${Object.keys(commandLine.metafile.inputs).length} modules, ${(script.contents.length / 1024).toFixed(0)} KiB) into dist/cli.cjs`,
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
