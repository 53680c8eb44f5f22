import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withTempDir } from '@rea/test-helpers';

// The README, `rea setup` and `rea doctor` agree on one registration: the one the README shows.
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const bin = join(repo, 'packages', 'rea', 'dist', 'bin.cjs');

interface Entry {
  command: string;
  args: string[];
}

/** The `rea` entry of the first JSON block of a README that registers REA with a client. */
function readmeRegistration(readme: string): Entry {
  for (const [, block] of readFileSync(readme, 'utf8').matchAll(/```json\n([\s\S]*?)```/g)) {
    const parsed = JSON.parse(block!) as { mcpServers?: { rea?: Entry } };
    if (parsed.mcpServers?.rea) return parsed.mcpServers.rea;
  }
  throw new Error(`${readme} shows no MCP client registration`);
}

function rea(home: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', CODEX_HOME: '' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('issue 14: one registration', () => {
  const snippet = readmeRegistration(join(repo, 'README.md'));

  it('should show the same registration in both READMEs, for the published package name', () => {
    const manifest = JSON.parse(readFileSync(join(repo, 'packages', 'rea', 'package.json'), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
    };
    expect(snippet).toEqual({ command: 'npx', args: ['-y', manifest.name, 'mcp'] });
    expect(manifest.bin).toEqual({ rea: './dist/bin.cjs' });
    expect(readmeRegistration(join(repo, 'packages', 'rea', 'README.md'))).toEqual(snippet);
  });

  it('should call the README entry aligned in doctor', async () => {
    await withTempDir(async (home) => {
      const file = join(home, '.cursor', 'mcp.json');
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ mcpServers: { rea: snippet } }, null, 2));
      const doctor = rea(home, 'doctor', '--json');
      expect(doctor.status).toBe(0);
      const report = JSON.parse(doctor.stdout) as {
        launch_command: Entry;
        clients: Array<{ client: string; status: string }>;
      };
      expect(report.launch_command).toEqual(snippet);
      expect(report.clients.find((c) => c.client === 'cursor')?.status).toBe('aligned');
    });
  });

  it('should write the README entry in setup, naming no path of this installation', async () => {
    await withTempDir(async (home) => {
      const setup = rea(home, 'setup', '--yes', '--client', 'cursor', '--client', 'gemini-cli');
      expect({ status: setup.status, stderr: setup.stderr }).toEqual({ status: 0, stderr: '' });
      for (const file of [join(home, '.cursor', 'mcp.json'), join(home, '.gemini', 'settings.json')]) {
        const written = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: { rea: Entry } };
        expect(written.mcpServers.rea).toEqual(snippet);
      }
      expect(JSON.stringify(rea(home, 'doctor', '--json').stdout)).not.toContain(repo);
    });
  });
});
