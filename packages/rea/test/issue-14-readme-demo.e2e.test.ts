import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { skipUnless, withTempDir } from '@rea/test-helpers';

// The README shows what `npm run demo` prints. Nothing in it may go stale: evidence ids and REA's own
// versions are masked, and a real run of the demo (in a copy of the clone's layout) must have the same
// shape; with the compiler the README names, the same text.
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const built = existsSync(join(repo, 'packages', 'rea', 'dist', 'bin.cjs'));

interface TranscriptTool {
  maskTranscript(text: string, root: string): string;
  readmeTranscript(text?: string): string;
}

const tool = async (): Promise<TranscriptTool> =>
  (await import(pathToFileURL(join(repo, 'tools', 'demoTranscript.mjs')).href)) as TranscriptTool;

/**
 * A line's shape: what the demo's code decides (labels, operations, field names, fixed words), not
 * what the compiled program decides (sizes, addresses, hashes, counts, names, limitation wording).
 */
function shape(line: string): string {
  if (/^> (cc|gcc|clang) /.test(line)) return '> <compiler> -O1 -o .tmp/demo/hello examples/native/hello.c';
  if (/^ {2}0x[0-9a-f]+ +\S+ +\S+ +\S+ +\d+ bytes$/.test(line)) return '<procedure row>';
  if (/^ {4}- [a-z-]+: /.test(line)) return '<limitation>';
  const field = /^( {2,4})([a-z_]+):/.exec(line);
  if (field) {
    // Only the label: its value describes the compiled program.
    return `${field[1]}${field[2]}:`;
  }
  return line.replace(/\d+/g, 'N');
}

/** Shapes of a transcript, runs of procedure rows and of limitations each collapsed to one. */
function shapes(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const s = shape(line);
    if ((s === '<procedure row>' || s === '<limitation>') && out.at(-1) === s) continue;
    out.push(s);
  }
  return out;
}

/** The first line of `cc --version`, or null. */
function compiler(): string | null {
  const run = spawnSync('cc', ['--version'], { encoding: 'utf8' });
  return run.status === 0 ? (run.stdout.split('\n')[0] ?? null) : null;
}

describe('issue 14: the README demo transcript', () => {
  it('should show no evidence id, REA version or clone path that a change elsewhere would make stale', async () => {
    const transcript = (await tool()).readmeTranscript();
    expect(transcript).not.toMatch(/ev_[0-9a-f]{6,}/);
    expect(transcript).not.toMatch(/@rea\/[a-z-]+ \d/);
    expect(transcript).toContain('ev_…');
    expect(transcript).not.toContain(repo);
    // It runs the command as a clone has it (there is no `rea` on PATH in a clone).
    expect(transcript).toContain('\n> node packages/rea/dist/bin.cjs analyze .tmp/demo/hello --export');
  });

  skipUnless(built && compiler() !== null ? null : 'needs a built packages/rea and a C compiler (cc)')(
    'against a real run',
    () => {
      it('should have the shape of a real `npm run demo`, and its text with the documented compiler', async () => {
        const { maskTranscript, readmeTranscript } = await tool();
        const readme = readFileSync(join(repo, 'README.md'), 'utf8');
        const transcript = readmeTranscript(readme);
        await withTempDir(async (clone) => {
          // The clone's layout: its tools and example, and the built packages.
          mkdirSync(join(clone, 'tools'));
          for (const file of ['demo.mjs', 'workspace.mjs'])
            cpSync(join(repo, 'tools', file), join(clone, 'tools', file));
          cpSync(join(repo, 'examples', 'native'), join(clone, 'examples', 'native'), { recursive: true });
          cpSync(join(repo, 'pnpm-workspace.yaml'), join(clone, 'pnpm-workspace.yaml'));
          symlinkSync(join(repo, 'packages'), join(clone, 'packages'), 'dir');
          const run = spawnSync(process.execPath, [join(clone, 'tools', 'demo.mjs')], {
            cwd: clone,
            encoding: 'utf8',
            env: { ...process.env, PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` },
          });
          expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
          const actual = maskTranscript(run.stdout, clone);
          expect(shapes(transcript)).toEqual(shapes(actual));
          const documented = /here with `([^`]+)` on x86-64\s+Linux/.exec(readme)?.[1];
          expect(documented).toBeDefined();
          if (compiler() === documented && process.arch === 'x64') expect(transcript).toBe(actual);
        });
      });
    },
  );
});
