import { expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFixture, skipUnless, toolsMissing, withTempDir, writeAsar } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');

/** The example lines of a help text: the indented `rea …` lines under "Examples:". */
function examplesIn(help: string): string[] {
  const found: string[] = [];
  let inside = false;
  for (const line of help.split('\n')) {
    if (/^Examples?:\s*$/.test(line.trim())) inside = true;
    else if (inside && /^\s+rea /.test(line)) found.push(line.trim());
    else inside = false;
  }
  return found;
}

/** An address of `symbol` in `binary`, as nm reports it (the addresses REA reports too). */
function addressOf(binary: string, symbol: string, plus = 0): string {
  const text = execFileSync('nm', [binary], { encoding: 'utf8' });
  const match = new RegExp(`^([0-9a-f]+) [A-Za-z] ${symbol}$`, 'm').exec(text);
  if (match === null) throw new Error(`nm found no ${symbol} in ${binary}`);
  return `0x${(BigInt(`0x${match[1]}`) + BigInt(plus)).toString(16)}`;
}

/** A free loopback TCP port (bound and released; the example's server binds it right after). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Outcome {
  example: string;
  code: number | null;
  error: string;
}

/**
 * Runs one example line in bash. A server example (`rea mcp --http …`) runs until it prints the URL it
 * serves, answers a request there, and is then stopped with SIGTERM: an idle server stops with 0.
 */
function runExample(example: string, line: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `exec ${line}`], { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const server = /^rea mcp --http /.test(example);
    let stderr = '';
    let answered = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stdout.resume();
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const url = /MCP over Streamable HTTP at (\S+)/.exec(stderr)?.[1];
      if (!server || answered || url === undefined) return;
      answered = true;
      // Any HTTP answer proves the server serves its URL; then it is stopped as a user would.
      void fetch(url, { method: 'GET' })
        .then((response) => response.status)
        .catch(() => 0)
        .then((status) => {
          if (status === 0) stderr += `\nno HTTP answer at ${url}`;
          child.kill('SIGTERM');
        });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const failed = code !== 0 || (server && !answered);
      resolve({ example, code: server && !answered ? -1 : code, error: failed ? stderr.slice(0, 300) : '' });
    });
  });
}

