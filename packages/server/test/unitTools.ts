// The unit test tools the server's in-process tests serve: a provider that contributes given tools, the
// Evidence observation such a tool returns, and a client connected to a server over an in-memory pipe.
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { JsonObject } from '@rea/evidence';
import type { AnyToolContract, Provider } from '@rea/provider-kit';
import { createReaServer } from '@rea/server';

/** The provider the unit test tools come from. */
export const UNIT_PROVIDER = { id: 'unit-tools', name: 'Unit test tools', version: '0.0.0' };

/** A provider, ready at once, contributing `tools`. */
export function unitToolsProvider(tools: readonly AnyToolContract[]): Provider {
  return {
    ...UNIT_PROVIDER,
    kind: 'tools',
    capabilities: [],
    probe: async () => ({ status: 'ready' }),
    tools: () => [...tools],
  };
}

/**
 * What a unit test tool observes: `normalized_result`, observed and complete, with no subject, profile,
 * raw result, limitations, locations or links; `extra` adds or replaces members (`parameters`, `local`).
 */
export function unitObservation<R>(normalized_result: R, extra: { parameters?: JsonObject; local?: JsonObject } = {}) {
  return {
    subject: null,
    provider: { ...UNIT_PROVIDER },
    analysis_profile: null,
    parameters: extra.parameters ?? {},
    normalized_result,
    raw_result: null,
    confidence: 'observed' as const,
    limitations: [],
    coverage: { status: 'complete' as const, reasons: [] },
    locations: [],
    evidence_links: [],
    ...(extra.local === undefined ? {} : { local: extra.local }),
  };
}

/** A client connected over an in-memory pipe to a server of `providers`, configured by `env`. */
export async function connectInMemory(providers: readonly Provider[], env: NodeJS.ProcessEnv = {}): Promise<Client> {
  const server = createReaServer({ providers, package: { name: 'unit', version: '1.2.3' }, env });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  return client;
}
