// What `rea doctor` says of the LLDB provider: found on disk, never by starting LLDB. Its version is held
// to what `lldb --version` prints; a Python or a module directory that is not there makes it not ready,
// saying what still works.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { createLldbProvider } from '@rea/provider-lldb';
import { probeLldb } from '../src/probe.js';

describe('the LLDB provider probe', () => {
  skipUnless(toolsMissing('lldb', 'python3'))('with LLDB installed', () => {
    it('should be ready with the version lldb itself reports', async () => {
      const printed = /lldb version (\d+\.\d+\.\d+)/.exec(execFileSync('lldb', ['--version'], { encoding: 'utf8' }));
      expect(printed).not.toBeNull();
      const probe = await createLldbProvider().probe();
      expect(probe).toMatchObject({ status: 'ready', version: `LLDB ${printed![1]}` });
    });
  });

  it('should not be ready when the Python that runs LLDB is not there', async () => {
    const probe = await probeLldb({ env: { ...process.env, REA_LLDB_PYTHON: '/nonexistent/python3' } });
    expect(probe).toMatchObject({ status: 'unavailable' });
    if (probe.status !== 'unavailable') return;
    expect(probe.reason).toContain('/nonexistent/python3');
    expect(probe.reason).toContain('capture_process_scenario works without it');
    expect(probe.remediation).toContain('REA_LLDB_PYTHON');
  });

  it('should not be ready when REA_LLDB_PYTHONPATH holds no LLDB module, or only an empty lldb folder', async () => {
    await withTempDir(async (dir) => {
      const env = { ...process.env, REA_LLDB_PYTHON: process.execPath, REA_LLDB_PYTHONPATH: dir };
      const empty = await probeLldb({ env });
      expect(empty).toMatchObject({ status: 'unavailable' });
      // An lldb folder with a package file but no native library behind it (nor a liblldb near it).
      mkdirSync(join(dir, 'lldb'));
      writeFileSync(join(dir, 'lldb', '__init__.py'), '');
      const hollow = await probeLldb({ env });
      expect(hollow).toMatchObject({ status: 'unavailable' });
      if (hollow.status === 'unavailable') expect(hollow.reason).toContain(`REA_LLDB_PYTHONPATH (${dir})`);
    });
  });
});
