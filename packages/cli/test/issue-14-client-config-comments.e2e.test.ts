import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import { FIXTURE_CLI, hasStack, run } from './run.js';

// Gemini CLI reads settings.json with comments; REA reads it the same way, writes it back with its
// comments, and an invalid file of one client never keeps setup from the others.
const GEMINI = '.gemini/settings.json';
const CURSOR = '.cursor/mcp.json';
const CODEX = '.codex/config.toml';
const ENTRY = { command: 'fixture-rea', args: ['mcp'] };

const cli = (home: string, ...args: string[]) =>
  run(FIXTURE_CLI, args, { env: { HOME: home, XDG_CONFIG_HOME: '', CODEX_HOME: '' } });

function put(home: string, relative: string, text: string): string {
  const path = join(home, relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** The JSON a comment-stripping reader sees (what Gemini CLI parses), for checking REA's output independently. */
function stripComments(text: string): unknown {
  return JSON.parse(
    text.replace(/("(?:[^"\\\n]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m, s: string | undefined) => s ?? ' '),
  );
}

interface Doctor {
  clients: Array<{ client: string; status: string; reason: string; position: { line: number; column: number } | null }>;
}

const COMMENTED = [
  '// Gemini CLI settings (comments are allowed here)',
  '{',
  '  "theme": "dark", // the colour scheme',
  '  /* MCP servers',
  '     "rea": not here */',
  '  "mcpServers": {',
  '    "other": { "command": "other", "args": ["//not-a-comment"] } // keep me',
  '  }',
  '}',
  '',
].join('\n');

describe('issue 14: client configuration with comments', () => {
  it('should read a Gemini settings.json with comments as the client does, in doctor', async () => {
    await withTempDir(async (home) => {
      put(home, GEMINI, COMMENTED);
      const report = JSON.parse((await cli(home, 'doctor', '--json')).stdout) as Doctor;
      expect(report.clients.find((c) => c.client === 'gemini-cli')).toMatchObject({
        status: 'missing',
        reason: 'entry-absent',
      });
      put(
        home,
        GEMINI,
        COMMENTED.replace('"mcpServers": {', `"mcpServers": {\n    "rea": ${JSON.stringify(ENTRY)}, // REA`),
      );
      const aligned = JSON.parse((await cli(home, 'doctor', '--json')).stdout) as Doctor;
      expect(aligned.clients.find((c) => c.client === 'gemini-cli')).toMatchObject({ status: 'aligned' });
    });
  });

  it('should still call a broken file with comments invalid, at the right line and column', async () => {
    await withTempDir(async (home) => {
      put(home, GEMINI, '// settings\n{\n  /* a */ "theme": "dark" "x": 1\n}\n');
      const report = JSON.parse((await cli(home, 'doctor', '--json')).stdout) as Doctor;
      expect(report.clients.find((c) => c.client === 'gemini-cli')).toMatchObject({
        status: 'invalid',
        reason: 'unparseable',
        position: { line: 3, column: 27 },
      });
    });
  });

  it('should not accept comments for a client that reads plain JSON', async () => {
    await withTempDir(async (home) => {
      put(home, CURSOR, '// cursor\n{}\n');
      const report = JSON.parse((await cli(home, 'doctor', '--json')).stdout) as Doctor;
      expect(report.clients.find((c) => c.client === 'cursor')).toMatchObject({ status: 'invalid' });
    });
  });

  it('should add REA to a settings.json with comments and keep every comment and byte around it', async () => {
    await withTempDir(async (home) => {
      const file = put(home, GEMINI, COMMENTED);
      const result = await cli(home, 'setup', '--yes', '--client', 'gemini-cli');
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      const written = readFileSync(file, 'utf8');
      // REA's member follows the last one (after its comma, before that line's comment); nothing else moves.
      const expected = COMMENTED.replace(
        '["//not-a-comment"] } // keep me\n',
        '["//not-a-comment"] }, // keep me\n    "rea": {\n      "command": "fixture-rea",\n      "args": [\n        "mcp"\n      ]\n    }\n',
      );
      expect(written).toBe(expected);
      expect(stripComments(written)).toEqual({
        theme: 'dark',
        mcpServers: { other: { command: 'other', args: ['//not-a-comment'] }, rea: ENTRY },
      });
      const again = await cli(home, 'setup', '--yes', '--client', 'gemini-cli');
      expect(again.code).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(written);
    });
  });

  it("should update REA's entry in a file with comments, keeping them", async () => {
    await withTempDir(async (home) => {
      const before = '{\n  // servers\n  "mcpServers": {\n    "rea": { "command": "old" } // old entry\n  }\n}\n';
      const file = put(home, GEMINI, before);
      const result = await cli(home, 'setup', '--yes', '--client', 'gemini-cli');
      expect(result.code).toBe(0);
      const written = readFileSync(file, 'utf8');
      expect(written).toContain('  // servers\n');
      expect(written).toContain(' // old entry\n');
      expect(stripComments(written)).toEqual({ mcpServers: { rea: ENTRY } });
    });
  });

  it('should set up the other clients when one file is invalid, leave that file alone and say so', async () => {
    await withTempDir(async (home) => {
      const cursor = put(home, CURSOR, '{"mcpServers": {}}\n');
      const broken = '[mcp_servers\n';
      const codex = put(home, CODEX, broken);
      const gemini = put(home, GEMINI, COMMENTED);
      const result = await cli(home, 'setup', '--yes');
      // The plan and the outcome of the valid clients are printed; the refusal is the typed error of the run.
      expect(result.code).toBe(4);
      expect(result.stdout).toContain('refused, left as it is: not valid TOML');
      expect(result.stdout).toContain('Applied to 2 file(s) and verified.');
      expect(result.stderr).toContain('error [configuration_invalid]');
      expect(result.stderr).toContain(`${codex}:1:`);
      expect(result.stderr).toContain('the other 2 file(s) were written');
      expect(hasStack(result.stderr)).toBe(false);
      expect(readFileSync(codex, 'utf8')).toBe(broken);
      expect(readdirSync(dirname(codex))).toEqual(['config.toml']);
      expect(JSON.parse(readFileSync(cursor, 'utf8'))).toEqual({ mcpServers: { rea: ENTRY } });
      expect((stripComments(readFileSync(gemini, 'utf8')) as { mcpServers: object }).mcpServers).toHaveProperty('rea');
    });
  });

  it('should give one JSON document with --json when a file is refused: the error, carrying the outcome', async () => {
    await withTempDir(async (home) => {
      const cursor = put(home, CURSOR, '{"mcpServers": {}}\n');
      const codex = put(home, CODEX, '[mcp_servers\n');
      put(home, GEMINI, COMMENTED);
      const result = await cli(home, 'setup', '--yes', '--json');
      expect(result.code).toBe(4);
      const error = (
        JSON.parse(result.stdout) as {
          error: {
            code: string;
            details: {
              files: Array<{ file: string }>;
              outcome: { applied: boolean; plan: Array<{ client: string; action: string }> };
            };
          };
        }
      ).error;
      expect(error.code).toBe('configuration_invalid');
      expect(error.details.files.map((f) => f.file)).toEqual([codex]);
      const outcome = error.details.outcome;
      expect(outcome.applied).toBe(true);
      expect(Object.fromEntries(outcome.plan.map((p) => [p.client, p.action]))).toEqual({
        codex: 'refused',
        cursor: 'add-entry',
        'gemini-cli': 'add-entry',
      });
      expect(readFileSync(codex, 'utf8')).toBe('[mcp_servers\n');
      expect(JSON.parse(readFileSync(cursor, 'utf8'))).toEqual({ mcpServers: { rea: ENTRY } });
    });
  });
});
