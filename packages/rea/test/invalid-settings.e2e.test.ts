// An environment setting REA reads must have its accepted form (docs/configuration.md). Every command
// that analyses or serves refuses to run with an invalid one — `configuration_invalid`, exit status 4,
// naming the variable, its value and the accepted form — whichever setting it is and whether or not the
// command would have used it; `rea doctor` names it and succeeds. Runs the built `rea` executable.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../cli/test/run.js';
import { REA_BIN } from './httpEntry.js';

/** The accepted forms as docs/configuration.md states them. */
const ON_OFF = '"on" or "off"';
const TIMEOUT = 'a decimal integer from 1 to 2147483647 (digits only, no leading zero)';

const NATIVE = '/usr/bin/true';

describe('rea with an invalid environment setting', () => {
  let dir: string;
  let text: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rea-settings-'));
    text = join(dir, 'note.txt');
    writeFileSync(text, 'some text\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const rea = (args: readonly string[], env: Record<string, string>) => run(REA_BIN, args, { env });

  it('should refuse every analysing command with configuration_invalid (exit 4) for REA_CODE_CACHE=maybe', async () => {
    const env = { REA_CODE_CACHE: 'maybe' };
    for (const args of [
      ['inspect-artifact', text],
      ['analyze', text],
      ['analyze', NATIVE],
      ['catalog'],
      ['binary-session'],
    ]) {
      const result = await rea(args, env);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 4, stdout: '' });
      expect(result.stderr).toMatch(
        new RegExp(`^rea: error \\[configuration_invalid\\]: REA_CODE_CACHE="maybe" is not ${ON_OFF}\\.\\n`),
      );
    }
  }, 120_000);

  it("should refuse a command whatever setting is invalid, a provider's included, and say so in JSON", async () => {
    for (const variable of ['REA_GHIDRA_STARTUP_TIMEOUT_MS', 'REA_CAPSTONE_OPEN_TIMEOUT_MS']) {
      const human = await rea(['analyze', NATIVE, '--quiet'], { [variable]: 'abc' });
      expect({ variable, code: human.code, stdout: human.stdout }).toEqual({ variable, code: 4, stdout: '' });
      expect(human.stderr).toContain(`rea: error [configuration_invalid]: ${variable}="abc" is not ${TIMEOUT}.`);
      const json = await rea(['inspect-artifact', text, '--format', 'json'], { [variable]: 'abc' });
      expect(json.code).toBe(4);
      expect(JSON.parse(json.stdout)).toMatchObject({
        error: { code: 'configuration_invalid', details: { variable, value: 'abc', accepted: TIMEOUT } },
      });
    }
  }, 120_000);

  it('should run the same commands once the setting has its accepted form', async () => {
    for (const env of [{ REA_CODE_CACHE: 'off' }, { REA_GHIDRA_STARTUP_TIMEOUT_MS: '1000' }]) {
      const result = await rea(['inspect-artifact', text, '--format', 'json'], env);
      expect({ env, code: result.code }).toEqual({ env, code: 0 });
      expect(JSON.parse(result.stdout)).toMatchObject({ operation: 'inspect_artifact' });
    }
  }, 120_000);

  it('should let doctor name the invalid setting and succeed, and help and version run', async () => {
    const env = { REA_CODE_CACHE: 'maybe' };
    const doctor = await rea(['doctor'], env);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toContain(`configuration: invalid — REA_CODE_CACHE="maybe" is not ${ON_OFF}.`);
    expect((await rea(['--version'], env)).code).toBe(0);
    expect((await rea(['inspect-artifact', '--help'], env)).code).toBe(0);
    const schema = await rea(['inspect-artifact', '--schema'], env);
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout)).toMatchObject({ type: 'object' });
  }, 120_000);
});
