// MCP prompts for the common investigations (triage a binary, compare two versions of an artifact,
// trace a feature), each a short workflow over REA's own tools.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { REA_BIN } from './httpEntry.js';

/** The tools each workflow must name (and tools/list must contain). */
const WORKFLOWS: Record<string, { args: Record<string, string>; tools: string[] }> = {
  compare_versions: {
    args: { old_path: '/srv/app-1.0.zip', new_path: '/srv/app-1.1 "beta".zip' },
    tools: ['inspect_artifact', 'compare_artifacts', 'inspect_binary_layout', 'analyze_function', 'compare_functions'],
  },
  trace_feature: {
    args: { path: '/opt/tool/bin/tool', feature: 'License expired' },
    tools: [
      'open_binary',
      'search_strings',
      'xrefs',
      'resolve_containing_procedure',
      'get_call_graph',
      'trace_call_path',
    ],
  },
  triage_binary: {
    args: { path: '/usr/bin/true' },
    tools: ['inspect_artifact', 'inspect_binary_layout', 'open_binary', 'binary_overview', 'search_strings'],
  },
};

describe('issue 14: investigation prompts (rea mcp over stdio)', () => {
  let client: Client;
  let tools: Set<string>;
  beforeAll(async () => {
    client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore' }),
    );
    tools = new Set((await client.listTools()).tools.map((tool) => tool.name));
  });
  afterAll(async () => {
    await client.close();
  });

  it('should list the three workflows with descriptions and their arguments', async () => {
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(Object.keys(WORKFLOWS));
    for (const prompt of prompts) {
      expect(prompt.description?.length).toBeGreaterThan(20);
      const required = (prompt.arguments ?? [])
        .filter((argument) => argument.required)
        .map((argument) => argument.name);
      expect(required).toEqual(Object.keys(WORKFLOWS[prompt.name]!.args));
    }
  });

  it.each(Object.entries(WORKFLOWS))('should write the %s workflow over tools REA has', async (name, workflow) => {
    const { messages } = await client.getPrompt({ name, arguments: workflow.args });
    expect(messages).toHaveLength(1);
    expect(messages[0]!.role).toBe('user');
    const text = (messages[0]!.content as { type: string; text: string }).text;
    // Each argument appears as a JSON string, ready to paste into a tool call.
    for (const value of Object.values(workflow.args)) expect(text).toContain(JSON.stringify(value));
    for (const tool of workflow.tools) {
      expect({ tool, inCatalog: tools.has(tool), named: text.includes(tool) }).toEqual({
        tool,
        inCatalog: true,
        named: true,
      });
    }
    // Every snake_case word followed by a JSON argument object is a tool of the catalog.
    for (const [, called] of text.matchAll(/\b([a-z]+(?:_[a-z]+)+) \{/g)) expect(tools.has(called!)).toBe(true);
  });

  it('should refuse an unknown prompt and a missing required argument with invalid params', async () => {
    for (const request of [{ name: 'no_such_prompt' }, { name: 'trace_feature', arguments: { path: '/bin/ls' } }]) {
      const error = await client.getPrompt(request).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).code).toBe(-32602);
    }
  });
});
