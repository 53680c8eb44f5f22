// The advertised catalog of the built `rea mcp` is the same whether the external engines are present
// (stand-in Ghidra and Hopper installations, tests/helpers/standin) or absent.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createStandinGhidra, createStandinHopper } from '@rea/test-helpers';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'packages', 'rea', 'dist', 'bin.cjs');

async function catalogWith(env: Record<string, string>, cwd: string) {
  const client = new Client({ name: 'rea-catalog-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      stderr: 'ignore',
      cwd,
      env: { PATH: process.env['PATH'] ?? '', TMPDIR: tmpdir(), ...env },
    }),
  );
  try {
    const { tools } = await client.listTools();
    const session = (await client.callTool({ name: 'binary_session', arguments: {} })) as {
      structuredContent: { analysis_provider_candidates: Array<{ id: string; available: boolean }> };
    };
    return { tools, candidates: session.structuredContent.analysis_provider_candidates };
  } finally {
    await client.close();
  }
}

describe('catalog with and without external engines (issue 21)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-standin-catalog-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('advertises the same tools whether Ghidra and Hopper are present or absent', async () => {
    const absent = await catalogWith({}, dir);
    const present = await catalogWith(
      { ...createStandinGhidra(dir, { mode: 'normal' }), ...createStandinHopper(dir, { mode: 'normal' }) },
      dir,
    );
    const available = (c: typeof absent) => c.candidates.filter((x) => x.available).map((x) => x.id);
    expect(available(absent)).not.toContain('ghidra');
    expect(available(present)).toEqual(expect.arrayContaining(['ghidra', 'hopper']));
    expect(present.tools).toEqual(absent.tools);
  });
});
