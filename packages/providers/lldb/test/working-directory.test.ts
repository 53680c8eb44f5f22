// The working directory of a program REA runs: both tools refuse one that is relative, missing or not a
// directory before anything starts, with the same typed answers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { capture, failure, observe } from './support.js';

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-lldb-cwd-'));
  writeFileSync(join(dir, 'file'), 'not a directory');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['observe_native_calls', observe, { targets: [{ kind: 'import', name: 'exit' }] }],
  ['capture_process_scenario', capture, {}],
] as const)('%s with a bad cwd', (_name, tool, rest) => {
  const attempt = (cwd: string) => failure(tool, { executable: '/usr/bin/true', cwd, deadline_ms: 10_000, ...rest });

  it('should refuse a relative cwd as not absolute', async () => {
    const error = await attempt('relative');
    expect([error.code, error.details['reason'], error.message]).toEqual([
      'invalid_request',
      'relative-path',
      'The working directory "relative" is not absolute.',
    ]);
  });

  it('should answer not_found for a cwd that does not exist', async () => {
    const error = await attempt(join(dir, 'missing'));
    expect([error.code, error.details['reason'], error.details['path']]).toEqual([
      'not_found',
      'missing',
      join(dir, 'missing'),
    ]);
    expect(error.remediation).toBe('Pass an existing directory as cwd.');
  });

  it('should refuse a cwd that is a file', async () => {
    const error = await attempt(join(dir, 'file'));
    expect([error.code, error.details['reason']]).toEqual(['invalid_request', 'not-a-directory']);
  });
});
