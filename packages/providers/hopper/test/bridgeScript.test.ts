// The shipped Python bridge byte-compiles (py_compile, written to a temporary file, not beside the
// script). Hopper's API is not available here, so this establishes syntax only.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hopperBridgeScript } from '@rea/provider-hopper';

const compile = (file: string, dir: string) =>
  spawnSync(
    'python3',
    [
      '-c',
      'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)',
      file,
      join(dir, 'out.pyc'),
    ],
    { encoding: 'utf8' },
  );

describe('Hopper bridge script', () => {
  it('byte-compiles, and a broken script would not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-pycompile-'));
    try {
      expect(compile(hopperBridgeScript(), dir)).toMatchObject({ status: 0, stderr: '' });
      writeFileSync(join(dir, 'bad.py'), 'def f(:\n  pass\n');
      expect(compile(join(dir, 'bad.py'), dir).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
