import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'lint');
const eslint = new ESLint({ cwd: root });

/**
 * Lints a fixture as if it were the file at `asPath` (relative to the repository root), with the
 * repository's own configuration, and returns the messages of the rules this project configures.
 */
async function lintAs(fixture: string, asPath: string): Promise<string[]> {
  const [result] = await eslint.lintText(readFileSync(join(fixtures, fixture), 'utf8'), {
    filePath: join(root, asPath),
  });
  return result!.messages
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-syntax')
    .map((m) => `${m.line}: ${m.message}`);
}

const seam = "An engine library is imported only in its provider's engine seam";

/** A message reported at `line` that contains `text`. */
function at(line: number, text: string) {
  return expect.stringMatching(new RegExp(`^${line}: .*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
}

describe('the lint configuration', () => {
  it('should refuse a known engine library outside its provider seam and accept it inside', async () => {
    expect(await lintAs('engineImport.ts', 'packages/providers/demo/src/tools.ts')).toEqual([at(2, seam)]);
    expect(await lintAs('engineImport.ts', 'packages/server/src/spawn.ts')).toEqual([at(2, seam)]);
    expect(await lintAs('engineImport.ts', 'packages/providers/demo/src/engine.ts')).toEqual([]);
    expect(await lintAs('engineImport.ts', 'packages/providers/demo/src/engine/process.ts')).toEqual([]);
    expect(await lintAs('engineImport.ts', 'examples/providers/demo/src/engine.ts')).toEqual([]);
  });

  it('should treat any other library in a provider source as an engine, without naming it', async () => {
    expect(await lintAs('unnamedEngine.ts', 'packages/providers/demo/src/provider.ts')).toEqual([at(2, seam)]);
    expect(await lintAs('unnamedEngine.ts', 'examples/providers/demo/src/provider.ts')).toEqual([at(2, seam)]);
    expect(await lintAs('unnamedEngine.ts', 'packages/providers/demo/src/engine.ts')).toEqual([]);
  });

  it('should refuse a dynamic import of an engine library outside the seam', async () => {
    expect(await lintAs('dynamicEngine.ts', 'packages/cli/src/attach.ts')).toEqual([at(3, seam)]);
    expect(await lintAs('dynamicEngine.ts', 'packages/artifact/src/tools/attach.ts')).toEqual([at(3, seam)]);
    expect(await lintAs('dynamicEngine.ts', 'packages/artifact/src/engine/attach.ts')).toEqual([]);
  });

  it('should refuse instanceof ReaError in favour of isReaError', async () => {
    for (const path of [
      'packages/server/src/errors.ts',
      'packages/providers/demo/src/engine.ts',
      'tests/x/test/a.ts',
    ]) {
      expect(await lintAs('instanceofReaError.ts', path)).toEqual([
        expect.stringMatching(/^5: Use isReaError\(value\)/),
      ]);
    }
  });

  it('should refuse a provider import in the server and the CLI, and allow it in the composition root', async () => {
    const message = 'The server and the CLI never import a provider';
    expect(await lintAs('providerInServer.ts', 'packages/server/src/tools.ts')).toEqual([at(2, message)]);
    expect(await lintAs('providerInServer.ts', 'packages/cli/src/tools.ts')).toEqual([at(2, message)]);
    expect(await lintAs('providerInServer.ts', 'packages/rea/src/defaults.ts')).toEqual([]);
  });

  it('should refuse bare built-ins, package internals and default exports', async () => {
    expect(await lintAs('internals.ts', 'packages/server/src/a.ts')).toEqual([
      at(2, 'Import node:crypto instead.'),
      at(3, 'never its src/ or dist/ internals'),
    ]);
    expect(await lintAs('defaultExport.ts', 'packages/evidence/src/a.ts')).toEqual([
      '2: No default exports: use named exports.',
    ]);
  });
});
