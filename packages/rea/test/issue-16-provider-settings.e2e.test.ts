// The built `rea mcp` validates the settings its default providers declare at start, not only REA's
// own: Capstone's REA_CAPSTONE_OPEN_TIMEOUT_MS with a value outside its accepted form stops the start
// (over stdio, whose fast path loads no provider, and over HTTP) with the variable, the value and the
// accepted form, and exit status 4 (configuration_invalid). A valid value starts the server.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.cjs');
const ACCEPTED = 'a decimal integer from 1 to 2147483647 (digits only, no leading zero)';

/** Runs the built rea with `args` and REA_CAPSTONE_OPEN_TIMEOUT_MS=`value`; its exit status and stderr. */
function run(args: string[], value: string): Promise<{ status: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, REA_CAPSTONE_OPEN_TIMEOUT_MS: value },
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stdin.end();
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stderr, stdout })));
}

describe('issue 16: rea mcp composes the default providers’ settings at start', () => {
  it.each([
    ['stdio', ['mcp']],
    ['HTTP', ['mcp', '--http', '127.0.0.1:0']],
  ])(
    'should refuse to start over %s on an invalid provider variable, naming it, its value and its form',
    async (_, args) => {
      for (const value of ['0', '10s', '']) {
        const { status, stderr, stdout } = await run(args, value);
        expect({ status, stdout }).toEqual({ status: 4, stdout: '' });
        expect(stderr).toContain(
          `rea: error [configuration_invalid]: REA_CAPSTONE_OPEN_TIMEOUT_MS="${value}" is not ${ACCEPTED}.`,
        );
        expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
      }
    },
  );

  it('should start with a valid value and list the variable in rea doctor', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      env: { ...(process.env as Record<string, string>), REA_CAPSTONE_OPEN_TIMEOUT_MS: '900000' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'settings-test', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const doctor = await run(['doctor', '--json'], '900000');
    const report = JSON.parse(doctor.stdout) as { configuration: unknown; settings: unknown[] };
    expect(report.configuration).toEqual({ valid: true });
    expect(report.settings).toContainEqual(
      expect.objectContaining({
        variable: 'REA_CAPSTONE_OPEN_TIMEOUT_MS',
        owner: 'capstone',
        accepted: ACCEPTED,
        default: '600000',
        set: true,
      }),
    );
  });
});
