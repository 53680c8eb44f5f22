// What `rea analyze` answers when it cannot analyze: the cause of the failure itself (a malformed
// archive is unsupported_target with what is wrong with it, not a pointer to `rea doctor`), and a
// provider the user named that does not exist fails the command instead of being a note in a report.
// When the embedded engine is chosen automatically and everything works, the report is whole.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import { hasStack, run } from '../../cli/test/run.js';
import { REA_BIN } from './httpEntry.js';

interface ErrorJson {
  error: { code: string; message: string; operation: string | null };
}

describe('rea analyze, when it cannot analyze', () => {
  it('should answer a malformed ZIP with the archive reader’s own error', async () => {
    await withTempDir(async (dir) => {
      const zip = join(dir, 'damaged.zip');
      // A local file header and nothing after it: no central directory.
      writeFileSync(zip, Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('garbage')]));
      const json = await run(REA_BIN, ['analyze', zip, '--format', 'json']);
      expect(json.code).toBe(10);
      const { error } = JSON.parse(json.stdout) as ErrorJson;
      expect(error.code).toBe('unsupported_target');
      expect(error.operation).toBe('inspect_artifact');
      expect(error.message).toContain('malformed');
      const human = await run(REA_BIN, ['analyze', zip]);
      expect(human.code).toBe(10);
      expect(human.stderr).toMatch(/^rea: error \[unsupported_target\] in inspect_artifact: .*malformed/);
      expect(human.stderr).not.toContain('rea doctor');
      expect(hasStack(human.stderr)).toBe(false);
    });
  }, 60_000);

  it('should answer a missing path with not_found and what to check', async () => {
    const result = await run(REA_BIN, ['analyze', '/nonexistent/rea-target', '--format', 'json']);
    expect(result.code).toBe(3);
    const { error } = JSON.parse(result.stdout) as ErrorJson & { error: { remediation: string } };
    expect(error.code).toBe('not_found');
    expect(error.remediation).toBe('Check the path: nothing is there (or a part of it is a file, not a folder).');
  }, 60_000);

  it('should answer a loop of symbolic links with what it is, not with opening a target', async () => {
    await withTempDir(async (dir) => {
      symlinkSync('second', join(dir, 'first'));
      symlinkSync('first', join(dir, 'second'));
      const result = await run(REA_BIN, ['analyze', join(dir, 'first'), '--format', 'json']);
      expect(result.code).toBe(9);
      const { error } = JSON.parse(result.stdout) as ErrorJson & { error: { remediation: string } };
      expect(error.code).toBe('target_unavailable');
      expect(error.message).toContain('leads back to itself or through too many links (ELOOP)');
      expect(error.remediation).toContain('ls -l');
      // Every command that takes a path says the same: the inventory, and opening it as a target.
      for (const command of [
        'inspect-artifact',
        'extract-artifact',
        'open-binary',
        'inspect-binary-layout',
        'import-evidence-bundle',
      ]) {
        const other = await run(REA_BIN, [command, join(dir, 'first'), '--format', 'json']);
        expect(other.code).toBe(9);
        const answer = JSON.parse(other.stdout) as ErrorJson & { error: { details: { reason: string } } };
        expect(answer.error).toMatchObject({ code: 'target_unavailable', details: { reason: 'ELOOP' } });
        expect(answer.error.message).toContain('(ELOOP)');
      }
    });
  }, 60_000);

  it('should say what to do with a bundle cut short, and with an export to a folder', async () => {
    await withTempDir(async (dir) => {
      const bundle = join(dir, 'bundle.json');
      const exported = await run(REA_BIN, ['analyze', '/usr/bin/true', '--export', bundle, '--quiet']);
      expect(exported.code).toBe(0);
      writeFileSync(bundle, readFileSync(bundle, 'utf8').slice(0, 400));
      const cut = await run(REA_BIN, ['import-evidence-bundle', bundle, '--format', 'json']);
      expect(cut.code).toBe(2);
      const { error } = JSON.parse(cut.stdout) as ErrorJson & { error: { remediation: string } };
      expect(error.message).toMatch(/^Malformed JSON: /);
      expect(error.remediation).toContain('Pass one whole JSON document');
      const folder = await run(REA_BIN, ['analyze', '/usr/bin/true', '--export', dir, '--format', 'json']);
      expect(folder.code).toBe(2);
      const refused = JSON.parse(folder.stdout) as ErrorJson & { error: { remediation: string } };
      expect(refused.error.remediation).toBe(`Name the file to write, e.g. ${join(dir, 'evidence-bundle.json')}.`);
      // A FIFO would have become a plain file (a device too, as root); it is refused before the analysis.
      const fifo = join(dir, 'pipe');
      execFileSync('mkfifo', [fifo]);
      const piped = await run(REA_BIN, ['analyze', '/usr/bin/true', '--export', fifo, '--format', 'json']);
      expect(piped.code).toBe(2);
      expect((JSON.parse(piped.stdout) as ErrorJson).error).toMatchObject({
        code: 'invalid_request',
        details: { reason: 'destination-not-a-file', path: fifo },
      });
      expect(piped.stderr).not.toContain('binary_overview');
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    });
  }, 60_000);

  it('should answer a tool command whose target is missing with not_found, attributed to the command', async () => {
    // Opening the target is the command's first step: its failure names the command, as any other does,
    // and a missing file is not_found, as every tool that takes a path answers it.
    const json = await run(REA_BIN, ['binary-overview', '/nonexistent/rea-target', '--format', 'json']);
    expect(json.code).toBe(3);
    const { error } = JSON.parse(json.stdout) as ErrorJson;
    expect(error).toMatchObject({ code: 'not_found', operation: 'binary_overview' });
    const layout = await run(REA_BIN, ['inspect-binary-layout', '/nonexistent/rea-target', '--format', 'json']);
    expect((JSON.parse(layout.stdout) as ErrorJson).error.code).toBe('not_found');
    const human = await run(REA_BIN, ['binary-overview', '/nonexistent/rea-target']);
    expect(human.stderr).toMatch(
      /^rea: error \[not_found\] in binary_overview: Cannot read \/nonexistent\/rea-target: no such file or directory\./,
    );
  }, 60_000);

  it('should fail with provider_selection when --provider or REA_ANALYSIS_PROVIDER names no provider', async () => {
    const flag = await run(REA_BIN, ['analyze', '/usr/bin/true', '--provider', 'nosuch', '--format', 'json']);
    const env = await run(REA_BIN, ['analyze', '/usr/bin/true', '--format', 'json'], {
      env: { REA_ANALYSIS_PROVIDER: 'nosuch' },
    });
    for (const result of [flag, env]) {
      expect(result.code).toBe(7);
      const { error } = JSON.parse(result.stdout) as ErrorJson;
      expect(error.code).toBe('provider_selection');
      expect(error.message).toContain('nosuch');
    }
  }, 60_000);

  it('should report the layout, the inventory and the overview of a program with the default provider', async () => {
    const result = await run(REA_BIN, ['analyze', '/usr/bin/true', '--format', 'json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { steps: Array<{ tool: string; note: string | null }> };
    expect(report.steps.map((step) => step.tool)).toEqual([
      'inspect_binary_layout',
      'inspect_artifact',
      'binary_overview',
    ]);
    expect(report.steps.every((step) => step.note === null)).toBe(true);
  }, 60_000);
});
