// One command rebuilds every file generated from the code: `npm run generate` (or node tools/generate.mjs,
// no global pnpm needed). It builds the workspace, writes rea's precomputed catalogs and help, rebuilds
// rea when they changed, then writes the product catalog, the tool reference and the agent skill:
//
//   packages/rea/src/generated/advertisedFull.ts, advertisedCompact.ts   what `rea mcp` advertises
//   packages/rea/src/generated/toolFacts.ts                              the tools-only providers' tool facts
//   packages/rea/src/help.ts                                             `rea --help`
//   docs/public/product-catalog.json                                     the machine-readable catalog
//   docs/tools.md                                                        the tool reference
//   docs/configuration.md                                                the environment variables
//   packages/rea/SKILL.md                                                the agent skill rea ships
//
//   node tools/generate.mjs             build, then write every file that differs
//   node tools/generate.mjs --no-build  write from the current build
//   node tools/generate.mjs --check     exit 1 naming every file that differs from what the current
//                                       build generates (run after a build; writes nothing)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { renderAdvertised, renderHelp, renderToolFacts } from './generate/advertised.mjs';
import { renderProductCatalog } from './generate/catalog.mjs';
import { renderConfiguration } from './generate/configuration.mjs';
import { renderToolReference } from './generate/reference.mjs';
import { renderSkill } from './generate/skill.mjs';
import { repoRoot } from './workspace.mjs';

const check = process.argv.includes('--check');
const build = !check && !process.argv.includes('--no-build');

/** Files rea's own build compiles: when they change, rea is rebuilt before the rest is rendered. */
const REA_SOURCES = [
  ['packages/rea/src/generated/advertisedFull.ts', (code) => renderAdvertised(code, 'full')],
  ['packages/rea/src/generated/advertisedCompact.ts', (code) => renderAdvertised(code, 'compact')],
  ['packages/rea/src/help.ts', renderHelp],
  ['packages/rea/src/generated/toolFacts.ts', renderToolFacts],
];
const DOCUMENTS = [
  ['docs/public/product-catalog.json', renderProductCatalog, { raw: true }],
  ['docs/tools.md', renderToolReference],
  ['docs/configuration.md', renderConfiguration],
  ['packages/rea/SKILL.md', renderSkill],
];

function fail(message) {
  console.error(`generate: ${message}`);
  process.exit(2);
}

function runBuild(...packages) {
  const result = spawnSync(process.execPath, [join(repoRoot, 'tools', 'build.mjs'), ...packages], {
    cwd: repoRoot,
    stdio: 'inherit',
  });
  if (result.status !== 0) fail('the build failed');
}

/**
 * The built code generation reads: rea's composition, @rea/schema's projection, the server's own tools,
 * and the composed settings declarations.
 */
async function loadCode() {
  const load = async (relPath) => {
    const file = join(repoRoot, relPath);
    if (!existsSync(file)) fail(`${relPath} does not exist: build first (node tools/build.mjs).`);
    // A query string gives a fresh module instance after a rebuild in this same process.
    return import(`${pathToFileURL(file).href}?t=${Date.now()}`);
  };
  const rea = await load('packages/rea/dist/index.js');
  const schema = await load('packages/schema/dist/index.js');
  const kit = await load('packages/provider-kit/dist/index.js');
  const providers = await rea.createDefaultProviders();
  const tools = await rea.createDefaultTools(providers);
  if (!Array.isArray(tools) || tools.length === 0) fail('createDefaultTools() returned no tools.');
  // Which provider contributes each tool, for the families of the reference and the skill.
  const owners = new Map();
  for (const provider of providers) for (const tool of provider.tools()) owners.set(tool.name, provider.name);
  // Every variable REA reads: its own settings and each default provider's.
  const settings = kit.describeSettings([...kit.BUILT_IN_SETTINGS, ...kit.providerSettings(providers)]);
  return { rea, schema, kit, providers, tools, owners, settings };
}

/** Renders one file in the repository's formatting. */
async function render(relPath, renderer, code, options = {}) {
  const text = await renderer(code);
  if (options.raw) return text;
  const file = join(repoRoot, relPath);
  return format(text, { ...(await resolveConfig(file)), filepath: file });
}

/** Writes or checks each file; returns the files that differed. */
async function settle(files, code) {
  const differing = [];
  for (const [relPath, renderer, options] of files) {
    const file = join(repoRoot, relPath);
    const text = await render(relPath, renderer, code, options);
    const current = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (current === text) continue;
    differing.push(relPath);
    if (check) continue;
    mkdirSync(dirname(file), { recursive: true });
    // Written beside the target and renamed, so a reader never sees a partial file.
    const staging = `${file}.tmp-${process.pid}`;
    writeFileSync(staging, text);
    renameSync(staging, file);
    console.error(`generate: wrote ${relative(repoRoot, file)}`);
  }
  return differing;
}

if (build) runBuild();
let code = await loadCode();
const changedSources = await settle(REA_SOURCES, code);
if (!check && changedSources.length > 0) {
  // The documents describe what rea runs: rebuild it with the new sources first.
  runBuild('rea-mcp');
  code = await loadCode();
}
const changedDocuments = await settle(DOCUMENTS, code);
const differing = [...changedSources, ...changedDocuments];
if (check) {
  if (differing.length > 0) {
    console.error(
      `generate --check: ${differing.join(', ')} differ${differing.length === 1 ? 's' : ''} from what the code ` +
        'generates. Run `npm run generate` (node tools/generate.mjs) and commit the result.',
    );
    process.exit(1);
  }
  console.error(`generate --check: every generated file is up to date (${code.tools.length} tools).`);
} else {
  console.error(`generate: ${differing.length} file(s) written, ${code.tools.length} tools.`);
}
