// docs/public/product-catalog.json: every tool of the default catalog with its description, effects,
// annotations, client features, input schema in both profiles, output schema, advertised examples and
// portability reports, plus the package versions and the catalog digest of each profile. A pure
// function of the code: no timestamps.
import { listPackages } from '../workspace.mjs';

/** Renders the product catalog of `tools` (the default catalog) as JSON text. */
export function renderProductCatalog({ tools, schema }) {
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
  return `${JSON.stringify(catalog, null, 2)}\n`;
}
