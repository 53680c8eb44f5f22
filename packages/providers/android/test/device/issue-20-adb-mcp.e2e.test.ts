/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// The device tools as an MCP client sees them: the built `rea mcp` over stdio, its adb client pointed at
// the STAND-IN adb server (support/standInAdbServer.ts). Annotations, a result and a typed refusal.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { scriptedDevice } from './support/scriptedDevice.js';
import { startStandInAdbServer } from './support/standInAdbServer.js';
import type { StandInAdbServer } from './support/standInAdbServer.js';

const REA_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'rea', 'dist', 'bin.cjs');

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };

describe('android device tools over rea mcp (stand-in adb server)', () => {
  let server: StandInAdbServer;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Result> =>
    (await client.callTool({ name, arguments: args }, { timeout: 120_000 })) as Result;

  beforeAll(async () => {
    server = await startStandInAdbServer([scriptedDevice('STANDIN01')]);
    client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    const env = { ...(process.env as Record<string, string>), ADB_SERVER_SOCKET: server.socketSpec };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore', env }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('should advertise read-only and destructive device tools', async () => {
    const tools = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool.annotations ?? {}]));
    // MCP hint defaults (readOnlyHint false, destructiveHint true) apply where a hint is omitted.
    const hints = (name: string) => {
      const annotations = tools.get(name)!;
      return [annotations.readOnlyHint ?? false, annotations.destructiveHint ?? true];
    };
    expect(hints('inspect_android_device')).toEqual([true, false]);
    expect(hints('pull_android_file')).toEqual([false, false]);
    for (const name of [
      'push_android_file',
      'install_android_package',
      'uninstall_android_package',
      'start_android_app',
      'stop_android_app',
    ]) {
      expect([name, ...hints(name)]).toEqual([name, false, true]);
    }
  });

  it('should inspect the device, then refuse an ambiguous call once a second device attaches', async () => {
    const result = await call('inspect_android_device', { facets: ['display'] });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      serial: 'STANDIN01',
      display: { width: 1080, height: 2400, density: 420 },
    });
    server.devices.push(scriptedDevice('STANDIN02'));
    const refused = await call('inspect_android_device', {});
    expect(refused.isError).toBe(true);
    const error = JSON.parse(refused.content[0]!.text!).error;
    expect([error.code, error.details.reason, error.details.serials]).toEqual([
      'invalid_request',
      'ambiguous-device',
      ['STANDIN01', 'STANDIN02'],
    ]);
  });
});
