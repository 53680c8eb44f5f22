// `rea analyze` of an Android package or a DEX file runs inspect_android_package (after the inventory,
// for a ZIP-based package) and its report shows the package's key facts — checked against aapt and the
// DEX header, on the sample files of Debian's androguard package. Only the providers of those tools load.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEvidence } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { skipUnless, toolsMissing } from '@rea/test-helpers';
import { createCompositionTools, createDefaultProviders } from 'rea-mcp';
import { run } from '../../cli/test/run.js';
import { bin, evaluatedTools, runCovered } from './evaluatedTools.js';

const SAMPLES = '/usr/share/doc/androguard/examples/tests';
const APK = join(SAMPLES, 'a2dp.Vol_137.apk');
const DEX = join(SAMPLES, 'okhttp.d8.038.dex');

function unavailable(): string | null {
  const absent = [APK, DEX].filter((path) => !existsSync(path));
  if (absent.length > 0) return `the androguard samples are not installed: ${absent.join(', ')}`;
  return toolsMissing('aapt');
}

/** What aapt says of an APK's manifest: `dump badging` for its identity, `dump xmltree` for the permissions it requests. */
function aaptFacts(apk: string) {
  const badging = execFileSync('aapt', ['dump', 'badging', apk], { encoding: 'utf8' });
  const one = (re: RegExp): string => {
    const match = re.exec(badging);
    if (match === null) throw new Error(`aapt dump badging ${apk} has no ${re.source}`);
    return match[1]!;
  };
  // badging adds implied permissions; the XML tree has the ones the manifest requests.
  const tree = execFileSync('aapt', ['dump', 'xmltree', apk, 'AndroidManifest.xml'], { encoding: 'utf8' });
  return {
    package: one(/^package: name='([^']*)'/m),
    versionCode: one(/^package: .*versionCode='([^']*)'/m),
    versionName: one(/^package: .*versionName='([^']*)'/m),
    minSdk: one(/^sdkVersion:'([^']*)'/m),
    targetSdk: one(/^targetSdkVersion:'([^']*)'/m),
    permissions: [...tree.matchAll(/E: uses-permission(?:-sdk-23)? \(line=\d+\)/g)].length,
  };
}

interface Report {
  target: { kind: string; format: string };
  steps: { tool: string; evidence_id: string | null; note: string | null }[];
  records: unknown[];
  export: { path: string; record_count: number } | null;
}

interface AndroidResult {
  format: string;
  units: {
    name: string;
    manifest: { package: string | null; version_code: number | null; min_sdk: number | null } | null;
    dex: { classes: number }[];
  }[];
  signature_verification: { scheme: string; status: string }[] | null;
}

/** Runs `rea analyze <args> --format json`: the report, its inspect_android_package record and that record's result. */
async function analyze(
  args: readonly string[],
): Promise<{ report: Report; android: EvidenceRecord; result: AndroidResult }> {
  const result = await run(bin, ['analyze', ...args, '--format', 'json', '--quiet']);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(result.stdout) as Report;
  const android = report.records.map((r) => parseEvidence(r)).find((r) => r.operation === 'inspect_android_package');
  if (android === undefined) throw new Error(`no inspect_android_package record: ${JSON.stringify(report.steps)}`);
  return { report, android, result: android.normalized_result as unknown as AndroidResult };
}

