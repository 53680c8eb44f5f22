// compare_process_captures of real captures: differences typed by field, and argv compared without the
// program's directory (two builds of one program).
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';
import { lldbTools } from '@rea/provider-lldb';
import { capture, fixture, run } from './support.js';

jest.setTimeout(300_000);

const compare = lldbTools.find((tool) => tool.name === 'compare_process_captures')!;

interface Comparison {
  equal: boolean;
  differences: Array<{ field: string; left: unknown; right: unknown }>;
}

describe('compare_process_captures', () => {
  let dir = '';
  const builds: string[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rea-lldb-compare-'));
    // Two builds of one program: the same file name in two directories.
    for (const name of ['build-a', 'build-b']) {
      mkdirSync(join(dir, name));
      copyFileSync(fixture('status'), join(dir, name, 'status'));
      builds.push(join(dir, name, 'status'));
    }
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const captured = async (executable: string, args: string[]) => {
    const outcome = await executeTool(capture, { executable, args, deadline_ms: 60_000 }, quietToolContext());
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    return outcome.record;
  };

  it('should give exit codes as numbers and state an argv difference beside the others', async () => {
    const left = await captured(builds[0]!, ['3']);
    const right = await captured(builds[1]!, ['4']);
    const result = await run<Comparison>(compare, { left, right });
    expect(result.equal).toBe(false);
    expect(result.differences).toEqual([
      { field: 'argv', left: ['status', '3'], right: ['status', '4'] },
      { field: 'exit_code', left: 3, right: 4 },
      { field: 'stdout', left: 'status 3\n', right: 'status 4\n' },
    ]);
  });

  it('should find two builds run with the same arguments equal, whatever their directories', async () => {
    const left = await captured(builds[0]!, ['5']);
    const right = await captured(builds[1]!, ['5']);
    expect(await run<Comparison>(compare, { left, right })).toMatchObject({ equal: true, differences: [] });
  });
});
