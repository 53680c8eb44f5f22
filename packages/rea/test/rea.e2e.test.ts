import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, readlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parseEvidence } from '@rea/evidence';
import { withTempDir, writeAsar } from '@rea/test-helpers';
import { HELP_TEXT, createDefaultTools } from 'rea-mcp';
import { run, start } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const examples = join(here, '..', '..', '..', 'examples');
const version = (JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as { version: string }).version;
const rea = (args: string[], env: NodeJS.ProcessEnv = {}) => run(bin, args, { env });

async function listTools(args: string[]): Promise<string[]> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, ...args], stderr: 'ignore' });
  const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect(client.getServerVersion()?.name).toBeTruthy();
    const { tools } = await client.listTools();
    return tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

// `script` (util-linux) gives a process a pseudo-terminal; without it the terminal checks are skipped, saying why.
const hasScript = spawnSync('script', ['--version']).status === 0;
if (!hasScript) console.warn('skipped: terminal checks need the `script` command (util-linux)');
const onTerminal = hasScript ? it : it.skip;

describe('rea executable', () => {
  it('should print its version and the precomputed help, identical to the full program help', async () => {
    expect(await rea(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    const help = await rea(['--help']);
    expect(help).toMatchObject({ code: 0, stdout: HELP_TEXT });
    const full = await rea(['help']);
    expect(full.stdout).toBe(HELP_TEXT);
  });

  onTerminal('should print the precomputed help when started without arguments on a terminal', () => {
    const result = spawnSync('script', ['-qec', `'${process.execPath}' '${bin}'`, '/dev/null'], { encoding: 'utf8' });
    expect(result.stdout.replace(/\r\n/g, '\n')).toBe(HELP_TEXT);
  });

  it('should serve the complete catalog over stdio, with and without `mcp`', async () => {
    const expected = (await createDefaultTools()).map((t) => t.name);
    expect(await listTools(['mcp'])).toEqual(expected);
    expect(await listTools([])).toEqual(expected);
  });

  it('should serve Streamable HTTP with `mcp --http` and stop cleanly on SIGINT', async () => {
    const { child, done } = start(bin, ['mcp', '--http', '127.0.0.1:0']);
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: string) => {
        stderr += chunk;
        const m = /MCP over Streamable HTTP at (\S+)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual((await createDefaultTools()).map((t) => t.name));
    await client.close();
    child.kill('SIGINT');
    expect((await done).code).toBe(0);
  });

  it('should analyze the bundled example, export the bundle, and read it back', async () => {
    await withTempDir(async (dir) => {
      const bundle = join(dir, 'evidence.json');
      const result = await rea(['analyze', examples, '--format', 'json', '--export', bundle]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      const report = JSON.parse(result.stdout) as {
        target: { kind: string };
        records: unknown[];
        export: { record_count: number };
      };
      expect(report.target.kind).toBe('directory');
      const records = report.records.map((r) => parseEvidence(r));
      expect(records.map((r) => r.operation)).toContain('inspect_artifact');
      expect(report.export.record_count).toBe(records.length);
      const summary = await rea([
        'inspect-evidence-bundle',
        JSON.stringify({ path: bundle, detail: 'summary' }),
        '--format',
        'json',
      ]);
      expect(summary.code).toBe(0);
      const parsed = JSON.parse(summary.stdout) as { record_count: number; records: Array<{ evidence_id: string }> };
      expect(parsed.records.map((r) => r.evidence_id)).toEqual(records.map((r) => r.evidence_id));
      const human = await rea(['analyze', bundle]);
      expect(human.code).toBe(0);
      expect(human.stdout).toContain('evidence-bundle');
      for (const record of records) expect(human.stdout).toContain(record.evidence_id);
    });
  });

  it('should analyze a native binary compiled here: layout, inventory and an overview by the embedded engine', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'hello.c'), 'int twice(int x) { return 2 * x; }\nint main(void) { return twice(21); }\n');
      const binary = join(dir, 'hello');
      execFileSync('gcc', ['-O0', '-o', binary, join(dir, 'hello.c')]);
      const result = await rea(['analyze', binary, '--format', 'json']);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      const report = JSON.parse(result.stdout) as { target: { kind: string; format: string }; records: unknown[] };
      expect(report.target).toMatchObject({ kind: 'native-binary', format: 'elf' });
      const records = report.records.map((r) => parseEvidence(r));
      expect(records.map((r) => r.operation)).toEqual(['inspect_binary_layout', 'inspect_artifact', 'binary_overview']);
      const overview = records[2]!;
      expect(overview.provider.id).toBe('capstone');
      expect(overview.subject?.sha256).toBe(createHash('sha256').update(readFileSync(binary)).digest('hex'));
    });
  });

  it('should refuse a tampered bundle and malformed bundle requests with their exit codes', async () => {
    await withTempDir(async (dir) => {
      const bundle = join(dir, 'evidence.json');
      expect((await rea(['analyze', examples, '--export', bundle, '--quiet'])).code).toBe(0);
      const parsed = JSON.parse(readFileSync(bundle, 'utf8')) as {
        records: Array<{ normalized_result: { total_size: number } }>;
      };
      parsed.records[0]!.normalized_result.total_size += 1;
      const tampered = join(dir, 'tampered.json');
      writeFileSync(tampered, JSON.stringify(parsed));
      const integrity = await rea(['inspect-evidence-bundle', JSON.stringify({ path: tampered }), '--format', 'json']);
      expect(integrity.code).toBe(13);
      expect(JSON.parse(integrity.stdout)).toMatchObject({
        error: { code: 'evidence_integrity_mismatch', details: { record_index: 0 } },
      });
      const filters = await rea([
        'inspect-evidence-bundle',
        JSON.stringify({ path: bundle, filters: { operation: 'x' } }),
      ]);
      expect(filters.code).toBe(2);
      expect(filters.stderr).toContain('filters require detail "summary"');
      const missing = await rea(['inspect-evidence-bundle', JSON.stringify({ path: join(dir, 'absent.json') })]);
      expect(missing.code).toBe(3);
      const notJson = await rea(['inspect-evidence-bundle', '{path:']);
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toContain('line 1, column 2');
    });
  });

  it('should detect archives, APKs and ASARs by their bytes and inventory them', async () => {
    await withTempDir(async (dir) => {
      const zip = join(dir, 'bundle.zip');
      execFileSync('zip', ['-q', '-j', zip, join(examples, 'hello.json')]);
      const apk = join(dir, 'app.apk');
      writeFileSync(apk, readFileSync(zip));
      const asar = join(dir, 'app.asar');
      writeAsar(asar, { 'package.json': '{"name":"demo"}', 'index.js': 'console.log(1);\n' });
      const disguised = join(dir, 'not-an-archive.zip');
      writeFileSync(disguised, 'plain text');
      // A ZIP behind a launcher script (as a self-extracting archive or an executable JAR carries one):
      // its first bytes announce nothing; the inventory finds the archive from its end.
      const prefixed = join(dir, 'installer.run');
      writeFileSync(prefixed, Buffer.concat([Buffer.from('#!/bin/sh\necho unpacking\nexit 0\n'), readFileSync(zip)]));
      const cases: Array<[string, string, string]> = [
        [zip, 'archive', 'zip'],
        [prefixed, 'archive', 'zip'],
        [apk, 'apk', 'zip'],
        [asar, 'asar', 'asar'],
        [disguised, 'file', 'file'],
      ];
      for (const [path, kind, format] of cases) {
        const result = await rea(['analyze', path, '--format', 'json']);
        expect({ path, code: result.code, stderr: result.stderr }).toEqual({ path, code: 0, stderr: '' });
        const report = JSON.parse(result.stdout) as { target: { kind: string }; records: unknown[] };
        expect(report.target.kind).toBe(kind);
        const inventory = parseEvidence(report.records[0]);
        expect(inventory.operation).toBe('inspect_artifact');
        expect((inventory.normalized_result as { format: string }).format).toBe(format);
      }
    });
  });

  it('should name a file the inventory does not open by the type its bytes give (tar, gzip)', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'a.txt'), 'text\n');
      execFileSync('tar', ['-cf', 'a.tar', 'a.txt'], { cwd: dir });
      execFileSync('gzip', ['-k', 'a.txt'], { cwd: dir });
      for (const [name, type, described] of [
        ['a.tar', 'tar', /tar archive/],
        ['a.txt.gz', 'gzip', /gzip compressed data/],
        ['a.txt', 'unknown', /ASCII text/],
      ] as const) {
        // What file(1) makes of it, so that the type is the file's and not only REA's word.
        expect(execFileSync('file', ['-b', join(dir, name)], { encoding: 'utf8' })).toMatch(described);
        const json = await rea(['analyze', join(dir, name), '--format', 'json']);
        expect(json.code).toBe(0);
        expect((JSON.parse(json.stdout) as { target: unknown }).target).toEqual({
          path: join(dir, name),
          kind: 'file',
          format: type,
        });
        const human = await rea(['analyze', join(dir, name)]);
        expect(human.stdout.split('\n')[0]).toBe(`${join(dir, name)}: file (${type})`);
      }
    });
  });

  it('should run a generated command on a real tool', async () => {
    const result = await rea(['inspect-artifact', join(examples, 'hello.json'), '--format', 'json']);
    expect(result.code).toBe(0);
    const record = parseEvidence(JSON.parse(result.stdout));
    expect(record.subject?.size).toBe(readFileSync(join(examples, 'hello.json')).length);
  });

  it('should report its own installation in doctor', async () => {
    await withTempDir(async (home) => {
      const result = await rea(['doctor', '--json'], { HOME: home });
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as {
        package: { name: string; version: string };
        launch_command: { command: string; args: string[] };
        providers: Array<{ id: string; ready: boolean }>;
        clients: Array<{ status: string }>;
      };
      expect(report.package).toEqual({ name: 'rea-mcp', version });
      // The one registration REA documents, whichever installation runs doctor.
      expect(report.launch_command).toEqual({ command: 'npx', args: ['-y', 'rea-mcp', 'mcp'] });
      expect(report.providers.find((p) => p.id === 'artifact')?.ready).toBe(true);
      expect(report.clients.every((c) => c.status === 'missing')).toBe(true);
    });
  });

  it('should print the advertised catalog and its digest', async () => {
    const full = JSON.parse((await rea(['catalog', '--format', 'json'])).stdout) as {
      digest: string;
      tools: Array<{ name: string }>;
    };
    const compact = JSON.parse((await rea(['catalog', '--profile', 'compact', '--format', 'json'])).stdout) as {
      profile: string;
      tools: Array<{ name: string }>;
    };
    expect(full.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(compact.profile).toBe('compact');
    const fromEnv = JSON.parse(
      (await rea(['catalog', '--format', 'json'], { REA_MCP_INPUT_SCHEMA_PROFILE: 'compact' })).stdout,
    ) as {
      profile: string;
    };
    expect(fromEnv.profile).toBe('compact');
    const invalid = await rea(['catalog'], { REA_MCP_INPUT_SCHEMA_PROFILE: 'tiny' });
    expect(invalid.code).toBe(4);
    expect(compact.tools.map((t) => t.name)).toEqual(full.tools.map((t) => t.name));
  });

  it('should cancel a real tool on SIGINT with status 130 once it is reading its input', async () => {
    await withTempDir(async (dir) => {
      const big = join(dir, 'big.bin');
      writeFileSync(big, '');
      truncateSync(big, 16 * 1024 ** 3); // sparse: hashing it takes long, storing it takes nothing
      const { child, done } = start(bin, ['inspect-artifact', big, '--format', 'json']);
      const reading = (): boolean => {
        try {
          return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
            try {
              return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === big;
            } catch {
              return false;
            }
          });
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 1200 && !reading(); i += 1) await new Promise((r) => setTimeout(r, 25));
      expect(reading()).toBe(true);
      child.kill('SIGINT');
      const result = await done;
      expect(result.code).toBe(130);
      expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'cancelled', operation: 'inspect_artifact' } });
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });
  });

  it('should end quietly when the reader of its output goes away', async () => {
    for (const args of [['--help'], ['--llms']]) {
      const { child, done } = start(bin, args);
      child.stdout!.once('data', () => child.stdout!.destroy());
      const result = await done;
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
  });

  it('should refuse a missing path with not_found and no stack', async () => {
    const result = await rea(['analyze', '/nonexistent/rea-target']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('Cannot read /nonexistent/rea-target: no such file or directory.');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
