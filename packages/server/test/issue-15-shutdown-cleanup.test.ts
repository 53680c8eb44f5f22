// Ending a connection cancels its calls in flight through their signal and waits for their cleanup;
// owned resources a cancelled call reports it could not release are logged as cleanup_incomplete.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { ReaError } from '@rea/evidence';
import type { JsonObject } from '@rea/evidence';
import { NO_EFFECTS, defineTool } from '@rea/provider-kit';
import type { Logger, Provider } from '@rea/provider-kit';
import { createReaServer } from '@rea/server';

/** Waits for its signal, then "cleans up": removes its resource, or reports that one remains. */
function holdingTool(events: string[]) {
  return defineTool({
    name: 'hold_resource',
    title: 'Hold a resource',
    description: 'Test tool: holds a resource until cancelled, then releases it or reports it remains.',
    produces: 'result',
    input: z.strictObject({ release: z.boolean().describe('Whether cleanup succeeds.') }),
    result: z.strictObject({ held: z.boolean() }),
    examples: [{ input: { release: true } }],
    effects: { ...NO_EFFECTS, writesFilesystem: true },
    run: async (input, context) => {
      events.push('started');
      await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
      // Cleanup takes a while: the connection must wait for it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (!input.release) {
        events.push('cleanup failed');
        throw new ReaError('cleanup_incomplete', 'The staging directory could not be removed.', {
          details: { remaining: [{ kind: 'temporary-directory', identifiers: ['/tmp/rea-held'] }] },
        });
      }
      events.push('cleaned up');
      throw new ReaError('cancelled', 'hold_resource was cancelled.');
    },
  });
}

async function runUntilClosed(release: boolean) {
  const events: string[] = [];
  const entries: Array<{ level: string; message: string; data?: JsonObject }> = [];
  const log =
    (level: string) =>
    (message: string, data?: JsonObject): void =>
      void entries.push({ level, message, ...(data ? { data } : {}) });
  const logger: Logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  const provider: Provider = {
    id: 'unit-holder',
    name: 'Unit holder',
    version: '0.0.0',
    kind: 'tools',
    capabilities: [],
    probe: async () => ({ status: 'ready' }),
    tools: () => [holdingTool(events)],
  };
  const server = createReaServer({ providers: [provider], package: { name: 'unit', version: '1' }, logger, env: {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(clientSide);
  const pending = client.callTool({ name: 'hold_resource', arguments: { release } }).catch(() => null);
  while (!events.includes('started')) await new Promise((resolve) => setTimeout(resolve, 5));
  await server.close();
  const afterClose = [...events];
  await pending;
  await client.close().catch(() => undefined);
  return { afterClose, entries };
}

describe('connection shutdown (issue 15)', () => {
  it('should cancel a call in flight and wait for its cleanup before the connection is closed', async () => {
    const { afterClose, entries } = await runUntilClosed(true);
    expect(afterClose).toEqual(['started', 'cleaned up']);
    expect(entries.filter((entry) => entry.message.includes('cleanup_incomplete'))).toEqual([]);
  });

  it('should log cleanup_incomplete with the resources a cancelled call left', async () => {
    const { afterClose, entries } = await runUntilClosed(false);
    expect(afterClose).toEqual(['started', 'cleanup failed']);
    const incomplete = entries.filter(
      (entry) => entry.level === 'error' && entry.data?.['code'] === 'cleanup_incomplete',
    );
    expect(incomplete).toHaveLength(1);
    expect(incomplete[0]!.data!['remaining']).toEqual([
      { kind: 'temporary-directory', identifiers: ['/tmp/rea-held'] },
    ]);
  });
});
