import { expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { skipUnless } from '@rea/test-helpers';
import { FIXTURE_CLI } from './run.js';

// `script` (util-linux) runs a command on a fresh pseudo-terminal, so stdin, stdout and stderr are TTYs.
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

function onTerminal(args: string[]): string {
  const command = [process.execPath, FIXTURE_CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const result = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
  return result.stdout;
}

skipUnless(hasScript ? null : 'the `script` command (util-linux) is not installed')('rea CLI on a terminal', () => {
  it('should show progress as one live line on stderr and clear it before the result', () => {
    const output = onTerminal(['hash-text', 'hello', '--format', 'json']);
    expect(output.startsWith('\r\x1b[2Khashing 5 characters\r\x1b[2K{')).toBe(true);
  });

  it('should show no progress with --quiet', () => {
    const output = onTerminal(['hash-text', 'hello', '--format', 'json', '--quiet']);
    expect(output).not.toContain('hashing');
    expect(output.startsWith('{')).toBe(true);
  });

  it('should print help when started without arguments on a terminal', () => {
    expect(onTerminal([])).toContain('Usage: rea <command> [options]');
  });
});
