import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFixture, findTool, skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const rea = (args: string[], cwd?: string) => run(bin, args, cwd === undefined ? {} : { cwd });

function program(): string {
  return compileFixture({
    source: join(here, 'fixtures', 'examples.c'),
    compiler: 'gcc',
    args: ['-O0', '-fno-inline'],
    output: 'examples',
  });
}

/** What bash completes for the words of `line` (the last word is the one being completed). */
function bashCompletes(script: string, words: string[], cwd: string): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const driver = `source "$1"\nCOMP_WORDS=(${quoted})\nCOMP_CWORD=${words.length - 1}\n_rea\nprintf '%s\\n' "\${COMPREPLY[@]}"\n`;
  const result = spawnSync('bash', ['-c', driver, 'complete-rea', script], { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`bash failed: ${result.stderr}`);
  return result.stdout.split('\n').filter((line) => line !== '');
}

skipUnless(toolsMissing('gcc'))('rea: one way to give a target, and every command answers --schema', () => {
  it('should take the target as the first positional or as --target, with the same result', async () => {
    const binary = program();
    const positional = await rea(['procedure-info', binary, 'main', '--format', 'json']);
    const flag = await rea(['procedure-info', 'main', '--target', binary, '--format', 'json']);
    expect({ code: positional.code, stderr: positional.stderr }).toEqual({ code: 0, stderr: '' });
    expect(flag.code).toBe(0);
    const a = JSON.parse(positional.stdout) as { evidence_id: string; normalized_result: { name: string } };
    const b = JSON.parse(flag.stdout) as { evidence_id: string };
    expect(a.normalized_result.name).toBe('main');
    expect(b.evidence_id).toBe(a.evidence_id);
    const listed = await rea(['list-procedures', binary, '--provider', 'capstone', '--format', 'json']);
    expect(listed.code).toBe(0);
    const twice = await rea(['list-procedures', binary, '--target', binary]);
    expect(twice.code).toBe(2);
    const none = await rea(['list-procedures']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('rea list-procedures <path>');
  });

  it('should print the input schema of hand-written commands with --schema, as the root help promises', async () => {
    for (const name of ['analyze', 'catalog', 'completion', 'inspect-evidence-bundle', 'doctor', 'setup', 'mcp']) {
      const result = await rea([name, '--schema']);
      expect({ name, code: result.code, stderr: result.stderr }).toEqual({ name, code: 0, stderr: '' });
      const schema = JSON.parse(result.stdout) as { type: string; properties: Record<string, unknown> };
      expect(schema.type).toBe('object');
    }
    const analyze = JSON.parse((await rea(['analyze', '--schema'])).stdout) as {
      properties: Record<string, { type?: string; enum?: string[] }>;
      required: string[];
    };
    expect(analyze.required).toEqual(['path']);
    expect(analyze.properties['format']?.enum).toEqual(['human', 'json']);
    expect(analyze.properties['export']?.type).toBe('string');
  });

  it('should read an evidence bundle given as a path, with the summary filters as flags', async () => {
    await withTempDir(async (dir) => {
      const exported = await rea(['analyze', program(), '--export', 'evidence.json', '--quiet'], dir);
      expect(exported.code).toBe(0);
      const all = await rea(['inspect-evidence-bundle', 'evidence.json', '--format', 'json'], dir);
      expect(all.code).toBe(0);
      const records = (JSON.parse(all.stdout) as { records: Array<{ operation: string }> }).records;
      expect(records.map((r) => r.operation)).toEqual(['inspect_binary_layout', 'inspect_artifact', 'binary_overview']);
      const filtered = await rea(
        ['inspect-evidence-bundle', 'evidence.json', '--operation', 'inspect_artifact', '--format', 'json'],
        dir,
      );
      expect(filtered.code).toBe(0);
      const summary = JSON.parse(filtered.stdout) as { record_count: number; records: Array<{ operation: string }> };
      expect(summary.record_count).toBe(3);
      expect(summary.records.map((r) => r.operation)).toEqual(['inspect_artifact']);
      const contradictory = await rea(
        ['inspect-evidence-bundle', 'evidence.json', '--detail', 'complete', '--operation', 'x'],
        dir,
      );
      expect(contradictory.code).toBe(2);
      expect(contradictory.stderr).toContain('filters require detail "summary"');
      expect((await rea(['inspect-evidence-bundle', 'absent.json'], dir)).code).toBe(3);
    });
  });
});

describe('rea completion', () => {
  it('should complete commands, options, choices and paths in bash from the installed commands', async () => {
    await withTempDir(async (dir) => {
      const script = join(dir, 'rea.bash');
      const generated = await rea(['completion', 'bash']);
      expect(generated.code).toBe(0);
      writeFileSync(script, generated.stdout);
      writeFileSync(join(dir, 'program'), '');
      const manifest = JSON.parse((await rea(['--llms'])).stdout) as {
        commands: Array<{ command: string; flags: Array<{ flag: string }> }>;
        builtin_commands: Array<{ command: string }>;
      };
      const commands = bashCompletes(script, ['rea', ''], dir);
      for (const c of [...manifest.builtin_commands, ...manifest.commands]) expect(commands).toContain(c.command);
      expect(bashCompletes(script, ['rea', 'list-pro'], dir)).toEqual(['list-procedures']);
      const listing = manifest.commands.find((c) => c.command === 'list-procedures')!;
      const options = bashCompletes(script, ['rea', 'list-procedures', './program', '--'], dir);
      for (const flag of [...listing.flags.map((f) => f.flag), '--target', '--provider', '--format', '--help']) {
        expect(options).toContain(flag);
      }
      expect(bashCompletes(script, ['rea', 'analyze', '--format', ''], dir)).toEqual(['human', 'json']);
      expect(bashCompletes(script, ['rea', 'completion', ''], dir)).toEqual(['bash', 'zsh', 'fish']);
      expect(bashCompletes(script, ['rea', 'list-procedures', './pro'], dir)).toEqual(['./program']);
      expect(bashCompletes(script, ['rea', 'inspect-artifact', '--integrity-policy', ''], dir)).toEqual(
        expect.arrayContaining(['fail-closed', 'record-and-continue']),
      );
    });
  });

  it('should write zsh and fish scripts that parse and name every command and option', async () => {
    await withTempDir(async (dir) => {
      const manifest = JSON.parse((await rea(['--llms'])).stdout) as { commands: Array<{ command: string }> };
      for (const shell of ['zsh', 'fish']) {
        const generated = await rea(['completion', shell]);
        expect(generated.code).toBe(0);
        const script = join(dir, `rea.${shell}`);
        writeFileSync(script, generated.stdout);
        // The scripts keep to a syntax bash parses too, so their quoting is checked on every host;
        // the shell itself checks them where it is installed.
        const checks = [['bash', '-n', script]];
        if (findTool(shell) !== null) checks.push([shell, '-n', script]);
        for (const [command, ...args] of checks) {
          const result = spawnSync(command!, args, { encoding: 'utf8' });
          expect({ shell, command, status: result.status, stderr: result.stderr }).toEqual({
            shell,
            command,
            status: 0,
            stderr: '',
          });
        }
        for (const c of manifest.commands) expect(generated.stdout).toContain(`'${c.command}`);
      }
      // Fish completion is a list of `complete` calls: record them (in bash) and check what they say.
      const recorded = spawnSync(
        'bash',
        ['-c', 'complete() { printf "%s\\x1f" "$@"; printf "\\n"; }; source "$1"', 'fish-calls', join(dir, 'rea.fish')],
        { encoding: 'utf8' },
      );
      expect(recorded.status).toBe(0);
      const calls = recorded.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\x1f').slice(0, -1));
      expect(calls).toContainEqual([
        '-c',
        'rea',
        '-n',
        '__fish_seen_subcommand_from analyze',
        '-l',
        'format',
        '-x',
        '-a',
        'human json',
        '-d',
        'output format',
      ]);
      expect(calls).toContainEqual(expect.arrayContaining(['__fish_use_subcommand', '-a', 'list-procedures']));
    });
  });
});
