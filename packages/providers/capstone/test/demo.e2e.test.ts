import { expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipUnless } from '@rea/test-helpers';

// The repository's demo (`npm run demo` after setup): tools/demo.mjs with the built `rea` executable.
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const demo = join(repo, 'tools', 'demo.mjs');
const bundle = join(repo, '.tmp', 'demo', 'hello.evidence.json');

function has(command: string): boolean {
  return !spawnSync(command, ['--version'], { encoding: 'utf8' }).error;
}

function runDemo(env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [demo], { cwd: repo, encoding: 'utf8', env, timeout: 120_000 });
  expect(result.stderr).not.toMatch(/internal/);
  expect(result.status).toBe(0);
  return result.stdout;
}

interface Overview {
  operation: string;
  provider: { id: string };
  normalized_result: {
    procedure_count: number;
    document: { entry: string | null };
    first_procedures: Array<{ address: string; name: string; kind: string }>;
  };
}

function overviewOf(path: string): Overview {
  const records = JSON.parse(readFileSync(path, 'utf8')).records as Overview[];
  const found = records.find((r) => r.operation === 'binary_overview');
  if (!found) throw new Error('no binary_overview record in the bundle');
  return found;
}

const compiler = ['cc', 'gcc', 'clang'].find(has);
const ready = existsSync(join(repo, 'packages', 'rea', 'dist', 'bin.cjs'));

skipUnless(compiler && ready && has('nm') ? null : 'needs a C compiler, nm and a built packages/rea')(
  'npm run demo',
  () => {
    it('compiles the native example and prints a Capstone overview naming its functions at their nm addresses', () => {
      const out = runDemo();
      expect(out).toMatch(/^> (cc|gcc|clang) -O1 -o \.tmp\/demo\/hello examples\/native\/hello\.c$/m);
      expect(out).toContain('binary_overview  ev_');
      expect(out).toContain('provider:    Capstone');
      const program = join(repo, '.tmp', 'demo', 'hello');
      // Ground truth: the toolchain's own symbol table of the program the demo built.
      const symbols = new Map<string, string>();
      for (const line of execFileSync('nm', ['--defined-only', program], { encoding: 'utf8' }).split('\n')) {
        const [value, type, name] = line.trim().split(/\s+/);
        if (name && value && /^[tT]$/.test(type ?? '')) symbols.set(name, `0x${BigInt(`0x${value}`).toString(16)}`);
      }
      const overview = overviewOf(bundle);
      expect(overview.provider.id).toBe('capstone');
      const listed = new Map(overview.normalized_result.first_procedures.map((p) => [p.name, p.address]));
      for (const name of ['checksum', 'greet', 'greet_all', 'main']) {
        const address = symbols.get(name);
        expect(address).toBeDefined();
        expect(listed.get(name)).toBe(address);
        // The printed procedure table carries the same address and name.
        expect(out).toMatch(new RegExp(`^  ${address}\\s+${name}\\s+function `, 'm'));
      }
      expect(out).toMatch(
        new RegExp(
          `Procedures in the binary_overview record \\(\\d+ of ${overview.normalized_result.procedure_count}, by address\\)`,
        ),
      );
    });
  },
);

const fallback = ['/usr/bin/true', '/bin/true', '/bin/ls'].find((p) => existsSync(p));
skipUnless(ready && fallback && has('readelf') ? null : 'needs a built packages/rea, readelf and /usr/bin/true')(
  'npm run demo without a C compiler',
  () => {
    it('analyses a system program instead, with the entry point readelf reports', () => {
      // No PATH: no compiler can be found (node itself is started by its absolute path).
      const out = runDemo({ ...process.env, PATH: '' });
      expect(out).toContain(`No C compiler found (cc, gcc, clang): analysing the system program ${fallback} instead.`);
      const header = execFileSync('readelf', ['-h', fallback!], { encoding: 'utf8' });
      const entry = /Entry point address:\s+(0x[0-9a-f]+)/.exec(header)?.[1];
      expect(entry).toBeDefined();
      const overview = overviewOf(bundle);
      expect(overview.normalized_result.document.entry).toBe(`0x${BigInt(entry!).toString(16)}`);
      expect(overview.normalized_result.procedure_count).toBeGreaterThan(0);
    });
  },
);
