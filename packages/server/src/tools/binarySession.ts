import { z } from 'zod';
import { AnalysisProfileSchema, JsonObjectSchema, ProviderIdentitySchema, Sha256HexSchema } from '@rea/evidence';
import { attachedHost, hostOf, ledgerOf } from '../host.js';
import { createProviderRegistry, defineTool, describeCandidates, probeProviders } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import type { ServerIdentity, ToolAvailabilityEntry } from '../host.js';
import { NO_EFFECTS } from './effects.js';
import { effectsOf } from '../effects.js';

const ExpectationSchema = z.strictObject({
  field: z.enum(['package_version', 'catalog_digest', 'server_path']),
  expected: z.string(),
  actual: z.string().nullable(),
  matches: z.boolean(),
});

const ToolAvailabilitySchema = z.strictObject({
  name: z.string(),
  available: z.boolean(),
  reason: z.string().nullable(),
  remediation: z.string().nullable(),
  client_features: z.strictObject({
    required: z.array(z.string()),
    optional: z.array(z.string()),
    missing: z.array(z.string()),
  }),
  effects: z
    .strictObject({
      readOnly: z.boolean(),
      mutatesSession: z.boolean(),
      writesFilesystem: z.boolean(),
      launchesProcess: z.boolean(),
      executesForeignCode: z.boolean(),
      mutatesDevice: z.boolean(),
      mayDiscardData: z.boolean(),
      idempotent: z.boolean(),
      openWorld: z.boolean(),
    })
    .describe('The effect record: each flag separately; the MCP annotations are derived from it.'),
});

const CandidateSchema = z.strictObject({
  id: z.string(),
  available: z.boolean(),
  reason: z.string().nullable(),
  target_support: z.enum(['supported', 'unsupported', 'unknown']),
  embedded: z.boolean(),
});

/** The `binary_session` result. */
export const BinarySessionResultSchema = z.strictObject({
  package: z.strictObject({ name: z.string(), version: z.string() }),
  server: z.strictObject({
    name: z.string(),
    version: z.string(),
    path: z.string().nullable(),
    transport: z.enum(['stdio', 'http', 'custom']),
  }),
  sdk: z.strictObject({ name: z.string(), version: z.string() }),
  protocol: z.strictObject({
    negotiated_version: z.string().nullable(),
    client: z.strictObject({ name: z.string(), version: z.string() }).nullable(),
  }),
  catalog: z.strictObject({
    digest: Sha256HexSchema,
    profile: z.enum(['full', 'compact']),
    tool_count: z.number().int().nonnegative(),
    reduced: z.array(z.string()),
  }),
  expectations: z.array(ExpectationSchema),
  tool_availability: z.array(ToolAvailabilitySchema),
  analysis_provider_candidates: z.array(CandidateSchema),
  target: z
    .strictObject({ path: z.string(), format: z.string(), sha256: Sha256HexSchema, size: z.number().int() })
    .nullable(),
  analysis_provider_binding: z
    .strictObject({
      provider: ProviderIdentitySchema,
      selection_source: z.enum(['argument', 'environment', 'auto']),
      analysis_profile: AnalysisProfileSchema,
    })
    .nullable(),
  analysis_run: z.strictObject({ run_id: z.string(), started_at: z.string() }).nullable(),
  process_lineage: z.union([
    z.strictObject({ status: z.literal('not_observed') }),
    z.strictObject({ status: z.literal('snapshots'), snapshots: z.array(JsonObjectSchema) }),
  ]),
  ledger: z.strictObject({ records: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() }),
});

type Expectation = z.infer<typeof ExpectationSchema>;
interface SessionInput {
  expected_package_version?: string | undefined;
  expected_catalog_digest?: string | undefined;
  expected_server_path?: string | undefined;
}

function compareExpectations(input: SessionInput, identity: ServerIdentity, digest: string): Expectation[] {
  const expectations: Expectation[] = [];
  const compare = (field: Expectation['field'], expected: string | undefined, actual: string | null) => {
    if (expected !== undefined) expectations.push({ field, expected, actual, matches: expected === actual });
  };
  compare('package_version', input.expected_package_version, identity.package.version);
  compare('catalog_digest', input.expected_catalog_digest, digest);
  compare('server_path', input.expected_server_path, identity.server.path);
  return expectations;
}

// Tools that act on a connection's session: a host without one refuses them (see hostOf).
const CONNECTION_ONLY = new Set(['open_binary', 'close_binary']);
const CONNECTION_REFUSAL = {
  available: false as const,
  reason: 'needs an MCP connection session',
  remediation: 'Give the analysis command --target <path> (and --provider <id>) instead, or call it through rea mcp.',
};

/**
 * `binary_session` outside the MCP server (a CLI invocation): the host's identity and catalog, every
 * tool's availability without a connection, the provider candidates, the invocation's target and
 * ledger. No protocol was negotiated and no SDK runs, so those fields say so.
 */
