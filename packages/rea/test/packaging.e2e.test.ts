import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parseEvidence } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { createDefaultTools } from 'rea-mcp';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const version = (JSON.parse(readFileSync(join(repo, 'packages', 'rea', 'package.json'), 'utf8')) as { version: string })
  .version;

interface WorkspacePackage {
  dir: string;
  manifest: { name: string; private?: boolean };
}

/** Every workspace package, as the build and the pack check list them. */
async function listPackages(): Promise<WorkspacePackage[]> {
  const workspace = (await import(pathToFileURL(join(repo, 'tools', 'workspace.mjs')).href)) as {
    listPackages(): WorkspacePackage[];
  };
  return workspace.listPackages();
}

/** The files of a packed package, read as the pack check reads them. */
async function tarballFiles(tarball: string): Promise<Map<string, Buffer>> {
  const tar = (await import(pathToFileURL(join(repo, 'tools', 'tarball.mjs')).href)) as {
    readTarball(path: string): Map<string, Buffer>;
  };
  return tar.readTarball(tarball);
}

interface Registration {
  command: string;
  args: string[];
}

/** The `rea` entry of the README's MCP client snippet. */
function readmeRegistration(): Registration {
  for (const [, block] of readFileSync(join(repo, 'README.md'), 'utf8').matchAll(/```json\n([\s\S]*?)```/g)) {
    const parsed = JSON.parse(block!) as { mcpServers?: { rea?: Registration } };
    if (parsed.mcpServers?.rea) return parsed.mcpServers.rea;
  }
  throw new Error('the README shows no MCP client registration');
}

/** Sets the `version` of an installed package's manifest; returns a function that restores it. */
function withInstalledVersion(manifest: string, version: string): () => void {
  const original = readFileSync(manifest);
  writeFileSync(manifest, JSON.stringify({ ...(JSON.parse(original.toString('utf8')) as object), version }));
  return () => writeFileSync(manifest, original);
}

/** pnpm as this test run was started (pnpm sets npm_execpath), else through corepack. */
function pnpm(args: string[], cwd: string): void {
  const execPath = process.env['npm_execpath'];
  const [command, prefix] = execPath && /pnpm/.test(execPath) ? [process.execPath, [execPath]] : ['corepack', ['pnpm']];
  const result = spawnSync(command, [...prefix, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, COREPACK_ENABLE_DOWNLOAD_PROMPT: '0', COREPACK_INTEGRITY_KEYS: '0' },
  });
  if (result.status !== 0) throw new Error(`pnpm ${args.join(' ')} failed in ${cwd}: ${result.stderr}`);
}

function exec(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 600_000,
    maxBuffer: 1 << 28,
  });
}

