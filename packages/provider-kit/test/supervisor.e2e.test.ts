import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Runs against the built package: a host process that exits without closing its supervisor.
const entry = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'index.js');

function alive(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
      .trim()
      .startsWith('Z');
  } catch {
    return false;
  }
}

async function runHost(script: string): Promise<{ pids: number[]; code: number | null }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
  return { pids: out.trim().split(/\s+/).filter(Boolean).map(Number), code };
}

describe('process supervisor in a host that exits', () => {
  it('should kill owned process groups when the host exits without closing', async () => {
    expect(existsSync(entry)).toBe(true);
    const script = `
      import { createProcessSupervisor } from ${JSON.stringify(pathToFileURL(entry).href)};
      const supervisor = createProcessSupervisor();
      const engine = await supervisor.start('sh', ['-c', 'sleep 300 & echo $!; wait'], { stdout: 'pipe' });
      const helper = await new Promise((resolve) => engine.stdout.once('data', (d) => resolve(String(d).trim())));
      console.log(engine.identity.pid, helper);
      process.exit(3);
    `;
    const { pids, code } = await runHost(script);
    expect(code).toBe(3);
    expect(pids).toHaveLength(2);
    for (let i = 0; i < 200 && pids.some(alive); i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(pids.filter(alive)).toEqual([]);
  });

  it('should terminate owned engines with SIGTERM from the built package', async () => {
    const script = `
      import { createProcessSupervisor } from ${JSON.stringify(pathToFileURL(entry).href)};
      const supervisor = createProcessSupervisor();
      const engine = await supervisor.start('sleep', ['300']);
      await supervisor.closeAll({ graceMs: 500 });
      console.log(engine.identity.pid, (await engine.exited).signal === 'SIGTERM' ? 1 : 0);
      process.exit(0);
    `;
    // Repeated: the close must finish even when Node reaps the engine while the supervisor is still
    // polling for it (an unfinished top-level await would end the host with exit code 13).
    for (let run = 0; run < 8; run += 1) {
      const { pids, code } = await runHost(script);
      expect({ run, code }).toEqual({ run, code: 0 });
      expect(pids[1]).toBe(1);
      expect(alive(pids[0]!)).toBe(false);
    }
  }, 60_000);

  it('should have its owned groups killed when the host itself is killed (SIGKILL)', async () => {
    // Nothing in the host runs after SIGKILL: only the watchdog outside it can end what it owned.
    const script = `
      import { createProcessSupervisor } from ${JSON.stringify(pathToFileURL(entry).href)};
      const supervisor = createProcessSupervisor();
      const engine = await supervisor.start('sh', ['-c', 'sleep 300 & echo $!; wait'], { stdout: 'pipe' });
      const helper = await new Promise((resolve) => engine.stdout.once('data', (d) => resolve(String(d).trim())));
      console.log(engine.identity.pid, helper);
      setInterval(() => undefined, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pids = await new Promise<number[]>((done) =>
      child.stdout.once('data', (chunk: Buffer) => done(chunk.toString('utf8').trim().split(/\s+/).map(Number))),
    );
    expect(pids).toHaveLength(2);
    expect(pids.every(alive)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((done) => child.once('exit', done));
    for (let i = 0; i < 200 && pids.some(alive); i += 1) await new Promise((r) => setTimeout(r, 25));
    expect(pids.filter(alive)).toEqual([]);
  });
});

describe('process supervisor in a host killed by SIGKILL, its temp directories', () => {
  it('should have them removed after its groups, following no symlink out of them', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'rea-outside-'));
    writeFileSync(join(outside, 'keep'), 'kept');
    // One directory holds a link to `outside`; another is replaced by such a link once registered.
    const script = `
      import { rmdirSync, symlinkSync } from 'node:fs';
      import { join } from 'node:path';
      import { createProcessSupervisor } from ${JSON.stringify(pathToFileURL(entry).href)};
      const supervisor = createProcessSupervisor();
      const owned = await supervisor.createTempDir('owned');
      symlinkSync(${JSON.stringify(outside)}, join(owned, 'link'));
      const swapped = await supervisor.createTempDir('swapped');
      rmdirSync(swapped);
      symlinkSync(${JSON.stringify(outside)}, swapped);
      const engine = await supervisor.start('sleep', ['300']);
      console.log(engine.identity.pid, owned, swapped);
      setInterval(() => undefined, 1000);
    `;
    try {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const [pid, owned, swapped] = await new Promise<string[]>((done) =>
        child.stdout.once('data', (chunk: Buffer) => done(chunk.toString('utf8').trim().split(/\s+/))),
      );
      expect(existsSync(join(owned!, 'link', 'keep'))).toBe(true);
      child.kill('SIGKILL');
      await new Promise((done) => child.once('exit', done));
      for (let i = 0; i < 400 && (alive(Number(pid)) || existsSync(owned!)); i += 1) {
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(alive(Number(pid))).toBe(false);
      expect(existsSync(owned!)).toBe(false);
      // The link that replaced a registered directory is left, and nothing it leads to is touched.
      expect(lstatSync(swapped!).isSymbolicLink()).toBe(true);
      expect(readFileSync(join(outside, 'keep'), 'utf8')).toBe('kept');
      rmSync(swapped!);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
