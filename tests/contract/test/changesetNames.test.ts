import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// `changeset version` stops at a changeset that names a package the workspace does not have (for
// example the meta-package by a former name): every changeset names published workspace packages.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

describe('changesets', () => {
  it('should name only published workspace packages', async () => {
    const workspace = (await import(pathToFileURL(join(root, 'tools', 'workspace.mjs')).href)) as {
      listPackages(): Array<{ manifest: { name: string; private?: boolean } }>;
    };
    const published = new Set(
      workspace
        .listPackages()
        .filter((p) => p.manifest.private !== true)
        .map((p) => p.manifest.name),
    );
    expect(published).toContain('rea-mcp');
    const dir = join(root, '.changeset');
    const unknown: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
      const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(dir, file), 'utf8'))?.[1] ?? '';
      for (const line of front.split('\n').filter((l) => l.trim() !== '')) {
        const name = /^\s*(['"]?)([^'":]+)\1\s*:/.exec(line)?.[2];
        if (name === undefined || !published.has(name)) unknown.push(`${file}: ${line}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
