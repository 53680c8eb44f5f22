// A tools-only provider given as deferred is known by its tools' facts: binary_session reports its tools
// without creating it, the first call of one of its tools creates it (once), and facts that do not match
// the provider it creates fail that call with `internal` instead of running a tool it did not declare.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { NO_EFFECTS, defineTool, sortCatalog, toolFactsOf } from '@rea/provider-kit';
import type { Provider, ToolFacts } from '@rea/provider-kit';
import { SERVER_TOOLS, createReaServer } from '@rea/server';
import type { DeferredTools } from '@rea/server';
import { advertiseCatalog } from '@rea/schema';

const echoDefinition = {
  title: 'Echo text',
  description: 'Test tool: returns the text it was given, unchanged.',
  produces: 'result' as const,
  input: z.strictObject({ text: z.string().describe('The text to return.') }),
  result: z.strictObject({ text: z.string() }),
  examples: [{ input: { text: 'hello' } }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  clientFeatures: { optional: ['progress' as const] },
  run: async (input: { text: string }) => ({ text: input.text }),
};
const echo = defineTool({ ...echoDefinition, name: 'echo_text' });

const provider: Provider = {
  id: 'unit-deferred',
  name: 'Deferred unit tools',
  version: '1.0.0',
  kind: 'tools',
  capabilities: [],
  probe: async () => ({ status: 'ready' }),
  tools: () => [echo],
};

type Availability = { name: string; available: boolean; effects: object; client_features: object };

/** A connected client of a server whose only provider is deferred with `facts`; counts the loads. */
async function serve(facts: ToolFacts[], load: () => Promise<Provider> = async () => provider) {
  const counter = { loads: 0 };
  const deferred: DeferredTools = {
    provider: provider.id,
    tools: facts,
    load: async () => {
      counter.loads += 1;
      return load();
    },
  };
  const errors: string[] = [];
  const server = createReaServer({
    load: async () => ({ providers: [], deferred: [deferred] }),
    advertised: advertiseCatalog(sortCatalog([...SERVER_TOOLS, echo]), 'full'),
    package: { name: 'unit', version: '1' },
    env: {},
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m) => errors.push(m) },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  const availability = async (): Promise<Availability[]> =>
    (
      (await client.callTool({ name: 'binary_session', arguments: {} })).structuredContent as {
        tool_availability: Availability[];
      }
    ).tool_availability;
  return { client, counter, errors, availability };
}

const errorOf = (result: { content?: unknown }) =>
  JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as {
    error: { code: string; message: string; details: Record<string, unknown> };
  };

describe('issue 22: tools-only providers deferred until the first call of one of their tools', () => {
  it('should report the deferred tools from their facts, then load the provider once, on its first call', async () => {
    const { client, counter, availability } = await serve([toolFactsOf(echo)]);
    const before = await availability();
    expect(counter.loads).toBe(0);
    expect(before.find((entry) => entry.name === 'echo_text')).toEqual({
      name: 'echo_text',
      available: true,
      reason: null,
      remediation: null,
      client_features: { required: [], optional: ['progress'], missing: [] },
      effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
    });
    const [first, second] = await Promise.all([
      client.callTool({ name: 'echo_text', arguments: { text: 'one' } }),
      client.callTool({ name: 'echo_text', arguments: { text: 'two' } }),
    ]);
    expect([first.structuredContent, second.structuredContent]).toEqual([{ text: 'one' }, { text: 'two' }]);
    expect(counter.loads).toBe(1);
    // Once loaded, the contract itself answers, exactly as its facts did.
    expect(await availability()).toEqual(before);
    // Its input is validated like any loaded tool's.
    const invalid = await client.callTool({ name: 'echo_text', arguments: { text: 3 } });
    expect(errorOf(invalid).error).toMatchObject({ code: 'invalid_request', details: { issues: [{ path: 'text' }] } });
    await client.close();
  });

  it('should fail the call with internal when the provider does not match its facts', async () => {
    const facts = { ...toolFactsOf(echo), effects: { ...NO_EFFECTS, readOnly: false, mutatesSession: true } };
    const { client, errors } = await serve([facts]);
    const result = await client.callTool({ name: 'echo_text', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(errorOf(result).error).toMatchObject({
      code: 'internal',
      details: { reason: 'stale-tool-facts', provider_id: 'unit-deferred', tools: ['echo_text'] },
    });
    expect(errors).toContain('the declared tool facts do not match the loaded tools');
    await client.close();
  });

  it('should fail the call when the provider cannot be created, and try again with the next call', async () => {
    let attempts = 0;
    const { client, counter } = await serve([toolFactsOf(echo)], async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('package missing');
      return provider;
    });
    const failed = await client.callTool({ name: 'echo_text', arguments: { text: 'x' } });
    expect(errorOf(failed).error).toMatchObject({
      code: 'internal',
      message: expect.stringContaining('package missing'),
    });
    const retried = await client.callTool({ name: 'echo_text', arguments: { text: 'y' } });
    expect(retried.structuredContent).toEqual({ text: 'y' });
    expect(counter.loads).toBe(2);
    await client.close();
  });

  it('should answer the availability of deferred extra tools from the check they declare, before and after loading', async () => {
    const closed = () => ({ available: false as const, reason: 'no target is open', remediation: 'Open one.' });
    const gated = defineTool({ ...echoDefinition, name: 'gated_echo', availability: closed });
    let loads = 0;
    const group: DeferredTools = {
      provider: null,
      tools: [toolFactsOf(gated)],
      availability: closed,
      load: async () => {
        loads += 1;
        return [gated];
      },
    };
    const server = createReaServer({
      load: async () => ({ providers: [], deferred: [group] }),
      advertised: advertiseCatalog(sortCatalog([...SERVER_TOOLS, gated]), 'full'),
      package: { name: 'unit', version: '1' },
      env: {},
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);
    const entryOf = async () =>
      (
        (await client.callTool({ name: 'binary_session', arguments: {} })).structuredContent as {
          tool_availability: Availability[];
        }
      ).tool_availability.find((entry) => entry.name === 'gated_echo');
    const before = await entryOf();
    expect(before).toMatchObject({ available: false, reason: 'no target is open', remediation: 'Open one.' });
    expect(loads).toBe(0);
    const refused = await client.callTool({ name: 'gated_echo', arguments: { text: 'x' } });
    expect(errorOf(refused).error).toMatchObject({ code: 'capability_unavailable' });
    expect(loads).toBe(1);
    expect(await entryOf()).toEqual(before);
    await client.close();
  });

  it('should refuse a deferred tool named like another tool of the catalog', async () => {
    const clash = { ...toolFactsOf(echo), name: 'open_binary' };
    const { client } = await serve([toolFactsOf(echo), clash]);
    const result = await client.callTool({ name: 'echo_text', arguments: { text: 'x' } });
    expect(errorOf(result).error).toMatchObject({
      code: 'internal',
      message: expect.stringContaining('Two tools are named open_binary'),
    });
    await client.close();
  });
});
