import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { NO_EFFECTS, createCallSupervisor, defineTool } from '@rea/provider-kit';
import type { Provider } from '@rea/provider-kit';
import { SERVER_TOOLS, createReaServer, isLoopbackHost, measureResponse } from '@rea/server';
import { connectInMemory, unitToolsProvider } from './unitTools.js';

const bigResult = defineTool({
  name: 'big_result',
  title: 'Big result',
  description: 'Test tool: returns a plain result holding a string of the requested length.',
  produces: 'result',
  input: z.strictObject({ chars: z.number().int().positive().describe('Length of the string.') }),
  result: z.strictObject({ text: z.string() }),
  examples: [{ input: { chars: 10 } }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  run: async (input) => ({ text: 'a'.repeat(input.chars) }),
});

const toolsProvider = unitToolsProvider([bigResult]);

const connect = (env: NodeJS.ProcessEnv): Promise<Client> => connectInMemory([toolsProvider], env);

describe('measureResponse', () => {
  it('should count exactly the bytes of the structured and the text representation', () => {
    const value = { b: 'quote " backslash \\ newline \n tab \t bell \u0007 é 😀', a: [1, -0.5, true, null] };
    const cost = measureResponse(value, 1_000_000);
    expect(cost.structured).toBe(Buffer.byteLength(JSON.stringify(value)));
    expect(cost.text).toBe(Buffer.byteLength(JSON.stringify(JSON.stringify(value))));
    expect(cost.total).toBe(cost.structured + cost.text);
    expect(cost.fits).toBe(true);
    expect(measureResponse(value, 1_000_000, false).total).toBe(cost.text);
  });

  it('should stop counting once the budget is passed', () => {
    const cost = measureResponse({ parts: Array.from({ length: 1000 }, () => 'x'.repeat(1000)) }, 100_000);
    expect(cost.fits).toBe(false);
    expect(cost.total).toBeGreaterThan(100_000);
    expect(cost.structured).toBeLessThan(200_000);
  });

  it('should count nested values, unicode and escapes like the canonical form', () => {
    const value = { z: [{ k: '\u0001\u001f"\\' }, [], {}], 'é😀': 1e21, n: -0, big: 123456789.125, f: false };
    const cost = measureResponse(value, 10_000);
    expect(cost.structured).toBe(Buffer.byteLength(JSON.stringify(value)));
    expect(cost.text).toBe(Buffer.byteLength(JSON.stringify(JSON.stringify(value))));
  });

  it('should refuse values JSON cannot carry', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => measureResponse(cyclic, 1000)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => measureResponse({ a: undefined }, 1000)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => measureResponse({ a: Number.NaN }, 1000)).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
  });
});

