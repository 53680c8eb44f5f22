// A `rea` command that runs once keeps V8's young generation at its initial size: an analysis allocates
// in bursts while it builds the tables it keeps, and a young generation grown to 16 MiB semi-spaces only
// holds more garbage (tens of MiB of resident memory on a large binary). A server (`rea mcp`) keeps
// V8's default and lets it grow: call after call, the tools that build many small objects would
// otherwise scavenge a 1 MiB young generation ten times a call. A preload reports the young
// generation's size as the process exits, after a whole `rea analyze` of a system program, and after
// a server has listed the classes of a real DEX file (Debian's androguard samples) a few times.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { withTempDir } from '@rea/test-helpers';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const PROGRAM = ['/usr/bin/bash', '/bin/bash'].find((path) => existsSync(path))!;
/** 5.4 MB, 4,656 classes (Debian's androguard package, which .ci/run installs). */
const DEX = '/usr/share/doc/androguard/examples/tests/fdroid/org.andstatus.app_254.dex';

/** A preload writing the young generation's capacity (bytes) to REA_TEST_NEW_SPACE when the process exits. */
const REPORTER =
  'data:text/javascript,' +
  encodeURIComponent(`
import { writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
process.on('exit', () => {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  writeFileSync(process.env.REA_TEST_NEW_SPACE, String(space.space_size));
});
`);

function analyze(report: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', REPORTER, bin, 'analyze', PROGRAM, '--format', 'json', '--quiet'],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, REA_TEST_NEW_SPACE: report } },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('issue 22: the young generation of a rea process', () => {
  it('should stay at its initial size through a whole analysis of a 1 MB program', async () => {
    await withTempDir(async (dir) => {
      const report = join(dir, 'new-space');
      const { code, stdout } = await analyze(report);
      expect(code).toBe(0);
      const analysed = JSON.parse(stdout) as { records: Array<{ operation: string }> };
      expect(analysed.records.map((r) => r.operation)).toContain('binary_overview');
      // Two 1 MiB semi-spaces; grown, they reach 16 MiB each on this analysis.
      expect(Number(readFileSync(report, 'utf8'))).toBeLessThanOrEqual(2 * 1024 * 1024);
    });
  }, 120_000);

  it('should grow in a server answering calls that build many small objects', async () => {
    expect(existsSync(DEX)).toBe(true);
    await withTempDir(async (dir) => {
      const report = join(dir, 'new-space');
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', REPORTER, bin, 'mcp'],
        env: { ...(process.env as Record<string, string>), REA_TEST_NEW_SPACE: report },
        stderr: 'inherit',
      });
      const client = new Client({ name: 'rea-young-generation', version: '1.0.0' });
      await client.connect(transport);
      try {
        for (let call = 0; call < 4; call++) {
          const result = (await client.callTool({
            name: 'search_android_classes',
            arguments: { path: DEX, limit: 500 },
          })) as { isError?: boolean; structuredContent?: { normalized_result?: { classes?: unknown[] } } };
          expect(result.isError).toBeFalsy();
          expect(result.structuredContent?.normalized_result?.classes).toHaveLength(500);
        }
      } finally {
        await client.close();
      }
      // The client's close ends the server; the preload wrote the size as it exited.
      for (let wait = 0; wait < 100 && !existsSync(report); wait++) await new Promise((r) => setTimeout(r, 50));
      expect(Number(readFileSync(report, 'utf8'))).toBeGreaterThan(2 * 1024 * 1024);
    });
  }, 120_000);
});
