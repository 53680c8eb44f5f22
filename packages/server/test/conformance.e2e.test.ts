import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpEntry } from './httpFixture.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);

/** The server scenarios that apply to REA (tools and logging, no prompts or resources). */
const APPLICABLE = [
  'dns-rebinding-protection',
  'logging-set-level',
  'ping',
  'server-initialize',
  'server-sse-multiple-streams',
  'tools-list',
];

describe('official MCP conformance suite against the Streamable HTTP transport', () => {
  let server: Awaited<ReturnType<typeof startHttpEntry>>;
  let out: string;
  beforeAll(async () => {
    server = await startHttpEntry();
    out = mkdtempSync(join(tmpdir(), 'rea-conformance-'));
  });
  afterAll(async () => {
    await server.stop();
    rmSync(out, { recursive: true, force: true });
  });

  it('should pass every applicable scenario and fail only the listed non-applicable ones', () => {
    const run = spawnSync(
      process.execPath,
      [
        cli,
        'server',
        '--url',
        server.line['url'] as string,
        '--expected-failures',
        join(here, 'conformance-baseline.yml'),
        '-o',
        out,
      ],
      { encoding: 'utf8', timeout: 240_000 },
    );
    expect({ status: run.status, tail: run.status === 0 ? '' : (run.stdout + run.stderr).slice(-2000) }).toEqual({
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
      expect(results.get(scenario)!.every((status) => status === 'SUCCESS')).toBe(true);
    }
  });
});