describe('isLoopbackHost', () => {
  it('should accept loopback names and addresses only', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['0.0.0.0', '192.168.1.10', '::', 'example.com', '128.0.0.1'])
      expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('createReaServer', () => {
  it("should catalog the seven server tools plus the providers' tools", async () => {
    expect(SERVER_TOOLS.map((tool) => tool.name)).toEqual([
      'binary_session',
      'close_binary',
      'export_evidence_bundle',
      'get_evidence_bundle',
      'import_evidence_bundle',
      'inspect_analysis_view',
      'open_binary',
    ]);
    const client = await connect({});
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['big_result', ...SERVER_TOOLS.map((tool) => tool.name)].sort());
    await client.close();
  });

  it('should report the installed SDK version and the configured schema profile', async () => {
    const sdkEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server');
    const installed = JSON.parse(readFileSync(join(dirname(sdkEntry), '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    const client = await connect({ REA_MCP_INPUT_SCHEMA_PROFILE: 'compact' });
    const result = await client.callTool({ name: 'binary_session', arguments: {} });
    const session = result.structuredContent as {
      sdk: { version: string };
      catalog: { profile: string };
      package: object;
    };
    expect(session.sdk.version).toBe(installed.version);
    expect(session.catalog.profile).toBe('compact');
    expect(session.package).toEqual({ name: 'unit', version: '1.2.3' });
    await client.close();
  });

  it('should refuse a result above the default budget and deliver it once REA_MCP_MAX_RESPONSE_BYTES allows', async () => {
    // About 2 × 6 MB of text and structured content: above 10 MiB, below 32 MiB.
    const chars = 6 * 1024 * 1024;
    const small = await connect({});
    const refused = await small.callTool({ name: 'big_result', arguments: { chars } });
    expect(refused.isError).toBe(true);
    const diagnostic = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text) as {
      error: { code: string; details: { resource: string; reported_limits: { evidence_reference: unknown } } };
    };
    expect(diagnostic.error.code).toBe('resource_constraint');
    expect(diagnostic.error.details.resource).toBe('transport');
    expect(diagnostic.error.details.reported_limits.evidence_reference).toBeNull();
    await small.close();
    const large = await connect({ REA_MCP_MAX_RESPONSE_BYTES: String(32 * 1024 * 1024) });
    const delivered = await large.callTool({ name: 'big_result', arguments: { chars } });
    expect(delivered.isError).toBeFalsy();
    expect((delivered.structuredContent as { text: string }).text).toHaveLength(chars);
    await large.close();
  });

  it('should refuse an invalid REA_MCP_MAX_RESPONSE_BYTES at startup with configuration_invalid', () => {
    for (const value of ['5', '10485759', '1e8', 'lots']) {
      expect(() =>
        createReaServer({
          providers: [],
          package: { name: 'unit', version: '1' },
          env: { REA_MCP_MAX_RESPONSE_BYTES: value },
        }),
      ).toThrow(expect.objectContaining({ code: 'configuration_invalid' }));
    }
  });
});

describe('close_binary', () => {
  it('should clear the ledger and report cleanup_incomplete when the provider cannot release what it owns', async () => {
    const { createAnalysisProfile } = await import('@rea/evidence');
    const leaky: Provider = {
      id: 'leaky',
      name: 'Leaky engine (test only)',
      version: '0.0.0',
      kind: 'deep',
      port: 'native',
      embedded: true,
      capabilities: [],
      probe: async () => ({ status: 'ready' }),
      tools: () => [],
      open: async () => ({
        provider: { id: 'leaky', name: 'Leaky engine (test only)', version: '1' },
        analysis_profile: createAnalysisProfile({ name: 'leaky', version: '1', settings: {} }),
        session: null,
        close: async () => {
          const { ReaError } = await import('@rea/evidence');
          throw new ReaError('cleanup_incomplete', 'A temp directory remains.', {
            details: { remaining: [{ kind: 'temp-directories', identifiers: ['/tmp/rea-leaky-x'] }] },
          });
        },
      }),
    };
    const server = createReaServer({ providers: [leaky], package: { name: 'unit', version: '1' }, env: {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);
    const opened = await client.callTool({ name: 'open_binary', arguments: { path: process.argv[1]! } });
    expect(opened.isError).toBeFalsy();
    const closed = await client.callTool({ name: 'close_binary', arguments: {} });
    expect(closed.isError).toBe(true);
    const error = JSON.parse((closed.content as Array<{ text: string }>)[0]!.text) as {
      error: { code: string; details: { remaining: Array<{ kind: string }> } };
    };
    expect(error.error.code).toBe('cleanup_incomplete');
    expect(error.error.details.remaining.map((r) => r.kind)).toEqual(['temp-directories']);
    const session = (await client.callTool({ name: 'binary_session', arguments: {} })).structuredContent as {
      target: unknown;
      analysis_provider_binding: unknown;
      ledger: { records: number };
    };
    expect(session).toMatchObject({ target: null, analysis_provider_binding: null, ledger: { records: 0 } });
    await client.close();
  });
});

describe('precomputed advertised catalog', () => {
  it('should serve a matching precomputed catalog and refuse a stale one', async () => {
    const { advertiseCatalog } = await import('@rea/schema');
    const { sortCatalog } = await import('@rea/provider-kit');
    const catalog = sortCatalog([...SERVER_TOOLS, bigResult]);
    const advertised = advertiseCatalog(catalog, 'full');
    const server = createReaServer({
      providers: [toolsProvider],
      package: { name: 'unit', version: '1' },
      env: {},
      advertised,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.inputSchema)).toEqual(advertised.tools.map((tool) => tool.inputSchema));
    await client.close();
    const stale = advertiseCatalog(SERVER_TOOLS, 'full');
    expect(() =>
      createReaServer({
        providers: [toolsProvider],
        package: { name: 'unit', version: '1' },
        env: {},
        advertised: stale,
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        details: expect.objectContaining({ missing: ['big_result'] }),
      }),
    );
    expect(() =>
      createReaServer({
        providers: [toolsProvider],
        package: { name: 'unit', version: '1' },
        env: { REA_MCP_INPUT_SCHEMA_PROFILE: 'compact' },
        advertised,
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});

describe('server tools outside the MCP server (a CLI host)', () => {
  it('should run the Evidence tools on the host ledger and refuse the connection tools', async () => {
    const { createSessionLedger, sealEvidence } = await import('@rea/evidence');
    const { executeTool } = await import('@rea/provider-kit');
    const ledger = createSessionLedger();
    const record = sealEvidence({
      operation: 'describe_text',
      subject: null,
      provider: { id: 'unit', name: 'Unit', version: '1' },
      analysis_profile: null,
      parameters: {},
      normalized_result: { lines: ['a', 'b', 'c'] },
      raw_result: null,
      confidence: 'observed',
      limitations: [],
      coverage: { status: 'complete', reasons: [] },
      locations: [],
      evidence_links: [],
    });
    ledger.retain(record);
    const context = {
      session: { target: null, binding: null, run_id: null },
      platform: process.platform,
      signal: new AbortController().signal,
      progress: { report: () => undefined },
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      ledger,
      clientFeatures: new Set<never>(),
      supervisor: createCallSupervisor(),
    };
    const tool = (name: string) => SERVER_TOOLS.find((t) => t.name === name)!;
    const bundle = await executeTool(tool('get_evidence_bundle'), { detail: 'summary' }, context);
    expect(bundle).toMatchObject({ kind: 'result', value: { records: [{ evidence_id: record.evidence_id }] } });
    const view = await executeTool(
      tool('inspect_analysis_view'),
      {
        source: { kind: 'retained-evidence', evidence_id: record.evidence_id },
        view: 'page',
        collection: 'lines',
        limit: 2,
      },
      context,
    );
    expect(view.kind).toBe('evidence');
    expect(view.kind === 'evidence' && view.record.normalized_result).toMatchObject({ items: ['a', 'b'] });
    await expect(executeTool(tool('binary_session'), {}, context)).rejects.toMatchObject({
      code: 'capability_unavailable',
    });
    await expect(executeTool(tool('open_binary'), { path: '/bin/true' }, context)).rejects.toMatchObject({
      code: 'capability_unavailable',
      remediation: expect.stringContaining('--target'),
    });

    // A host that describes itself gets binary_session answered from those facts and its ledger.
    const { advertiseCatalog } = await import('@rea/schema');
    const advertised = advertiseCatalog(SERVER_TOOLS, 'full');
    const withFacts = {
      ...context,
      invocationHost: {
        package: { name: 'rea', version: '1.2.3' },
        entryPath: '/opt/rea/bin.js',
        tools: async () => SERVER_TOOLS,
        providers: async () => [],
        catalog: async () => ({
          digest: advertised.digest,
          profile: advertised.profile,
          tool_count: advertised.tools.length,
          reduced: [...advertised.reduced],
        }),
      },
    };
    const session = await executeTool(tool('binary_session'), { expected_server_path: '/opt/rea/bin.js' }, withFacts);
    expect(session.kind).toBe('result');
    const value = (session.kind === 'result' ? session.value : null) as {
      server: { transport: string; path: string };
      protocol: unknown;
      catalog: { digest: string };
      expectations: unknown[];
      tool_availability: Array<{ name: string; available: boolean }>;
      analysis_provider_candidates: unknown[];
      ledger: { records: number };
    };
    expect(value.server).toMatchObject({ transport: 'custom', path: '/opt/rea/bin.js' });
    expect(value.protocol).toEqual({ negotiated_version: null, client: null });
    expect(value.catalog.digest).toBe(advertised.digest);
    expect(value.expectations).toEqual([
      { field: 'server_path', expected: '/opt/rea/bin.js', actual: '/opt/rea/bin.js', matches: true },
    ]);
    const available = Object.fromEntries(value.tool_availability.map((t) => [t.name, t.available]));
    expect(Object.keys(available)).toEqual(SERVER_TOOLS.map((t) => t.name));
    expect(available).toMatchObject({ open_binary: false, close_binary: false, get_evidence_bundle: true });
    expect(value.analysis_provider_candidates).toEqual([]);
    // executeTool returns the view; retaining it is the host's job, so only the record put there counts.
    expect(value.ledger.records).toBe(1);
  });
});

describe('lazy composition', () => {
  async function open(options: Parameters<typeof createReaServer>[0]): Promise<Client> {
    const server = createReaServer(options);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);
    return client;
  }

  it('should answer tools/list from the advertised catalog and load the composition once, on the first call', async () => {
    const { advertiseCatalog } = await import('@rea/schema');
    const { sortCatalog } = await import('@rea/provider-kit');
    const advertised = advertiseCatalog(sortCatalog([...SERVER_TOOLS, bigResult]), 'full');
    let loads = 0;
    const client = await open({
      load: async () => {
        loads += 1;
        return { providers: [toolsProvider] };
      },
      advertised,
      package: { name: 'unit', version: '1' },
      env: {},
    });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(advertised.tools.map((tool) => tool.name));
    expect(loads).toBe(0);
    const [first, second] = await Promise.all([
      client.callTool({ name: 'big_result', arguments: { chars: 3 } }),
      client.callTool({ name: 'binary_session', arguments: {} }),
    ]);
    expect(first.structuredContent).toEqual({ text: 'aaa' });
    const session = second.structuredContent as {
      catalog: { digest: string; tool_count: number };
      tool_availability: Array<{ name: string }>;
    };
    expect(session.catalog).toMatchObject({ digest: advertised.digest, tool_count: advertised.tools.length });
    expect(session.tool_availability.map((entry) => entry.name)).toEqual(tools.map((tool) => tool.name));
    expect(loads).toBe(1);
    await client.close();
  });

  it('should fail every call with internal when the loaded catalog differs from the advertised one', async () => {
    const { advertiseCatalog } = await import('@rea/schema');
    const entries: string[] = [];
    const quiet = (message: string): void => void entries.push(message);
    const client = await open({
      load: async () => ({ providers: [toolsProvider] }),
      advertised: advertiseCatalog(SERVER_TOOLS, 'full'),
      package: { name: 'unit', version: '1' },
      env: {},
      logger: { debug: () => undefined, info: () => undefined, warn: quiet, error: quiet },
    });
    expect((await client.listTools()).tools).toHaveLength(SERVER_TOOLS.length);
    for (const name of ['binary_session', 'big_result']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError).toBe(true);
      const text = (result.content as Array<{ text: string }>)[0]!.text;
      const error = JSON.parse(text) as { error: { code: string; details: { missing: string[] } } };
      expect(error.error.code).toBe('internal');
      expect(error.error.details.missing).toEqual(['big_result']);
    }
    expect(entries.some((message) => message.includes('does not match'))).toBe(true);
    await client.close();
  });

  it('should fail calls with internal when load rejects, and refuse an ambiguous or missing composition', async () => {
    const client = await open({
      load: () => Promise.reject(new Error('provider package missing')),
      package: { name: 'unit', version: '1' },
      env: {},
      logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    const result = await client.callTool({ name: 'binary_session', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(JSON.parse(text)).toMatchObject({
      error: { code: 'internal', message: expect.stringContaining('provider package missing') },
    });
    await client.close();
    const pkg = { name: 'unit', version: '1' };
    expect(() => createReaServer({ package: pkg, env: {} })).toThrow(
      expect.objectContaining({ code: 'invalid_request' }),
    );
    expect(() =>
      createReaServer({ providers: [], load: async () => ({ providers: [] }), package: pkg, env: {} }),
    ).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});

describe('the serve entry', () => {
  it('should export the same transports and factory as the main entry, and refuse a provider tool named like a server tool', async () => {
    const serve = await import('@rea/server/serve');
    expect(serve.runStdioServer).toBe((await import('@rea/server')).runStdioServer);
    expect(serve.runHttpServer).toBe((await import('@rea/server')).runHttpServer);
    expect(serve.createReaServer).toBe(createReaServer);
    const clash: Provider = { ...toolsProvider, tools: () => [{ ...bigResult, name: 'open_binary' }] };
    expect(() =>
      serve.createReaServer({ providers: [clash], package: { name: 'unit', version: '1' }, env: {} }),
    ).toThrow(
      expect.objectContaining({ code: 'invalid_request', details: { reason: 'duplicate-tool', tool: 'open_binary' } }),
    );
  });
});