describe('rea-mcp from packed tarballs', () => {
  it('should install with plain npm and work as a user would run it', async () => {
    await withTempDir(async (dir) => {
      const tarballs = join(dir, 'tarballs');
      const app = join(dir, 'app');
      mkdirSync(tarballs);
      mkdirSync(app);
      const published = (await listPackages()).filter((pkg) => pkg.manifest.private !== true);
      for (const pkg of published) pnpm(['pack', '--pack-destination', tarballs], pkg.dir);
      const files = readdirSync(tarballs).map((f) => join(tarballs, f));
      expect(files).toHaveLength(published.length);
      // Every package carries the repository's license.
      const license = readFileSync(join(repo, 'LICENSE'));
      for (const file of files)
        expect({ file, license: (await tarballFiles(file)).get('package/LICENSE') }).toEqual({ file, license });

      // Plain npm, no workspace, no links: internal packages come from the tarballs, the rest from the registry.
      const install = exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], app);
      expect({ status: install.status, stderr: install.stderr }).toEqual({ status: 0, stderr: '' });
      const bin = join(app, 'node_modules', '.bin', 'rea');
      expect(realpathSync(join(app, 'node_modules', 'rea-mcp'))).toBe(join(app, 'node_modules', 'rea-mcp'));

      expect(exec(bin, ['--version'], app).stdout).toBe(`${version}\n`);

      const home = join(dir, 'home');
      mkdirSync(home);
      const doctor = exec(bin, ['doctor', '--json'], app, { HOME: home });
      expect({ status: doctor.status, stderr: doctor.stderr }).toEqual({ status: 0, stderr: '' });
      const report = JSON.parse(doctor.stdout) as {
        launch_command: Registration;
        providers: Array<{ id: string; ready: boolean }>;
      };
      // Doctor expects the README's registration, not a path into this installation.
      const registration = readmeRegistration();
      expect(report.launch_command).toEqual(registration);
      expect(report.providers.length).toBeGreaterThan(0);

      copyFileSync(join(repo, 'examples', 'hello.json'), join(app, 'hello.json'));
      const analyze = exec(bin, ['analyze', 'hello.json', '--format', 'json'], app);
      expect({ status: analyze.status, stderr: analyze.stderr }).toEqual({ status: 0, stderr: '' });
      const records = (JSON.parse(analyze.stdout) as { records: unknown[] }).records.map((r) => parseEvidence(r));
      expect(records.map((r) => r.operation)).toContain('inspect_artifact');
      expect(report.providers).toContainEqual(expect.objectContaining({ id: 'capstone', ready: true }));

      // The README's client snippet, run as an MCP client runs it: npx resolves `rea-mcp` to the package
      // installed from the tarballs (offline: nothing is fetched), and the real MCP client drives it.
      const snippet = new Client({ name: 'rea-readme-snippet', version: '1.0.0' });
      await snippet.connect(
        new StdioClientTransport({
          command: registration.command,
          args: registration.args,
          cwd: app,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: home,
            npm_config_offline: 'true',
            npm_config_update_notifier: 'false',
          },
          stderr: 'ignore',
        }),
      );
      try {
        expect(snippet.getServerVersion()).toEqual(expect.objectContaining({ name: 'rea-mcp', version }));
        expect((await snippet.listTools()).tools.map((t) => t.name)).toContain('inspect_artifact');
        const inspected = await snippet.callTool({
          name: 'inspect_artifact',
          arguments: { path: join(app, 'hello.json') },
        });
        expect(inspected.isError).not.toBe(true);
        expect(parseEvidence(inspected.structuredContent).operation).toBe('inspect_artifact');
      } finally {
        await snippet.close();
      }

      // Evidence names the release of the code that ran. The command line is a bundle: it states the
      // versions it was built from, whatever the manifests installed beside it say (changed here to
      // versions no code has, which a bundle reading them at run time would report).
      const built = (name: string) =>
        (JSON.parse(readFileSync(join(repo, 'packages', name, 'package.json'), 'utf8')) as { version: string }).version;
      const restoreArtifact = withInstalledVersion(
        join(app, 'node_modules', '@rea', 'artifact', 'package.json'),
        '0.1.0-pinned.7',
      );
      const restoreCapstone = withInstalledVersion(
        join(app, 'node_modules', '@rea', 'provider-capstone', 'package.json'),
        '0.1.0-pinned.8',
      );
      try {
        const native = existsSync('/bin/true') ? '/bin/true' : join(app, 'hello.json');
        const run = exec(bin, ['analyze', native, '--format', 'json'], app);
        expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
        const records = (JSON.parse(run.stdout) as { records: unknown[] }).records.map((r) => parseEvidence(r));
        for (const record of records.filter((r) => r.provider.id === 'artifact')) {
          expect(record.provider.version).toBe(built('artifact'));
        }
        expect(records.some((r) => r.provider.id === 'artifact')).toBe(true);
        const overview = records.find((r) => r.operation === 'binary_overview');
        if (native === '/bin/true') expect(overview?.analysis_profile?.version).toBe(built('providers/capstone'));
      } finally {
        restoreArtifact();
        restoreCapstone();
      }

      // A native binary through the installed command line: x86-64 discovery, and an AArch64 library,
      // whose decoding loads the Capstone WebAssembly engine from the install.
      const natives = ['/bin/true', '/usr/aarch64-linux-gnu/lib/libc.so.6'].filter((f) => existsSync(f));
      for (const native of natives) {
        const run = exec(bin, ['analyze', native, '--format', 'json'], app);
        expect({ native, status: run.status, signal: run.signal, stderr: run.stderr }).toEqual({
          native,
          status: 0,
          signal: null,
          stderr: '',
        });
        const overview = (JSON.parse(run.stdout) as { records: unknown[] }).records
          .map((r) => parseEvidence(r))
          .find((r) => r.operation === 'binary_overview');
        expect(overview?.provider.id).toBe('capstone');
      }

      const transport = new StdioClientTransport({ command: bin, args: [], cwd: app, stderr: 'ignore' });
      const client = new Client({ name: 'rea-packaging', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect(client.getServerVersion()?.name).toBe('rea-mcp');
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual((await createDefaultTools()).map((t) => t.name));
      } finally {
        await client.close();
      }

      // A damaged installation: doctor says which provider cannot run and why, instead of failing. The
      // command line runs from rea's own bundle, so the damage is to what it loads from the install:
      // the Capstone WebAssembly module beside its glue.
      const glue = createRequire(join(app, 'node_modules', '@rea', 'provider-capstone', 'package.json')).resolve(
        '@alexaltea/capstone-js',
      );
      const wasm = join(dirname(glue), 'capstone.wasm');
      const wasmBytes = readFileSync(wasm);
      rmSync(wasm);
      try {
        const damaged = exec(bin, ['doctor', '--json'], app, { HOME: home });
        expect(damaged.status).toBe(0);
        const providers = (
          JSON.parse(damaged.stdout) as { providers: Array<{ id: string; ready: boolean; reason: string }> }
        ).providers;
        expect(providers.find((p) => p.id === 'capstone')).toMatchObject({ ready: false });
        expect(providers.find((p) => p.id === 'capstone')!.reason).toContain(
          'Capstone WebAssembly engine is not installed',
        );
        expect(providers.find((p) => p.id === 'artifact')).toMatchObject({ ready: true });
      } finally {
        writeFileSync(wasm, wasmBytes);
      }

      // A damaged install: the start-up path answers, a tool call is a typed failure (not a protocol
      // error), and the next call loads the call path (rea's dist/mcpCalls.js) again once it is back.
      const callsFile = join(app, 'node_modules', 'rea-mcp', 'dist', 'mcpCalls.js');
      const saved = readFileSync(callsFile);
      rmSync(callsFile);
      const second = new Client({ name: 'rea-packaging', version: '1.0.0' });
      await second.connect(new StdioClientTransport({ command: bin, args: ['mcp'], cwd: app, stderr: 'ignore' }));
      try {
        expect((await second.listTools()).tools.length).toBeGreaterThan(0);
        for (let attempt = 0; attempt < 2; attempt += 1) {
          const failed = await second.callTool({ name: 'binary_session', arguments: {} });
          expect(failed.isError).toBe(true);
          expect(failed.structuredContent).toBeUndefined();
          const text = (failed.content as Array<{ type: string; text: string }>)[0]!.text;
          expect(JSON.parse(text)).toMatchObject({
            error: { code: 'internal', operation: 'binary_session', details: { reason: 'call-path-load-failed' } },
          });
        }
        writeFileSync(callsFile, saved);
        const recovered = await second.callTool({ name: 'binary_session', arguments: {} });
        expect(recovered.isError).not.toBe(true);
        expect(recovered.structuredContent).toHaveProperty('tool_availability');
      } finally {
        await second.close();
      }
    });
  }, 900_000);
});
