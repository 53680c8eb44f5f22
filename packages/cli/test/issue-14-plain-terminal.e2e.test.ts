import { expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { skipUnless } from '@rea/test-helpers';
import { FIXTURE_CLI } from './run.js';

// `script` (util-linux) runs a command on a fresh pseudo-terminal, so stdin, stdout and stderr are TTYs.
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** Everything the terminal receives from the fixture CLI run with `env` on a pseudo-terminal. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv): string {
  const command = [process.execPath, FIXTURE_CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const result = spawnSync('script', ['-qec', command, '/dev/null'], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: undefined, TERM: 'xterm-256color', ...env },
  });
  return result.stdout;
}

skipUnless(hasScript ? null : 'the `script` command (util-linux) is not installed')(
  'rea CLI on a terminal that asks for plain output',
  () => {
    it('should draw progress without escape sequences under TERM=dumb and under NO_COLOR', () => {
      // The same run on an ordinary terminal draws its progress line with an escape sequence.
      expect(onTerminal(['hash-text', 'hello', '--format', 'json'], {})).toContain('\x1b[2K');
      for (const env of [{ TERM: 'dumb' }, { NO_COLOR: '1' }]) {
        const output = onTerminal(['hash-text', 'hello', '--format', 'json'], env);
        expect({ env, escape: output.includes('\x1b') }).toEqual({ env, escape: false });
        expect(output).toContain('hashing 5 characters');
        expect(output).toContain('"digest"');
        // Help and errors carry none either.
        for (const args of [['hash-text', '--help'], ['hash-txt'], ['fail-internal']]) {
          expect({ env, args, escape: onTerminal(args, env).includes('\x1b') }).toEqual({ env, args, escape: false });
        }
      }
    });
  },
);
