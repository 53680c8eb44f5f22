// Writes docs/public/product-catalog.json: every tool of the default catalog (from the built `rea`
// package) with its description, effects, annotations, client features, input schema in both
// profiles, output schema, advertised examples and portability reports, plus the package versions
// and the catalog digest of each profile. The file is a pure function of the code: no timestamps.
//
//   node tools/docsGenerate.mjs          write the file
//   node tools/docsGenerate.mjs --check  exit 1 when the committed file differs from what the code generates
//
// Needs the built packages (`node tools/build.mjs`): it reads packages/rea/dist and packages/schema/dist.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { listPackages, repoRoot } from './workspace.mjs';

const CATALOG = join(repoRoot, 'docs', 'public', 'product-catalog.json');
const check = process.argv.includes('--check');

function fail(message, status = 2) {
  console.error(`docs:generate: ${message}`);
  process.exit(status);
}

async function load(relPath, what) {
  const file = join(repoRoot, relPath);
  if (!existsSync(file)) {
    fail(`${relPath} does not exist: build ${what} first (node tools/build.mjs, or npm run build).`);
  }
  return import(pathToFileURL(file).href);
}

const rea = await load('packages/rea/dist/index.js', 'the rea package');
const schema = await load('packages/schema/dist/index.js', '@rea/schema');
if (typeof rea.createDefaultTools !== 'function') {
  fail('packages/rea/dist/index.js does not export createDefaultTools().');
}
const tools = await rea.createDefaultTools();
if (!Array.isArray(tools) || tools.length === 0) fail('createDefaultTools() returned no tools.');

const full = schema.advertiseCatalog(tools, 'full');
const compact = schema.advertiseCatalog(tools, 'compact');
const byName = new Map(tools.map((tool) => [tool.name, tool]));
const bytes = (value) => Buffer.byteLength(JSON.stringify(value), 'utf8');

const packages = Object.fromEntries(
  listPackages()
    .filter((pkg) => pkg.manifest.private !== true)
    .map((pkg) => [pkg.manifest.name, pkg.manifest.version]),
);

const catalog = {
  catalog_format: 1,
  packages,
  compact_input_schema_budget: schema.COMPACT_INPUT_SCHEMA_BUDGET,
  digests: { full: full.digest, compact: compact.digest },
  reduced: { full: full.reduced, compact: compact.reduced },
  tool_count: full.tools.length,
  tools: full.tools.map((tool, index) => {
    const contract = byName.get(tool.name);
    const small = compact.tools[index];
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      effects: contract.effects,
      annotations: tool.annotations,
      ...(contract.clientFeatures ? { client_features: contract.clientFeatures } : {}),
      input_schema: { full: tool.inputSchema, compact: small.inputSchema },
      input_schema_bytes: { full: bytes(tool.inputSchema), compact: bytes(small.inputSchema) },
      compact_reduced: small.reduced,
      output_schema: tool.outputSchema,
      examples: tool.examples,
      portability: { full: tool.portability, compact: small.portability },
    };
  }),
};

const text = `${JSON.stringify(catalog, null, 2)}\n`;
const shown = relative(repoRoot, CATALOG);
if (check) {
  const committed = existsSync(CATALOG) ? readFileSync(CATALOG, 'utf8') : null;
  if (committed === text) {
    console.error(`docs:check: ${shown} is up to date (${full.tools.length} tools, full ${full.digest}).`);
    process.exit(0);
  }
  console.error(
    committed === null
      ? `docs:check: ${shown} is missing. Run node tools/docsGenerate.mjs and commit it.`
      : `docs:check: ${shown} differs from what the code generates. Run node tools/docsGenerate.mjs and commit it.`,
  );
  process.exit(1);
}
mkdirSync(dirname(CATALOG), { recursive: true });
// Write beside the target and rename, so a reader never sees a partial file.
const staging = `${CATALOG}.tmp-${process.pid}`;
writeFileSync(staging, text);
renameSync(staging, CATALOG);
console.error(
  `docs:generate: wrote ${shown} (${full.tools.length} tools; full ${full.digest}; compact ${compact.digest}).`,
);