skipUnless(toolsMissing('gcc', 'nm', 'zip', 'bash'))('rea: every example a help text prints', () => {
  it('should run every example of every command, as typed, on real files', async () => {
    await withTempDir(async (dir) => {
      // The files the examples name, made here: the program they analyse, an APK, an ASAR, an app bundle.
      const work = join(dir, 'work');
      const tmp = join(dir, 'tmp');
      const shims = join(dir, 'bin');
      for (const d of [work, tmp, shims, join(dir, 'home'), join(dir, 'resources')]) mkdirSync(d);
      const program = join(work, 'program');
      const built = compileFixture({
        source: join(here, 'fixtures', 'examples.c'),
        compiler: 'gcc',
        args: ['-O0', '-fno-inline'],
        output: 'examples',
      });
      copyFileSync(built, program);
      chmodSync(program, 0o755);
      writeFileSync(join(dir, 'classes.dex'), 'dex\n035\0');
      writeFileSync(join(dir, 'AndroidManifest.xml'), '<manifest/>');
      execFileSync('zip', [
        '-q',
        '-j',
        join(dir, 'app.apk'),
        join(dir, 'classes.dex'),
        join(dir, 'AndroidManifest.xml'),
      ]);
      const app = { 'package.json': '{"name":"demo","main":"main.js"}', 'main.js': "require('electron');\n" };
      writeAsar(join(dir, 'resources', 'app.asar'), app);
      mkdirSync(join(dir, 'Example.app', 'Contents', 'MacOS'), { recursive: true });
      mkdirSync(join(dir, 'Example.app', 'Contents', 'Resources'));
      writeAsar(join(dir, 'Example.app', 'Contents', 'Resources', 'app.asar'), app);
      mkdirSync(join(dir, 'web-build'));
      writeFileSync(join(dir, 'web-build', 'index.html'), '<script src="app.js"></script>');
      writeFileSync(join(dir, 'web-build', 'app.js'), "fetch('https://api.example.test/notes');\n");
      writeFileSync(join(dir, 'Example.app', 'Contents', 'Info.plist'), '<plist><dict></dict></plist>');
      copyFileSync(program, join(dir, 'Example.app', 'Contents', 'MacOS', 'Example'));
      // `rea` on PATH, as an installation puts it there.
      writeFileSync(join(shims, 'rea'), `#!/bin/sh\nexec '${process.execPath}' '${bin}' "$@"\n`);
      chmodSync(join(shims, 'rea'), 0o755);
      const env = { PATH: `${shims}:${process.env['PATH'] ?? ''}`, HOME: join(dir, 'home'), TMPDIR: tmp };
      const exported = await run(bin, ['analyze', program, '--export', join(work, 'evidence.json'), '--quiet'], {
        env,
        cwd: work,
      });
      expect(exported.code).toBe(0);

      // The contracts' example paths and addresses stand for the user's own; these are ours.
      const placeholders: Array<[string, string]> = [
        ['/usr/lib/x86_64-linux-gnu/libc.so.6', program],
        ['/usr/bin/ls', program],
        ['/usr/bin/true', program],
        ['/tmp/app.apk', join(dir, 'app.apk')],
        ['/tmp/resources/app.asar', join(dir, 'resources', 'app.asar')],
        ['/Applications/Example.app', join(dir, 'Example.app')],
        ['/tmp/rea-evidence.json', join(dir, 'rea-evidence.json')],
        ['/tmp/web-build', join(dir, 'web-build')],
        // Servers bind loopback only here, on a port that is free.
        ['0.0.0.0:7331', `127.0.0.1:${await freePort()}`],
        ['--http 7331', `--http ${await freePort()}`],
        ['0x401126', addressOf(program, 'main')],
        ['0x401136', addressOf(program, 'main', 4)],
        ['0x402004', addressOf(program, 'banner')],
      ];

      const manifest = JSON.parse((await run(bin, ['--llms'], { env })).stdout) as {
        commands: Array<{ command: string }>;
        builtin_commands: Array<{ command: string }>;
      };
      const names = [...manifest.builtin_commands, ...manifest.commands].map((c) => c.command);
      const examples: string[] = [];
      for (const name of names) {
        const help = await run(bin, [name, '--help'], { env });
        expect({ name, code: help.code }).toEqual({ name, code: 0 });
        examples.push(...examplesIn(help.stdout));
      }
      // Every generated command whose contract has an example runnable in one invocation shows it.
      expect(examples.length).toBeGreaterThan(names.length);
      expect(examples).toContain('rea list-procedures ./program');

      // Two at a time, one per core.
      const outcomes: Outcome[] = [];
      const queue = [...examples];
      const worker = async (): Promise<void> => {
        for (let example = queue.shift(); example !== undefined; example = queue.shift()) {
          let line = example;
          for (const [from, to] of placeholders) line = line.split(from).join(to);
          outcomes.push(await runExample(example, line, { cwd: work, env: { ...process.env, ...env } }));
        }
      };
      await Promise.all([worker(), worker()]);
      // Pseudocode needs a decompiling engine (Ghidra or Hopper); this installation's embedded engine
      // has none, and says so with its typed refusal.
      const decompiling = outcomes.filter((o) => o.example.startsWith('rea procedure-pseudo-code '));
      expect(decompiling.length).toBeGreaterThan(0);
      for (const outcome of decompiling) {
        expect(outcome.code).toBe(5);
        expect(outcome.error).toContain('pseudocode');
      }
      // Examples that name what only the user has — an attached device behind a running adb server, a
      // page served on their machine, their own APK — run here to the typed refusal that says so; the
      // tools themselves are exercised by their packages' tests (stand-in adb server, pages served by
      // the test, APKs compiled by aapt).
      const needs: Array<{ match: RegExp; code: number; error: RegExp }> = [
        {
          match:
            /-android-(devices?|device-package|packages|directory|file|logcat|screen|app)\b|-android-package --apk-paths|^rea uninstall-android-package /,
          code: 5,
          error: /\[capability_unavailable\].*adb server/,
        },
        { match: /127\.0\.0\.1:(8080|9222)/, code: 9, error: /\[target_unavailable\].*127\.0\.0\.1:(8080|9222)/ },
        { match: /\/tmp\/app-release\.apk/, code: 3, error: /\[not_found\].*\/tmp\/app-release\.apk/ },
      ];
      const refused = outcomes.filter((o) => !decompiling.includes(o) && needs.some((n) => n.match.test(o.example)));
      for (const outcome of refused) {
        const need = needs.find((n) => n.match.test(outcome.example))!;
        // A device-changing example whose local file is missing is refused before adb is asked.
        if (/\/tmp\/sample\.txt/.test(outcome.example)) {
          expect({ example: outcome.example, code: outcome.code }).toEqual({ example: outcome.example, code: 3 });
          continue;
        }
        expect({ example: outcome.example, code: outcome.code }).toEqual({ example: outcome.example, code: need.code });
        expect(outcome.error).toMatch(need.error);
      }
      expect(outcomes.filter((o) => !decompiling.includes(o) && !refused.includes(o) && o.code !== 0)).toEqual([]);
    });
  }, 600_000);
});
