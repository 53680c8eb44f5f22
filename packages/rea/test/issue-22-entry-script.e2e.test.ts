// The `rea` executable is one CommonJS script (dist/bin.cjs): Node.js runs it without starting its ES
// module loader, which cost every command about 10 ms. `--version` and `--help` do not load that loader
// (a preload lists the built-in modules loaded when the process exits; the ES module entry loaded it);
// `rea mcp` still imports the stdio server's ES modules and answers `initialize`.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');
const bin = join(packageDir, 'dist', 'bin.cjs');

/** Runs `rea args` with a preload of the given source (a CommonJS file written to a fresh folder). */
function withPreload(source: string, args: string[], env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  const dir = mkdtempSync(join(tmpdir(), 'rea-entry-'));
  try {
    const preload = join(dir, 'preload.cjs');
    writeFileSync(preload, source);
    return spawnSync(process.execPath, ['--require', preload, bin, ...args], {
      encoding: 'utf8',
      timeout: 60_000,
      env,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `rea args` with a preload that prints the ES module loader's built-ins loaded by the end (stderr). */
function esmModulesLoaded(args: string[]): { stdout: string; loaded: string[] } {
  const run = withPreload(
    "process.on('exit', () => process.stderr.write(JSON.stringify(process.moduleLoadList.filter((m) => m.includes('internal/modules/esm/')))));",
    args,
  );
  expect(run.status).toBe(0);
  return { stdout: run.stdout, loaded: JSON.parse(run.stderr.trim().split('\n').pop()!) as string[] };
}

describe('the rea executable', () => {
  it('should be the CommonJS script package.json names, executable, with its interpreter line', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(manifest.bin).toEqual({ rea: './dist/bin.cjs' });
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(() => accessSync(bin, constants.X_OK)).not.toThrow();
  });

  it('should answer --version and --help without loading the ES module loader', () => {
    const version = esmModulesLoaded(['--version']);
    expect(version.stdout).toBe(
      `${(JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version}\n`,
    );
    expect(version.loaded).not.toContain('NativeModule internal/modules/esm/loader');
    const help = esmModulesLoaded(['--help']);
    expect(help.stdout).toContain('Usage: rea <command>');
    expect(help.loaded).not.toContain('NativeModule internal/modules/esm/loader');
  });

  it('should still import the stdio server and answer initialize over a pipe', () => {
    const request = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'entry-test', version: '1' } },
    };
    const run = spawnSync(process.execPath, [bin, 'mcp'], {
      input: `${JSON.stringify(request)}\n`,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    const answer = JSON.parse(run.stdout.split('\n')[0]!) as { id: number; result: { serverInfo: { name: string } } };
    expect(answer.id).toBe(1);
    expect(answer.result.serverInfo.name).toBeTruthy();
  });
});

describe('a command that never finishes', () => {
  it('should end with status 13 and say so, not pass for a success', () => {
    // The command line's main() is replaced by one whose promise never settles and that keeps nothing
    // alive: the event loop empties while the executable still waits on it.
    const run = withPreload(
      "require('node:vm').Script.prototype.runInThisContext = function () { return (exports, require, module) => { module.exports.main = () => new Promise(() => {}); }; };",
      ['analyze', '/usr/bin/true'],
      { ...process.env, REA_CODE_CACHE: 'off' },
    );
    expect(run.status).toBe(13);
    expect(run.stderr).toContain('rea: error [internal]: REA stopped with the command unfinished');
    expect(run.stdout).toBe('');
  });
});
