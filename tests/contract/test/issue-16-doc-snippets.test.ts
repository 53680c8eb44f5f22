// Every TypeScript block of the provider guide (docs/providers.md) and the provider-kit README is a
// complete module that typechecks against the workspace's sources with the repository's compiler
// options, and loads (so a tool contract it defines passes defineTool's own checks).
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..');
const DOCUMENTS = ['docs/providers.md', 'packages/provider-kit/README.md'];

/** The ```ts blocks of a Markdown file. */
function tsBlocks(file: string): string[] {
  return [...readFileSync(join(root, file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('issue 16: the code of the provider documentation', () => {
  it('should show no code but TypeScript modules (no js or untyped blocks)', () => {
    for (const file of DOCUMENTS) {
      const fences = [...readFileSync(join(root, file), 'utf8').matchAll(/^```(\w*)$/gm)].map((m) => m[1]);
      const opening = fences.filter((_, index) => index % 2 === 0);
      expect({
        file,
        languages: [...new Set(opening)].filter((l) => l !== 'ts' && l !== 'sh' && l !== 'json'),
      }).toEqual({
        file,
        languages: [],
      });
    }
  });

  it('should typecheck and load every TypeScript block', async () => {
    // Inside this package, so that zod and the workspace packages resolve as they do for its tests.
    const dir = mkdtempSync(join(root, 'tests', 'contract', '.doc-snippets-'));
    try {
      const files: string[] = [];
      for (const doc of DOCUMENTS) {
        tsBlocks(doc).forEach((code, index) => {
          const file = join(dir, `${doc.replace(/[^a-z]+/gi, '-')}${index}.ts`);
          // Each block is its own module, even one with no import or export.
          writeFileSync(file, `${code}\nexport {};\n`);
          files.push(file);
        });
      }
      expect(files.length).toBeGreaterThanOrEqual(9);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../../../tsconfig.json', include: ['*.ts'], compilerOptions: { noEmit: true } }),
      );
      const tsc = join(
        dirname(createRequire(join(root, 'package.json')).resolve('typescript-native/package.json')),
        'bin',
        'tsc',
      );
      const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
      expect(`${result.stdout}${result.stderr}`.trim()).toBe('');
      expect(result.status).toBe(0);
      // A contract suite declares jest suites when loaded, which only a test file may do: typechecked only.
      const loadable = files.filter((file) => !readFileSync(file, 'utf8').includes("from '@rea/contract-tests'"));
      expect(loadable.length).toBe(files.length - 1);
      for (const file of loadable) await expect(import(pathToFileURL(file).href)).resolves.toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
