// `rea setup --hopper` installs Hopper from a local package: it prints the plan, changes nothing
// without confirmation, unpacks into a staging directory beside the target and leaves either a
// complete install or nothing. The packages are stand-in Hopper packages (not Hopper) made here from
// the stand-in bundle of @rea/test-helpers; the built `rea` is run as a real process.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStandinHopper } from '@rea/test-helpers';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const bin = join(repo, 'packages', 'rea', 'dist', 'bin.cjs');
const LAUNCHER = join('hopper', 'Contents', 'MacOS', 'hopper');

let root: string;
let packages: { zip: string; deb: string; tarxz: string; empty: string; big: string };

function tool(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
}

function rea(home: string, args: string[], input = '') {
  const result = spawnSync(process.execPath, [bin, 'setup', ...args], {
    encoding: 'utf8',
    input,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: '', CODEX_HOME: '' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh empty home for one case. */
function home(): string {
  return mkdtempSync(join(root, 'home-'));
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'rea-hopper-setup-'));
  const bundle = join(root, 'bundle');
  createStandinHopper(bundle, { mode: 'normal' });
  const zip = join(root, 'stand-in-hopper.zip');
  tool('zip', ['-qr', zip, 'hopper'], bundle);
  const tarxz = join(root, 'stand-in-hopper.tar.xz');
  tool('tar', ['-cJf', tarxz, 'hopper'], bundle);
  const deb = join(root, 'debsrc');
  mkdirSync(join(deb, 'DEBIAN'), { recursive: true });
  writeFileSync(
    join(deb, 'DEBIAN', 'control'),
    'Package: standin-hopper\nVersion: 5.19.3\nArchitecture: all\nMaintainer: REA tests <tests@invalid>\nDescription: stand-in Hopper package for tests\n',
  );
  mkdirSync(join(deb, 'opt', 'standin-hopper'), { recursive: true });
  tool('cp', ['-a', join(bundle, 'hopper'), join(deb, 'opt', 'standin-hopper')], root);
  tool('dpkg-deb', ['--build', '--root-owner-group', deb, join(root, 'stand-in-hopper.deb')], root);
  writeFileSync(join(root, 'notes.txt'), 'readme\n');
  tool('zip', ['-q', join(root, 'no-launcher.zip'), 'notes.txt'], root);
  // Large enough that unpacking is still running when the test interrupts it.
  const bigDir = join(root, 'bigsrc');
  tool('cp', ['-a', bundle, bigDir], root);
  tool('dd', ['if=/dev/zero', `of=${join(bigDir, 'hopper', 'filler.bin')}`, 'bs=1M', 'count=600', 'status=none'], root);
  tool('tar', ['-cf', join(root, 'big.tar'), 'hopper'], bigDir);
  tool('xz', ['-0', '-T1', join(root, 'big.tar')], root);
  rmSync(bigDir, { recursive: true, force: true });
  packages = {
    zip,
    deb: join(root, 'stand-in-hopper.deb'),
    tarxz,
    empty: join(root, 'no-launcher.zip'),
    big: join(root, 'big.tar.xz'),
  };
}, 300_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('issue 21: rea setup --hopper', () => {
  it('should print the plan and change nothing when the answer is No, then install when it is yes', () => {
    const h = home();
    const target = join(h, 'tools', 'hopper');
    const declined = rea(h, ['--hopper', packages.zip, '--hopper-dir', target], 'n\n');
    expect(declined.status).toBe(0);
    expect(declined.stdout).toContain(`package:    ${packages.zip} (zip, local; nothing is downloaded)`);
    expect(declined.stdout).toContain(`install to: ${target}`);
    expect(declined.stdout).toContain(`creates:    ${join(h, 'tools')}`);
    expect(declined.stdout).toContain('Not installed');
    expect(readdirSync(h)).toEqual([]);

    const applied = rea(h, ['--hopper', packages.zip, '--hopper-dir', target], 'y\n');
    expect(applied.status).toBe(0);
    const launcher = join(target, LAUNCHER);
    expect(applied.stdout).toContain(`HOPPER_LAUNCHER_PATH=${launcher}`);
    expect(statSync(launcher).mode & 0o111).not.toBe(0);
    // Nothing outside the target: the home holds only the target's new parent, which holds only the target.
    expect(readdirSync(h)).toEqual(['tools']);
    expect(readdirSync(join(h, 'tools'))).toEqual(['hopper']);
    // The installed launcher is what the Hopper provider finds.
    const doctor = spawnSync(process.execPath, [bin, 'doctor', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, HOME: h, HOPPER_LAUNCHER_PATH: launcher },
    });
    const report = JSON.parse(doctor.stdout) as { providers: Array<{ id: string; ready: boolean }> };
    expect(report.providers.find((p) => p.id === 'hopper')).toMatchObject({ ready: true });
  }, 120_000);

  it.each([
    ['deb', join('opt', 'standin-hopper', LAUNCHER)],
    ['tarxz', LAUNCHER],
  ] as const)(
    'should install a %s package into the default per-user directory with --yes',
    (kind, launcher) => {
      const h = home();
      const result = rea(h, ['--hopper', packages[kind], '--yes']);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const target = join(h, '.local', 'opt', 'hopper');
      expect(result.stdout).toContain(`HOPPER_LAUNCHER_PATH=${join(target, launcher)}`);
      expect(statSync(join(target, launcher)).mode & 0o111).not.toBe(0);
      expect(readdirSync(join(h, '.local', 'opt'))).toEqual(['hopper']);
    },
    120_000,
  );

  it.each([
    ['a missing package', () => join(root, 'absent.zip'), (_h: string) => undefined, 3, 'not_found'],
    ['a package of an unsupported format', () => join(root, 'notes.txt'), () => undefined, 10, 'unsupported_target'],
    ['a .dmg off macOS', () => writeDmg(), () => undefined, 5, 'capability_unavailable'],
    ['a package without a Hopper launcher', () => packages.empty, () => undefined, 10, 'unsupported_target'],
    ['a target that is not empty', () => packages.zip, (h: string) => occupied(h), 2, 'invalid_request'],
    ['a target below a file', () => packages.zip, (h: string) => belowFile(h), 14, 'access_denied'],
  ])(
    'should refuse %s with a typed error and change nothing',
    (_name, pkg, dir, status, code) => {
      const h = home();
      const target = dir(h);
      const before = snapshot(h);
      const result = rea(h, ['--hopper', pkg(), ...(target ? ['--hopper-dir', target] : []), '--yes']);
      expect(result.status).toBe(status);
      expect(result.stderr).toContain(code);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(snapshot(h)).toEqual(before);
    },
    120_000,
  );

  it('should install into an existing empty directory', () => {
    const h = home();
    const target = join(h, 'hopper');
    mkdirSync(target);
    const result = rea(h, ['--hopper', packages.tarxz, '--hopper-dir', target, '--yes']);
    expect(result.status).toBe(0);
    expect(statSync(join(target, LAUNCHER)).mode & 0o111).not.toBe(0);
    expect(readdirSync(h)).toEqual(['hopper']);
  });

  it('should report the plan as JSON with --dry-run and change nothing', () => {
    const h = home();
    const result = rea(h, ['--hopper', packages.deb, '--dry-run', '--json']);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      hopper: {
        package: packages.deb,
        format: 'deb',
        extractor: 'dpkg-deb -x',
        target: join(h, '.local', 'opt', 'hopper'),
        creates: [join(h, '.local'), join(h, '.local', 'opt')],
      },
      dry_run: true,
      applied: false,
      launcher: null,
      note: 'Dry run: nothing was written.',
    });
    expect(readdirSync(h)).toEqual([]);
  });

  it('should print the download page for a download and fetch nothing', () => {
    const h = home();
    const result = rea(h, ['--hopper', 'https://example.invalid/Hopper.deb']);
    expect(result.status).toBe(5);
    expect(result.stdout).toContain('https://www.hopperapp.com/download.html');
    expect(result.stderr).toContain('capability_unavailable');
    expect(readdirSync(h)).toEqual([]);
  });

  it('should leave no partial install when interrupted while unpacking', async () => {
    const h = home();
    const child = spawn(process.execPath, [bin, 'setup', '--hopper', packages.big, '--yes'], {
      env: { ...process.env, HOME: h },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const opt = join(h, '.local', 'opt');
    // Interrupt once unpacking has written into the staging directory.
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        const staging = existsSync(opt)
          ? readdirSync(opt).find((n) => n.startsWith('.rea-hopper-staging-'))
          : undefined;
        if (staging && existsSync(join(opt, staging, 'root', 'hopper', 'filler.bin'))) {
          clearInterval(poll);
          child.kill('SIGINT');
          resolve();
        }
      }, 20);
    });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(130);
    expect(stderr).toContain('cancelled');
    expect(readdirSync(h)).toEqual([]);
  }, 300_000);
});

function writeDmg(): string {
  const path = join(root, 'Hopper-5.19.3.dmg');
  writeFileSync(path, 'stand-in disk image\n');
  return path;
}

function occupied(h: string): string {
  mkdirSync(join(h, 'hopper'));
  writeFileSync(join(h, 'hopper', 'keep.txt'), 'mine\n');
  return join(h, 'hopper');
}

function belowFile(h: string): string {
  writeFileSync(join(h, 'file'), 'not a directory\n');
  return join(h, 'file', 'hopper');
}

/** Every path under `dir` (recursively), sorted. */
function snapshot(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}
