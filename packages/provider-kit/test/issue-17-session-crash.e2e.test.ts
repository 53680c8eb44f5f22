import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { processAlive } from '@rea/test-helpers';

// Runs against the built package: a host whose session kept a process and a temp directory crashes.
const entry = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

describe('session resources of a host that crashes', () => {
  it('should kill the kept process group and remove its temp directory when the host dies of an uncaught error', async () => {
    expect(existsSync(entry)).toBe(true);
    const script = `
      import { createSessionResources } from ${JSON.stringify(pathToFileURL(entry).href)};
      const resources = createSessionResources();
      const held = await resources.obtain('held', async (supervisor) => {
        const dir = await supervisor.createTempDir('crash-test');
        const engine = await supervisor.start('sh', ['-c', 'sleep 300 & echo $!; wait'], { stdout: 'pipe' });
        const helper = await new Promise((done) => engine.stdout.once('data', (d) => done(String(d).trim())));
        return { value: { pids: [engine.identity.pid, Number(helper)], dir } };
      }, new AbortController().signal);
      console.log(JSON.stringify(held));
      setTimeout(() => { throw new Error('crash'); }, 0);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.resume();
    const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
    const held = JSON.parse(out) as { pids: number[]; dir: string };
    expect(code).toBe(1);
    expect(held.pids).toHaveLength(2);
    expect(existsSync(held.dir)).toBe(false);
    // SIGKILL was sent before the host exited; the kernel ends the group right after.
    for (let i = 0; i < 200 && held.pids.some(processAlive); i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(held.pids.filter(processAlive)).toEqual([]);
  });
});
