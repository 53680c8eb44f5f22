// SIGINT or SIGTERM to the built `rea mcp` (stdio and Streamable HTTP) while a call writes files: the
// server cancels the call through its signal, waits for its cleanup, and exits 130 (SIGINT) or 143
// (SIGTERM), leaving no staging file beside the export's destination and nothing REA-named in its
// (private) temporary directory.
import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { sealEvidence } from '@rea/evidence';
import { buildZip } from '../../artifact/test/helpers/zipWriter.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'bin.cjs');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client transport over the stdio of a process this test spawned (so its exit status is known). */
function pipeTransport(child: ChildProcess): Transport {
  let buffer = '';
  const transport: Transport = {
    start: async () => {
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        buffer += chunk;
        let index;
        while ((index = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, index).trim();
          buffer = buffer.slice(index + 1);
          if (line) transport.onmessage?.(JSON.parse(line) as never);
        }
      });
      child.on('close', () => transport.onclose?.());
    },
    send: async (message) => {
      if (child.stdin!.writable) child.stdin!.write(`${JSON.stringify(message)}\n`);
    },
    close: async () => {
      child.stdin!.end();
    },
  };
  return transport;
}

interface Served {
  client: Client;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr(): string;
}

async function serve(kind: 'stdio' | 'http', privateTmp: string): Promise<Served> {
  const args = kind === 'stdio' ? [bin, 'mcp'] : [bin, 'mcp', '--http', '127.0.0.1:0'];
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: privateTmp, TMP: privateTmp, TEMP: privateTmp },
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  const url = new Promise<string>((resolve) =>
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const found = /MCP over Streamable HTTP at (\S+)/.exec(stderr);
      if (found) resolve(found[1]!);
    }),
  );
  const client = new Client({ name: 'rea-signal-e2e', version: '1.0.0' });
  await client.connect(kind === 'stdio' ? pipeTransport(child) : new StreamableHTTPClientTransport(new URL(await url)));
  return { client, child, exited, stderr: () => stderr };
}

/** A bundle of three ~16 MB records: exporting it takes long enough to be caught in the middle. */
function writeLargeBundle(path: string): void {
  const records = [0, 1, 2].map((i) =>
    sealEvidence({
      operation: 'inspect_artifact',
      subject: null,
      provider: { id: 'signal-test', name: 'signal test', version: '1' },
      analysis_profile: null,
      parameters: { index: i },
      normalized_result: { text: String.fromCharCode(97 + i).repeat(16 * 1024 * 1024) },
      raw_result: null,
      confidence: 'observed',
      limitations: [],
      coverage: { status: 'complete', reasons: [] },
      locations: [],
      evidence_links: [],
    }),
  );
  writeFileSync(path, JSON.stringify({ format: 'rea-evidence-bundle', version: 1, records }));
}

/** A ZIP of 20,000 stored 1 KiB files: extracting it takes long enough to be caught in the middle. */
function writeLargeZip(path: string): void {
  const specs = Array.from({ length: 20_000 }, (_, i) => ({
    name: `d${i % 50}/f${i}.bin`,
    data: Buffer.alloc(1024, i % 251),
    method: 0 as const,
  }));
  writeFileSync(path, buildZip(specs));
}

/** Polls until `found()` names something, or gives up after ~60 s. */
async function until(found: () => boolean): Promise<boolean> {
  for (let i = 0; i < 12_000; i += 1) {
    if (found()) return true;
    await sleep(5);
  }
  return false;
}

const reaNamed = (dir: string) => readdirSync(dir).filter((name) => /^\.?rea-|\.partial$/.test(name));

const CASES = [
  ['stdio', 'export', 'SIGINT', 130],
  ['stdio', 'extract', 'SIGTERM', 143],
  ['http', 'export', 'SIGTERM', 143],
  ['http', 'extract', 'SIGINT', 130],
] as const;

describe('rea mcp under SIGINT/SIGTERM (issue 15)', () => {
  it.each(CASES)(
    'should cancel, clean up and exit non-zero: %s, mid-%s, %s',
    async (kind, operation, signal, status) => {
      const root = mkdtempSync(join(tmpdir(), 'rea-signal-'));
      const privateTmp = join(root, 'tmp');
      const work = join(root, 'work');
      const out = join(work, 'out');
      mkdirSync(privateTmp);
      mkdirSync(out, { recursive: true });
      let served: Served | null = null;
      try {
        served = await serve(kind, privateTmp);
        const call = (name: string, args: Record<string, unknown>) =>
          served!.client.callTool({ name, arguments: args }, { timeout: 300_000 });
        let pending: Promise<unknown>;
        let midway: () => boolean;
        if (operation === 'export') {
          writeLargeBundle(join(work, 'big.json'));
          const imported = (await call('import_evidence_bundle', { path: join(work, 'big.json') })) as {
            isError?: boolean;
          };
          expect(imported.isError).toBeFalsy();
          pending = call('export_evidence_bundle', { path: join(out, 'bundle.json') });
          midway = () =>
            readdirSync(out).some(
              (name) =>
                name.endsWith('.partial') && (statSync(join(out, name), { throwIfNoEntry: false })?.size ?? 0) > 0,
            );
        } else {
          writeLargeZip(join(work, 'big.zip'));
          pending = call('extract_artifact', { path: join(work, 'big.zip') });
          // Midway once the fresh output directory has begun to fill.
          midway = () =>
            readdirSync(privateTmp).some(
              (name) =>
                name.startsWith('rea-extract-') &&
                (() => {
                  try {
                    return readdirSync(join(privateTmp, name)).length > 0;
                  } catch {
                    return false;
                  }
                })(),
            );
        }
        const settled = pending.then(
          () => 'answered',
          () => 'rejected',
        );
        expect(await until(midway)).toBe(true);
        served.child.kill(signal);
        expect(await served.exited).toBe(status);
        await settled;
        // Nothing was published, no staging file remains, and the private temporary directory is clean.
        expect(existsSync(join(out, 'bundle.json'))).toBe(false);
        expect(readdirSync(out)).toEqual([]);
        expect(reaNamed(privateTmp)).toEqual([]);
        expect(served.stderr()).not.toContain('cleanup_incomplete');
      } finally {
        await served?.client.close().catch(() => undefined);
        if (served && served.child.exitCode === null && served.child.signalCode === null) {
          served.child.kill('SIGKILL');
          await served.exited;
        }
        rmSync(root, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
