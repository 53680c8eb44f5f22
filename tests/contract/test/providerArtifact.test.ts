import { afterAll, expect } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createArtifactProvider } from '@rea/artifact';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import type { ToolOutcome } from '@rea/provider-kit';
import { toolsMissing } from '@rea/test-helpers';

const work = mkdtempSync(join(tmpdir(), 'rea-contract-artifact-'));
// Removed when the file's tests end (a jest worker outlives the file, so process exit is too late).
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A ZIP made by zip(1) from two small files. */
function zipFixture(name: string, body: string): string {
  const dir = join(work, `${name}-src`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'a.txt'), body);
  writeFileSync(join(dir, 'b.txt'), 'unchanged');
  const file = join(work, `${name}.zip`);
  execFileSync('zip', ['-q', '-r', file, '.'], { cwd: dir });
  return file;
}

/** A one-file ASAR written by hand: size pickle, header pickle (JSON), data. */
function asarFixture(): string {
  const data = Buffer.from('console.log(1);\n');
  const sha = createHash('sha256').update(data).digest('hex');
  const integrity = { algorithm: 'SHA256', hash: sha, blockSize: 4 * 1024 * 1024, blocks: [sha] };
  const json = Buffer.from(JSON.stringify({ files: { 'main.js': { size: data.length, offset: '0', integrity } } }));
  const payload = 4 + json.length + ((4 - (json.length % 4)) % 4);
  const header = Buffer.alloc(4 + payload);
  header.writeUInt32LE(payload, 0);
  header.writeInt32LE(json.length, 4);
  json.copy(header, 8);
  const size = Buffer.alloc(8);
  size.writeUInt32LE(4, 0);
  size.writeUInt32LE(header.length, 4);
  const file = join(work, 'app.asar');
  writeFileSync(file, Buffer.concat([size, header, data]));
  return file;
}

function record(outcome: ToolOutcome) {
  if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
  return outcome.record;
}

async function inventory(c: CapabilityCheckContext, path: string) {
  return record(await c.runTool('inspect_artifact', { path }));
}

const macOS = process.platform === 'darwin';

/** An APK-shaped ZIP (a manifest and a dex entry) for the examples that name /tmp/app.apk. */
function apkFixture(): string {
  const dir = join(work, 'apk-src');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'AndroidManifest.xml'), 'manifest');
  writeFileSync(join(dir, 'classes.dex'), 'dex\n035\0');
  const file = join(work, 'app.apk');
  execFileSync('zip', ['-q', '-r', file, '.'], { cwd: dir });
  return file;
}

/** An application bundle directory for the example that names /Applications/Example.app. */
function appFixture(): string {
  const dir = join(work, 'Example.app', 'Contents');
  mkdirSync(join(dir, 'Resources'), { recursive: true });
  writeFileSync(join(dir, 'Info.plist'), '<plist version="1.0"><dict/></plist>');
  writeFileSync(join(dir, 'Resources', 'app.asar'), readFileSync(asarFixture()));
  return join(work, 'Example.app');
}

const examplePaths = new Map<string, () => string>([
  ['/tmp/app.apk', apkFixture],
  ['/Applications/Example.app', appFixture],
  ['/tmp/resources/app.asar', asarFixture],
  // The layout examples name a system executable and library: run as advertised where they exist,
  // else on the running node binary (a real executable everywhere, only larger).
  ['/usr/bin/ls', () => (existsSync('/usr/bin/ls') ? '/usr/bin/ls' : process.execPath)],
  [
    '/usr/lib/x86_64-linux-gnu/libc.so.6',
    () =>
      existsSync('/usr/lib/x86_64-linux-gnu/libc.so.6') ? '/usr/lib/x86_64-linux-gnu/libc.so.6' : process.execPath,
  ],
]);

/** The advertised examples, run on real fixtures: each path and retained reference is replaced by one. */
async function exampleInput(tool: string, input: unknown, c: CapabilityCheckContext): Promise<unknown> {
  const example = input as Record<string, unknown>;
  if (tool === 'compare_artifacts') {
    const left = await inventory(c, zipFixture('example-left', 'alpha'));
    const right = await inventory(c, zipFixture('example-right', 'beta'));
    return {
      ...example,
      left: { kind: 'retained-evidence', evidence_id: left.evidence_id },
      right: { kind: 'retained-evidence', evidence_id: right.evidence_id },
    };
  }
  const fixture = examplePaths.get(String(example['path']));
  if (!fixture) throw new Error(`no fixture for the ${tool} example path ${String(example['path'])}`);
  return { ...example, path: fixture() };
}

/** A real image made by hdiutil (macOS only). */
async function dmgProbe(c: CapabilityCheckContext): Promise<void> {
  const dir = join(work, 'dmg-src');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'inside.txt'), 'inside');
  const image = join(work, 'real.dmg');
  execFileSync('hdiutil', ['create', '-quiet', '-srcfolder', dir, '-format', 'UDZO', image]);
  const evidence = await inventory(c, image);
  expect(evidence.normalized_result).toMatchObject({ format: 'dmg' });
}

/** A file with a UDIF trailer: recognised as DMG, refused where hdiutil is absent. */
function dmgRefusal(c: CapabilityCheckContext): Promise<unknown> {
  const trailer = Buffer.alloc(512);
  trailer.write('koly', 0, 'latin1');
  trailer.writeUInt32BE(4, 4); // version
  trailer.writeUInt32BE(512, 8); // the trailer's length
  const image = join(work, 'image.dmg');
  writeFileSync(image, Buffer.concat([Buffer.alloc(4096), trailer]));
  return c.runTool('inspect_artifact', { path: image });
}

describeProviderContract('artifact (containers)', () => createArtifactProvider(), {
  skipReason: toolsMissing('zip'),
  exampleInput,
  afterExample: (_tool, outcome) => {
    const local = outcome.kind === 'evidence' ? (outcome.record.local as { output_directory?: string }) : undefined;
    if (local?.output_directory) rmSync(local.output_directory, { recursive: true, force: true });
  },
  capabilityProbes: {
    'artifact-inventory': async (c) => {
      const evidence = await inventory(c, zipFixture('inv', 'alpha'));
      expect(evidence.normalized_result).toMatchObject({ format: 'zip', file_count: 2 });
    },
    'artifact-extraction': async (c) => {
      const evidence = record(await c.runTool('extract_artifact', { path: zipFixture('ext', 'alpha') }));
      const dir = (evidence.local as { output_directory: string }).output_directory;
      expect(statSync(join(dir, 'a.txt')).size).toBe(5);
      rmSync(dir, { recursive: true, force: true });
    },
    'artifact-comparison': async (c) => {
      const left = await inventory(c, zipFixture('left', 'alpha'));
      const right = await inventory(c, zipFixture('right', 'beta'));
      const evidence = record(await c.runTool('compare_artifacts', { left, right }));
      expect(evidence.normalized_result).toMatchObject({
        changed: [{ path: 'a.txt' }],
        unchanged: [{ path: 'b.txt' }],
      });
    },
    asar: async (c) => {
      const evidence = await inventory(c, asarFixture());
      expect(evidence.normalized_result).toMatchObject({
        format: 'asar',
        entries: [{ path: 'main.js', integrity: 'verified' }],
      });
    },
    zip: async (c) => {
      const evidence = await inventory(c, zipFixture('zip', 'alpha'));
      expect(evidence.subject).toMatchObject({ format: 'zip' });
    },
    ...(macOS ? { dmg: dmgProbe } : {}),
  },
  // DMG is a capability on macOS only, where hdiutil can attach images.
  undeclared: macOS ? {} : { dmg: dmgRefusal },
});
