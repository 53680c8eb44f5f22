import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDefaultTools } from 'rea-mcp';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = resolve(here, '..');
const skill = readFileSync(join(packageDir, 'SKILL.md'), 'utf8');
const reference = readFileSync(resolve(packageDir, '..', '..', 'docs', 'tools.md'), 'utf8');

describe('the agent skill and the tool reference', () => {
  it('should ship SKILL.md with the package', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('SKILL.md');
  });

  it('should open with skill front matter and the registration that works from the registry', () => {
    expect(skill).toMatch(/^---\nname: rea\ndescription: \S.*\n---\n/);
    expect(skill).toContain('`npx -y rea-mcp mcp`');
    expect(skill).toContain('"args": ["-y", "rea-mcp", "mcp"]');
  });

  it('should name every tool of the default catalog once in the skill and document each in the reference', async () => {
    const tools = await createDefaultTools();
    for (const tool of tools) {
      expect(skill.split(`\n- \`${tool.name}\`: `)).toHaveLength(2);
      expect(reference).toContain(`### \`${tool.name}\` — ${tool.title}`);
      expect(reference).toContain(`Command: \`rea ${tool.name.replace(/_/g, '-')}\``);
    }
  });

  it('should give every input in the reference a type (a reference or an inline record is an object)', () => {
    const rows = reference.split('\n').filter((line) => /^\| `[a-z_0-9]+` +\|/.test(line));
    expect(rows.length).toBeGreaterThan(200);
    const types = rows.map((row) => row.split(/(?<!\\)\|/)[2]!.trim());
    expect(types.filter((type) => /(^|\W)any(\W|$)/.test(type))).toEqual([]);
    expect(types).toContain('object');
  });
});
