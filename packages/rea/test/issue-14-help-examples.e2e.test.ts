import { expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFixture, skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.js');

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

/** A minimal ASAR archive: a size pickle, a JSON header pickle, then the files. */
function asarOf(files: Record<string, string>): Buffer {
  let offset = 0;
  const entries: Record<string, { size: number; offset: string }> = {};
  for (const [name, text] of Object.entries(files)) {
    entries[name] = { size: Buffer.byteLength(text), offset: String(offset) };
    offset += Buffer.byteLength(text);
  }
  const json = Buffer.from(JSON.stringify({ files: entries }));
  const padded = Math.ceil(json.length / 4) * 4;
  const header = Buffer.alloc(8 + padded);
  header.writeUInt32LE(4 + padded, 0);
  header.writeUInt32LE(json.length, 4);
  json.copy(header, 8);
  const size = Buffer.alloc(8);
  size.writeUInt32LE(4, 0);
  size.writeUInt32LE(header.length, 4);
  return Buffer.concat([size, header, ...Object.values(files).map((text) => Buffer.from(text))]);
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
      writeFileSync(
        join(dir, 'resources', 'app.asar'),
        asarOf({ 'package.json': '{"name":"demo"}', 'main.js': '1;\n' }),
      );
      mkdirSync(join(dir, 'Example.app', 'Contents', 'MacOS'), { recursive: true });
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

      const outcomes: Array<{ example: string; code: number | null; error: string }> = [];
      for (const example of examples) {
        let line = example;
        for (const [from, to] of placeholders) line = line.split(from).join(to);
        const result = spawnSync('bash', ['-c', line], {
          cwd: work,
          env: { ...process.env, ...env },
          encoding: 'utf8',
          timeout: 120_000,
        });
        outcomes.push({ example, code: result.status, error: result.status === 0 ? '' : result.stderr.slice(0, 300) });
      }
      // Pseudocode needs a decompiling engine (Ghidra or Hopper); this installation's embedded engine
      // has none, and says so with its typed refusal.
      const decompiling = outcomes.filter((o) => o.example.startsWith('rea procedure-pseudo-code '));
      expect(decompiling.length).toBeGreaterThan(0);
      for (const outcome of decompiling) {
        expect(outcome.code).toBe(5);
        expect(outcome.error).toContain('pseudocode');
      }
      expect(outcomes.filter((o) => !decompiling.includes(o) && o.code !== 0)).toEqual([]);
    });
  }, 600_000);
});