async function invocationSession(
  input: SessionInput,
  context: ToolContext,
): Promise<z.infer<typeof BinarySessionResultSchema>> {
  const facts = context.invocationHost!;
  const identity: ServerIdentity = {
    package: facts.package,
    server: { name: facts.package.name, version: facts.package.version, path: facts.entryPath, transport: 'custom' },
    sdk: { name: 'none', version: 'not-applicable' },
    protocol: { negotiated_version: null, client: null },
  };
  const [catalog, tools, providers] = await Promise.all([facts.catalog(), facts.tools(), facts.providers()]);
  const registry = createProviderRegistry(providers);
  const availabilityContext = { session: context.session, platform: context.platform };
  const toolAvailability = tools.map((contract): ToolAvailabilityEntry => {
    let availability;
    try {
      availability = CONNECTION_ONLY.has(contract.name)
        ? CONNECTION_REFUSAL
        : contract.availability(availabilityContext);
    } catch (error) {
      availability = {
        available: false as const,
        reason: `availability check failed: ${(error as Error).message}`,
        remediation: 'Report this defect.',
      };
    }
    const { required, optional } = contract.clientFeatures;
    const missing = required.filter((feature) => !context.clientFeatures.has(feature));
    return {
      name: contract.name,
      available: availability.available && missing.length === 0,
      reason: availability.available
        ? missing.length > 0
          ? `this host lacks: ${missing.join(', ')}`
          : null
        : availability.reason,
      remediation: availability.available
        ? missing.length > 0
          ? 'Call it through the REA MCP server with a client that supports these features.'
          : null
        : availability.remediation,
      client_features: { required: [...required], optional: [...optional], missing },
      effects: effectsOf(contract),
    };
  });
  const ledger = ledgerOf(context);
  const binding = context.session.binding;
  return {
    ...identity,
    catalog,
    expectations: compareExpectations(input, identity, catalog.digest),
    tool_availability: toolAvailability,
    analysis_provider_candidates: describeCandidates(
      registry,
      await probeProviders(registry, { signal: context.signal }),
      null,
    ),
    target: context.session.target,
    analysis_provider_binding: binding
      ? {
          provider: binding.provider,
          selection_source: binding.selection_source,
          analysis_profile: binding.analysis_profile,
        }
      : null,
    analysis_run: null,
    process_lineage: { status: 'not_observed' },
    ledger: { records: ledger.size, bytes: ledger.bytes },
  };
}

/** `binary_session`: the live identity of this server and connection, and what can be called now. */
export const binarySessionTool = defineTool({
  name: 'binary_session',
  title: 'Session identity and tool availability',
  description:
    'Reports the live REA session: package, server, SDK and negotiated protocol identity; the catalog digest; ' +
    'tool_availability for every tool (available, reason, remediation, client features and which are missing); ' +
    'analysis provider candidates (discovered without starting an engine); the provider binding, run id and ' +
    'process lineage of the open target; and the retained ledger size. Call it with {} before choosing a tool. ' +
    'Optional expected_* inputs are compared with the live values and reported in expectations.',
  produces: 'result',
  input: z.strictObject({
    expected_package_version: z
      .string()
      .min(1)
      .optional()
      .describe('Package version the caller expects; compared and reported, never enforced.'),
    expected_catalog_digest: Sha256HexSchema.optional().describe(
      'Catalog digest (SHA-256 hex) the caller expects; compared and reported.',
    ),
    expected_server_path: z
      .string()
      .min(1)
      .optional()
      .describe('Absolute path of the server entry the caller registered; compared and reported.'),
  }),
  result: BinarySessionResultSchema,
  examples: [
    { input: {}, description: 'Identity, availability and session state.' },
    { input: { expected_package_version: '0.1.0' }, description: 'Also check the running package version.' },
  ],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  run: async (input, context) => {
    if (!attachedHost(context) && context.invocationHost) return invocationSession(input, context);
    const host = hostOf(context);
    const identity = host.identity();
    const advertised = await host.advertised();
    const { session } = host;
    const expectations = compareExpectations(input, identity, advertised.digest);
    const binding = session.binding;
    return {
      ...identity,
      catalog: {
        digest: advertised.digest,
        profile: advertised.profile,
        tool_count: advertised.tools.length,
        reduced: advertised.reduced,
      },
      expectations,
      tool_availability: host.toolAvailability(),
      analysis_provider_candidates: describeCandidates(
        host.registry,
        await probeProviders(host.registry, { signal: context.signal }),
        null,
      ),
      target: session.target,
      analysis_provider_binding: binding
        ? {
            provider: binding.provider,
            selection_source: binding.selection_source,
            analysis_profile: binding.analysis_profile,
          }
        : null,
      analysis_run: session.run,
      process_lineage: session.lineage(),
      ledger: { records: session.ledger.size, bytes: session.ledger.bytes },
    };
  },
});
