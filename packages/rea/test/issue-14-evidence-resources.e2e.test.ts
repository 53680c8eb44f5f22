// Evidence as MCP resources: a result links its retained record as rea://evidence/<evidence_id>, and
// resources/read (with the template resources/templates/list names) returns that record from the
// connection's ledger, so a client can fetch it again without rerunning the tool.
// A miss is invalid params (-32602, MCP 2025-11-25) with data {uri} and a message naming the id.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { REA_BIN } from './httpEntry.js';

async function failureOf(pending: Promise<unknown>): Promise<ProtocolError> {
  const outcome = await pending.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ProtocolError);
  return outcome as ProtocolError;
}

describe('issue 14: retained Evidence as MCP resources (rea mcp over stdio)', () => {
  let dir: string;
  let client: Client;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-resources-'));
    writeFileSync(join(dir, 'notes.bin'), Buffer.from('REA resource test payload\n'.repeat(40)));
    client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore' }),
    );
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should declare resources and list the evidence template', async () => {
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({
        uriTemplate: 'rea://evidence/{evidence_id}',
        name: 'evidence',
        mimeType: 'application/json',
      }),
    ]);
  });

  it('should answer a record the connection does not hold with a JSON-RPC error naming its id', async () => {
    const id = `ev_${'ab'.repeat(32)}`;
    const error = await failureOf(client.readResource({ uri: `rea://evidence/${id}` }));
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ uri: `rea://evidence/${id}` });
    expect(error.message).toContain(id);
    const invalid = await failureOf(client.readResource({ uri: 'file:///etc/passwd' }));
    expect(invalid.code).toBe(-32602);
  });

  it('should link a result to its retained record and return that record from resources/read', async () => {
    const result = (await client.callTool({
      name: 'inspect_artifact',
      arguments: { path: join(dir, 'notes.bin') },
    })) as {
      content: Array<Record<string, unknown>>;
      structuredContent: Record<string, unknown>;
      isError?: boolean;
    };
    expect(result.isError).toBeFalsy();
    const id = result.structuredContent['evidence_id'] as string;
    expect(id).toMatch(/^ev_[0-9a-f]{64}$/);
    const link = result.content.find((item) => item['type'] === 'resource_link');
    expect(link).toMatchObject({ uri: `rea://evidence/${id}`, name: id, mimeType: 'application/json' });

    const read = await client.readResource({ uri: `rea://evidence/${id}` });
    expect(read.contents).toHaveLength(1);
    const [content] = read.contents as Array<{ uri: string; mimeType: string; text: string }>;
    expect(content).toMatchObject({ uri: `rea://evidence/${id}`, mimeType: 'application/json' });
    expect(JSON.parse(content!.text)).toEqual(result.structuredContent);

    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(`rea://evidence/${id}`);

    // close_binary clears the ledger: the record is gone from resources too.
    await client.callTool({ name: 'close_binary', arguments: {} });
    const gone = await failureOf(client.readResource({ uri: `rea://evidence/${id}` }));
    expect(gone.code).toBe(-32602);
    expect(gone.message).toContain(id);
    expect((await client.listResources()).resources).toEqual([]);
  });
});