skipUnless(unavailable())('rea analyze on Android packages and DEX files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-analyze-android-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should inventory an APK and inspect it as an Android package, as aapt reads its manifest', async () => {
    const expected = aaptFacts(APK);
    const bundle = join(dir, 'apk.evidence.json');
    const { report, android, result } = await analyze([APK, '--export', bundle]);
    expect(report.target).toMatchObject({ kind: 'apk', format: 'zip' });
    expect(report.steps.map((s) => [s.tool, s.evidence_id !== null, s.note])).toEqual([
      ['inspect_artifact', true, null],
      ['inspect_android_package', true, null],
    ]);
    expect(result.format).toBe('apk');
    expect(result.units[0]!.manifest?.package).toBe(expected.package);
    // The exported bundle holds the Android record too.
    const exported = JSON.parse(readFileSync(bundle, 'utf8')) as { records: { evidence_id: string }[] };
    expect(exported.records.map((r) => r.evidence_id)).toContain(android.evidence_id);
    expect(report.export?.record_count).toBe(2);

    // The readable report: the manifest's facts, not counts of nested fields.
    const human = await run(bin, ['analyze', APK, '--quiet']);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n')[0]).toBe(`${APK}: apk (zip)`);
    const facts = human.stdout.slice(human.stdout.indexOf('inspect_android_package  ev_'));
    expect(facts).toContain(`\n    package: ${expected.package}\n`);
    expect(facts).toContain(`\n    version: code ${expected.versionCode}, name ${expected.versionName}\n`);
    expect(facts).toContain(`\n    sdk: min ${expected.minSdk}, target ${expected.targetSdk}\n`);
    expect(facts).toContain(`\n    permissions: ${expected.permissions} requested, `);
    expect(facts).toMatch(
      /\n {4}components: \d+ activities, \d+ services?, \d+ receivers?, \d+ providers? \(\d+ exported\)\n/,
    );
    expect(facts).toMatch(/\n {4}dex: 1 file, [1-9]\d* classes, [1-9]\d* methods\n/);
    const schemes = (result.signature_verification ?? []).map((v) => `${v.scheme} ${v.status}`).join(', ');
    expect(schemes).toMatch(/^v1 /);
    expect(facts).toContain(`\n    signatures: ${schemes}\n`);
    expect(facts).not.toMatch(/\{\d+ fields\}/);
  }, 120_000);

  it('should name a DEX file dex and inspect it as an Android package', async () => {
    const { report, result } = await analyze([DEX]);
    expect(report.target).toMatchObject({ kind: 'dex', format: 'dex' });
    expect(report.steps.map((s) => [s.tool, s.note])).toEqual([['inspect_android_package', null]]);
    expect(result.format).toBe('dex');
    // class_defs_size, at 0x60 in the DEX header.
    const classes = readFileSync(DEX).readUInt32LE(0x60);
    expect(result.units[0]!.dex.map((d) => d.classes)).toEqual([classes]);
    const human = await run(bin, ['analyze', DEX, '--quiet']);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n')[0]).toBe(`${DEX}: dex (dex)`);
    expect(human.stdout).toContain(`\n    dex: 1 file, ${classes} classes, `);
  }, 120_000);

  it('should inspect a folder of split APKs as one set, and leave other folders to the application analysis', async () => {
    const expected = aaptFacts(APK);
    const split = join(dir, 'split');
    mkdirSync(join(split, 'lib'), { recursive: true });
    copyFileSync(APK, join(split, 'base.apk'));
    const { report, result } = await analyze([split]);
    expect(report.target).toMatchObject({ kind: 'apk-set', format: 'directory' });
    expect(report.steps.map((s) => s.tool)).toEqual(['inspect_artifact', 'inspect_android_package']);
    expect(result.format).toBe('apk-set');
    expect(result.units.map((u) => [u.name, u.manifest?.package])).toEqual([['base.apk', expected.package]]);

    writeFileSync(join(split, 'notes.txt'), 'not an APK\n');
    const mixed = await run(bin, ['analyze', split, '--format', 'json', '--quiet']);
    expect(mixed.code).toBe(0);
    const other = JSON.parse(mixed.stdout) as Report;
    expect(other.target.kind).toBe('directory');
    expect(other.steps.map((s) => s.tool)).toEqual(['inspect_artifact', 'analyze_javascript_application']);
  }, 120_000);
});

skipUnless(unavailable())('rea analyze of an APK loads only the providers of its tools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-analyze-android-defs-'));
  /** Each tool's title → its name, and each name → the provider contributing it ("native" for the composition's). */
  const titles = new Map<string, string>();
  const owner = new Map<string, string>();
  let evaluated: string[];
  beforeAll(async () => {
    for (const tool of await createCompositionTools()) {
      titles.set(tool.title, tool.name);
      owner.set(tool.name, 'native');
    }
    for (const provider of await createDefaultProviders()) {
      for (const tool of provider.tools()) {
        titles.set(tool.title, tool.name);
        owner.set(tool.name, provider.id);
      }
    }
    const coverage = join(dir, 'coverage');
    const result = await runCovered(['analyze', APK, '--format', 'json', '--quiet'], coverage);
    expect(result.code).toBe(0);
    evaluated = evaluatedTools(coverage, titles);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should evaluate the definitions of its two tools and no native tool or other provider', () => {
    expect(evaluated).toEqual(expect.arrayContaining(['inspect_android_package', 'inspect_artifact']));
    expect([...new Set(evaluated.map((name) => owner.get(name)))].sort()).toEqual(['android', 'artifact']);
  });
});
