import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReaHttp } from './httpEntry.js';
import type { HttpEntry } from './httpEntry.js';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/conformance/package.json');
const cli = join(dirname(manifest), 'dist', 'index.js');

/**
 * The server scenarios of the active suite that apply to what REA offers: the handshake, ping, logging,
 * tools/list, resources/list (retained Evidence), prompts/list, concurrent streams and DNS-rebinding
 * protection. Every other active scenario is in conformance-baseline.yml with its reason.
 */
const APPLICABLE = [
  'dns-rebinding-protection',
  'logging-set-level',
  'ping',
  'prompts-list',
  'resources-list',
  'server-initialize',
  'server-sse-multiple-streams',
  'tools-list',
];

/** Runs the conformance CLI to completion (killed after 240 s, so a hang fails instead of stalling). */
function runSuite(args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

describe('official MCP conformance suite (0.1.13) against `rea mcp --http`', () => {
  let server: HttpEntry;
  let out: string;
  beforeAll(async () => {
    server = await startReaHttp('127.0.0.1:0');
    out = mkdtempSync(join(tmpdir(), 'rea-conformance-'));
  });
  afterAll(async () => {
    await server.stop();
    rmSync(out, { recursive: true, force: true });
  });

  it('should pass every applicable scenario and fail only the baseline, whose scenarios are all active', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect((JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version).toBe('0.1.13');
    const baseline = join(here, 'conformance-baseline.yml');
    const run = await runSuite(['server', '--url', server.url!, '--expected-failures', baseline, '-o', out]);
    expect({ status: run.status, tail: run.status === 0 ? '' : run.output.slice(-3000) }).toEqual({
      status: 0,
      tail: '',
    });
    const results = new Map<string, string[]>();
    for (const entry of readdirSync(out)) {
      const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
      const checks = JSON.parse(readFileSync(join(out, entry, 'checks.json'), 'utf8')) as Array<{ status: string }>;
      results.set(
        scenario,
        checks.map((check) => check.status),
      );
    }
    for (const scenario of APPLICABLE) {
      expect({ scenario, statuses: results.get(scenario) }).toEqual({
        scenario,
        statuses: expect.arrayContaining(['SUCCESS']),
      });
      expect({ scenario, failed: results.get(scenario)!.filter((status) => status === 'FAILURE') }).toEqual({
        scenario,
        failed: [],
      });
    }
    // Every baseline entry is a scenario the suite ran (a renamed or dropped one would hide nothing).
    const listed = readFileSync(baseline, 'utf8')
      .split('\n')
      .map((line) => /^\s+- ([a-z0-9-]+)\s*$/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(listed.length).toBeGreaterThan(0);
    for (const scenario of listed) expect({ scenario, ran: results.has(scenario) }).toEqual({ scenario, ran: true });
    for (const scenario of listed) expect(APPLICABLE).not.toContain(scenario);
  });
});
