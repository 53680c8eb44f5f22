import { describe, expect, it } from '@jest/globals';
import { lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { withTempDir } from '@rea/test-helpers';
import { FIXTURE_CLI, hasStack, run } from './run.js';

// The fixture host's launch command is `fixture-rea mcp`.
const ALIGNED = { command: 'fixture-rea', args: ['mcp'] };

const files = {
  claudeCode: '.claude.json',
  claudeDesktop: '.config/Claude/claude_desktop_config.json',
  codex: '.codex/config.toml',
  cursor: '.cursor/mcp.json',
  gemini: '.gemini/settings.json',
  windsurf: '.codeium/windsurf/mcp_config.json',
};

function put(home: string, relative: string, text: string): string {
  const path = join(home, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Every file under `dir` with its bytes, for proving that nothing was written. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out[p.slice(dir.length)] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

const cli = (home: string, ...args: string[]) =>
  run(FIXTURE_CLI, args, { env: { HOME: home, XDG_CONFIG_HOME: '', CODEX_HOME: '' } });

interface Doctor {
  node: { supported: boolean };
  providers: Array<{ id: string; ready: boolean; remediation: string | null }>;
  clients: Array<{
    client: string;
    status: string;
    reason: string;
    position: { line: number; column: number } | null;
    pointer: string | null;
    server: string;
    file: string;
  }>;
}

describe('rea doctor', () => {
  it('should classify every client as aligned, stale, missing or invalid, with positions, and write nothing', async () => {
    await withTempDir(async (home) => {
      put(
        home,
        files.claudeCode,
        JSON.stringify({ numStartups: 4, mcpServers: { rea: { type: 'stdio', ...ALIGNED } } }, null, 2),
      );
      put(home, files.cursor, JSON.stringify({ mcpServers: { rea: { command: 'npx', args: ['-y', 'rea', 'mcp'] } } }));
      const gemini = '{\n  "theme": "dark",\n  "mcpServers": {,}\n}\n';
      put(home, files.gemini, gemini);
      put(home, files.codex, 'model = "o3"\n[mcp_servers.rea\ncommand = "x"\n');
      put(home, files.claudeDesktop, '{"mcpServers": {"other": {"command": "other"}}}');
      const before = snapshot(home);
      const result = await cli(home, 'doctor', '--json');
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout) as Doctor;
      const byId = Object.fromEntries(report.clients.map((c) => [c.client, c]));
      expect(Object.keys(byId).sort()).toEqual([
        'claude-code',
        'claude-desktop',
        'codex',
        'cursor',
        'gemini-cli',
        'windsurf',
      ]);
      expect(byId['claude-code']).toMatchObject({
        status: 'aligned',
        file: join(home, files.claudeCode),
        server: 'unknown',
      });
      expect(byId['cursor']).toMatchObject({ status: 'stale', reason: 'command-differs' });
      expect(byId['gemini-cli']).toMatchObject({
        status: 'invalid',
        reason: 'unparseable',
        position: { line: 3, column: 18 },
      });
      expect(gemini.split('\n')[2]![17]).toBe(',');
      expect(byId['codex']).toMatchObject({ status: 'invalid', reason: 'unparseable' });
      expect(byId['codex']!.position!.line).toBe(2);
      expect(byId['claude-desktop']).toMatchObject({ status: 'missing', reason: 'entry-absent' });
      expect(byId['windsurf']).toMatchObject({ status: 'missing', reason: 'file-absent' });
      expect(report.node.supported).toBe(true);
      expect(report.providers.find((p) => p.id === 'missing-engine')).toMatchObject({
        ready: false,
        remediation: 'install it',
      });
      expect(snapshot(home)).toEqual(before);
    });
  });

  it('should report invalid environment settings instead of failing', async () => {
    await withTempDir(async (home) => {
      const valid = JSON.parse((await cli(home, 'doctor', '--json')).stdout) as { configuration: object };
      expect(valid.configuration).toEqual({ valid: true });
      const result = await run(FIXTURE_CLI, ['doctor', '--json'], {
        env: { HOME: home, REA_GHIDRA_STARTUP_TIMEOUT_MS: '0x10' },
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        configuration: {
          valid: false,
          error: {
            code: 'configuration_invalid',
            details: { variable: 'REA_GHIDRA_STARTUP_TIMEOUT_MS', value: '0x10' },
          },
        },
      });
    });
  });

  it('should report a wrong-shaped entry as invalid with its pointer', async () => {
    await withTempDir(async (home) => {
      put(
        home,
        files.windsurf,
        '{\n  "mcpServers": {\n    "rea": { "command": "fixture-rea", "args": "mcp" }\n  }\n}\n',
      );
      const report = JSON.parse((await cli(home, 'doctor', '--json')).stdout) as Doctor;
      const windsurf = report.clients.find((c) => c.client === 'windsurf')!;
      expect(windsurf).toMatchObject({ status: 'invalid', reason: 'wrong-shape', pointer: '/mcpServers/rea/args' });
      expect(windsurf.position!.line).toBe(3);
    });
  });
});

describe('rea setup', () => {
  it('should refuse when the only chosen file cannot be parsed, writing nothing at all', async () => {
    await withTempDir(async (home) => {
      put(home, files.cursor, '{"mcpServers": {}}\n');
      put(home, files.codex, '[mcp_servers\n');
      const before = snapshot(home);
      const result = await cli(home, 'setup', '--yes', '--client', 'codex');
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('error [configuration_invalid]');
      expect(result.stderr).toContain(`${join(home, files.codex)}:1:`);
      expect(hasStack(result.stderr)).toBe(false);
      expect(snapshot(home)).toEqual(before);
    });
  });

  it('should back up, write, preserve other entries and formatting, verify, and change nothing the second time', async () => {
    await withTempDir(async (home) => {
      const codexText =
        '# personal settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other"\nargs = [\n  "a",\n  "b",\n]\n\n' +
        '[mcp_servers.rea]\ncommand = "old-rea"\nargs = [\n  "serve",\n]\nstartup_timeout_sec = 20 # keep me\n\n[mcp_servers.rea.env]\nTOKEN = "t"\n';
      const cursorText =
        '{\n    "mcpServers": {\n        "other": {\n            "command": "o"\n        }\n    },\n    "editor": true\n}\n';
      const codex = put(home, files.codex, codexText);
      const cursor = put(home, files.cursor, cursorText);
      const plan = await cli(home, 'setup', '--client', 'codex', '--client', 'cursor', '--dry-run', '--json');
      expect(plan.code).toBe(0);
      const planned = JSON.parse(plan.stdout) as {
        applied: boolean;
        plan: Array<{ client: string; action: string; before: unknown; after: unknown }>;
      };
      expect(planned.applied).toBe(false);
      expect(planned.plan.map((p) => [p.client, p.action])).toEqual([
        ['codex', 'update-entry'],
        ['cursor', 'add-entry'],
      ]);
      expect(planned.plan[0]!.before).toMatchObject({ command: 'old-rea', args: ['serve'] });
      expect(planned.plan[0]!.after).toMatchObject({ ...ALIGNED, startup_timeout_sec: 20, env: { TOKEN: 't' } });
      expect(readFileSync(codex, 'utf8')).toBe(codexText);

      const applied = await cli(home, 'setup', '--client', 'codex', '--client', 'cursor', '--yes', '--json');
      expect(applied.code).toBe(0);
      const outcome = JSON.parse(applied.stdout) as { applied: boolean; backups: string[] };
      expect(outcome.applied).toBe(true);
      expect(outcome.backups).toHaveLength(2);
      const backups = Object.fromEntries(
        outcome.backups.map((b) => [b.replace(/\.rea-backup-.*$/, ''), readFileSync(b, 'utf8')]),
      );
      expect(backups).toEqual({ [codex]: codexText, [cursor]: cursorText });

      const newCodex = readFileSync(codex, 'utf8');
      expect(
        newCodex.startsWith(
          '# personal settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other"\nargs = [\n  "a",\n  "b",\n]\n',
        ),
      ).toBe(true);
      expect(newCodex).toContain('startup_timeout_sec = 20 # keep me');
      const parsedCodex = parseToml(newCodex) as { mcp_servers: Record<string, unknown>; model: string };
      expect(parsedCodex.model).toBe('o3');
      expect(parsedCodex.mcp_servers).toEqual({
        other: { command: 'other', args: ['a', 'b'] },
        rea: { ...ALIGNED, startup_timeout_sec: 20, env: { TOKEN: 't' } },
      });
      const newCursor = readFileSync(cursor, 'utf8');
      expect(JSON.parse(newCursor)).toEqual({ mcpServers: { other: { command: 'o' }, rea: ALIGNED }, editor: true });
      expect(newCursor).toBe(`${JSON.stringify(JSON.parse(newCursor), null, 4)}\n`);

      const report = JSON.parse((await cli(home, 'doctor', '--json')).stdout) as Doctor;
      expect(report.clients.filter((c) => c.status === 'aligned').map((c) => c.client)).toEqual(['codex', 'cursor']);

      const before = snapshot(home);
      const again = await cli(home, 'setup', '--client', 'codex', '--client', 'cursor', '--yes', '--json');
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ applied: false, backups: [] });
      expect(snapshot(home)).toEqual(before);
    });
  });

  it("should change only REA's member of a JSON file, keeping every other byte", async () => {
    await withTempDir(async (home) => {
      const added = put(
        home,
        files.gemini,
        '{\n  "theme" :  "dark",\n  "mcpServers": {\n    "other": { "command": "o" }\n  },\n  "list": [1,2,   3]\n}\n',
      );
      const replaced = put(
        home,
        files.windsurf,
        '{"mcpServers": {"rea": {"command": "old", "args": [], "env": {"K": "v"}},   "x": {"command": "y"}}}',
      );
      const result = await cli(home, 'setup', '--client', 'gemini-cli', '--client', 'windsurf', '--yes', '--json');
      expect(result.code).toBe(0);
      expect(readFileSync(added, 'utf8')).toBe(
        '{\n  "theme" :  "dark",\n  "mcpServers": {\n    "other": { "command": "o" },\n    "rea": {\n' +
          '      "command": "fixture-rea",\n      "args": [\n        "mcp"\n      ]\n    }\n  },\n  "list": [1,2,   3]\n}\n',
      );
      expect(readFileSync(replaced, 'utf8')).toBe(
        '{"mcpServers": {"rea": {"command":"fixture-rea","args":["mcp"],"env":{"K":"v"}},   "x": {"command": "y"}}}',
      );
      const plan = (JSON.parse(result.stdout) as { plan: Array<{ formatting: string }> }).plan;
      expect(plan.map((p) => p.formatting)).toEqual(['exact', 'exact']);
    });
  });

  it('should create a missing file without a backup, keeping the file private', async () => {
    await withTempDir(async (home) => {
      const result = await cli(home, 'setup', '--client', 'windsurf', '--yes');
      expect(result.code).toBe(0);
      const path = join(home, files.windsurf);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ mcpServers: { rea: ALIGNED } });
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readdirSync(dirname(path))).toEqual(['mcp_config.json']);
    });
  });

  it('should update a symlinked configuration where it lives, keeping the link', async () => {
    await withTempDir(async (home) => {
      const real = put(home, 'dotfiles/cursor-mcp.json', '{"mcpServers": {}}\n');
      mkdirSync(join(home, '.cursor'));
      const link = join(home, files.cursor);
      symlinkSync(real, link);
      const result = await cli(home, 'setup', '--client', 'cursor', '--yes');
      expect(result.code).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(JSON.parse(readFileSync(real, 'utf8'))).toEqual({ mcpServers: { rea: ALIGNED } });
      expect(readdirSync(join(home, 'dotfiles')).filter((f) => f.includes('.rea-backup-'))).toHaveLength(1);
    });
  });

  it('should default to No when asked, and apply on yes', async () => {
    await withTempDir(async (home) => {
      const path = put(home, files.gemini, '{"theme": "dark"}\n');
      const declined = await run(FIXTURE_CLI, ['setup', '--client', 'gemini-cli'], {
        env: { HOME: home },
        input: '\n',
      });
      expect(declined.code).toBe(0);
      expect(declined.stderr).toContain('[y/N]');
      expect(declined.stdout).toContain('Not applied');
      expect(readFileSync(path, 'utf8')).toBe('{"theme": "dark"}\n');
      const accepted = await run(FIXTURE_CLI, ['setup', '--client', 'gemini-cli'], {
        env: { HOME: home },
        input: 'y\n',
      });
      expect(accepted.code).toBe(0);
      expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ theme: 'dark', mcpServers: { rea: ALIGNED } });
    });
  });

  it('should use only the clients configured on this machine when none is named', async () => {
    await withTempDir(async (home) => {
      put(home, files.cursor, '{}');
      const result = await cli(home, 'setup', '--yes', '--json');
      const outcome = JSON.parse(result.stdout) as { plan: Array<{ client: string }> };
      expect(outcome.plan.map((p) => p.client)).toEqual(['cursor']);
    });
  });

  it('should refuse an unknown client with status 2', async () => {
    await withTempDir(async (home) => {
      const result = await cli(home, 'setup', '--client', 'vim');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('Unknown client "vim"');
      expect(readdirSync(home)).toEqual([]);
    });
  });
});
