// The class, method, reference and graph tools on the androguard samples, and package sets made at
// test time, checked against dexdump and aapt run at test time.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  inspectAndroidClassTool,
  inspectAndroidPackageTool,
  projectAndroidApplicationGraphTool,
  searchAndroidClassesTool,
  traceAndroidReferencesTool,
} from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const MULTIDEX = `${SAMPLES}/android/abcore/app-prod-debug.apk`;
const APK = `${SAMPLES}/android/TestsAndroguard/bin/TestActivity.apk`;
const OKHTTP = `${SAMPLES}/tests/okhttp.d8.038.dex`;
const NATIVE = `${SAMPLES}/tests/dc4b1bb9d58daa82f29e60f79d5662f731a3351f.37.dex`;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-tools-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const descriptors = (text: string) => [...text.matchAll(/^ {2}Class descriptor {2}: '(.*)'$/gm)].map((m) => m[1]!);

describe('search_android_classes', () => {
  it('lists every class of every DEX file of a multidex APK, as dexdump does, across pages', async () => {
    const names = output('unzip', ['-Z1', MULTIDEX])
      .split('\n')
      .filter((n) => /^classes\d*\.dex$/.test(n));
    expect(names.length).toBeGreaterThan(1);
    const expected = new Set<string>();
    for (const name of names) {
      const file = join(dir, name);
      writeFileSync(file, execFileSync('unzip', ['-p', MULTIDEX, name], { maxBuffer: 1 << 30 }));
      for (const d of descriptors(output('dexdump', [file]))) expected.add(d);
    }
    const seen: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: {
        normalized_result: { total: number; classes: { descriptor: string }[] };
        coverage: { next_offset?: number | null | undefined };
      } = await runTool(searchAndroidClassesTool, { path: MULTIDEX, offset, limit: 2000 });
      expect(page.normalized_result.total).toBe(expected.size);
      seen.push(...page.normalized_result.classes.map((c) => c.descriptor));
      offset = page.coverage.next_offset ?? null;
    }
    expect(seen).toEqual([...expected].sort());
  });
});

describe('inspect_android_class', () => {
  it('reads superclass, interfaces and fields as dexdump does', async () => {
    const dex = join(dir, 'TestActivity.dex');
    writeFileSync(dex, execFileSync('unzip', ['-p', APK, 'classes.dex']));
    const text = output('dexdump', [dex]);
    const all = text.split(/^Class #\d+ +-$/m);
    const block = all.find((b) => b.includes("Class descriptor  : 'Ltests/androguard/TestActivity;'"))!;
    const superclass = /Superclass {8}: '(.*)'/.exec(block)![1];
    const fieldsPart = block.slice(block.indexOf('Static fields'), block.indexOf('Direct methods'));
    const fields = [...fieldsPart.matchAll(/name {10}: '(.*)'/g)].map((m) => m[1]);
    const { normalized_result } = await runTool<{
      superclass: string;
      fields: { name: string }[];
      total_methods: number;
    }>(inspectAndroidClassTool, { path: APK, class: 'tests.androguard.TestActivity' });
    expect(normalized_result.superclass).toBe(superclass);
    expect(normalized_result.fields.map((f) => f.name)).toEqual(fields);
    const methodsPart = block.slice(block.indexOf('Direct methods'));
    expect(normalized_result.total_methods).toBe([...methodsPart.matchAll(/^ {6}name {10}: /gm)].length);
  });
});

describe('trace_android_references', () => {
  it('finds every call of a method and every load of a string that dexdump -d shows', async () => {
    const text = output('dexdump', ['-d', OKHTTP]);
    const calls = [...text.matchAll(/\|[0-9a-f]{4}: invoke-\S+ \{[^}]*\}, Ljava\/lang\/String;\.length:\(\)I \/\//g)]
      .length;
    const loads = [...text.matchAll(/\|[0-9a-f]{4}: const-string(?:\/jumbo)? v\d+, "Content-Type" \/\//g)].length;
    expect(calls).toBeGreaterThan(0);
    const method = await runTool<{ total: number }>(traceAndroidReferencesTool, {
      path: OKHTTP,
      target: { kind: 'method', class: 'java.lang.String', name: 'length', descriptor: '()I' },
    });
    expect(method.normalized_result.total).toBe(calls);
    const string = await runTool<{ total: number }>(traceAndroidReferencesTool, {
      path: OKHTTP,
      target: { kind: 'string', value: 'Content-Type' },
    });
    expect(string.normalized_result.total).toBe(loads);
  });
});

describe('project_android_application_graph', () => {
  it('links each class to the native libraries it loads, as dexdump -d shows the calls', async () => {
    // Only the method headers, string loads and library loads of the (large) listing.
    const text = output('sh', ['-c', 'dexdump -d "$1" | grep -E "\\|\\[|const-string|loadLibrary"', 'sh', NATIVE]);
    const expected = new Set<string>();
    let owner = '';
    let last = '';
    for (const line of text.split('\n')) {
      const header = /\|\[[0-9a-f]+\] (.+)\.[^.:]+:\(/.exec(line);
      if (header) owner = `L${header[1]!.replace(/\./g, '/')};`;
      const s = /const-string(?:\/jumbo)? v\d+, "(.*)" \/\//.exec(line);
      if (s) last = s[1]!;
      if (/Ljava\/lang\/System;\.loadLibrary:/.test(line)) expected.add(`${owner} lib${last}.so`);
    }
    const { normalized_result } = await runTool<{ edges: { from: string; to: string; kind: string }[] }>(
      projectAndroidApplicationGraphTool,
      { path: NATIVE, limit: 2000 },
    );
    const edges = normalized_result.edges
      .filter((e) => e.kind === 'loads_library')
      .map((e) => `${e.from.slice('class:'.length)} ${e.to.slice('native:'.length)}`);
    expect(new Set(edges)).toEqual(expected);
  });

  it('links manifest components to their classes and lists packaged libraries per ABI', async () => {
    const work = join(dir, 'native-app');
    mkdirSync(join(work, 'lib', 'arm64-v8a'), { recursive: true });
    mkdirSync(join(work, 'lib', 'x86_64'), { recursive: true });
    execFileSync('unzip', ['-q', APK, '-d', work]);
    writeFileSync(join(work, 'lib', 'arm64-v8a', 'libdemo.so'), Buffer.from('\x7fELF'));
    writeFileSync(join(work, 'lib', 'x86_64', 'libdemo.so'), Buffer.from('\x7fELF'));
    const apk = join(dir, 'rea-native.apk');
    execFileSync('zip', ['-q', '-r', apk, '.'], { cwd: work });
    const tree = output('aapt', ['dump', 'xmltree', APK, 'AndroidManifest.xml']);
    const activities = [
      ...tree.matchAll(/E: activity \(line=\d+\)\n(?:\s+A: .*\n)*?\s+A: android:name\(0x01010003\)="([^"]*)"/g),
    ].map((m) => m[1]!);
    expect(activities.length).toBeGreaterThan(0);
    const { normalized_result } = await runTool<{
      edges: { from: string; to: string; kind: string; evidence: string }[];
    }>(projectAndroidApplicationGraphTool, { path: apk });
    const implemented = normalized_result.edges.filter((e) => e.kind === 'implemented_by');
    for (const name of activities) {
      const full = name.startsWith('.')
        ? `tests.androguard${name}`
        : name.includes('.')
          ? name
          : `tests.androguard.${name}`;
      expect(implemented).toContainEqual(
        expect.objectContaining({ from: `component:${full}`, to: `class:L${full.replace(/\./g, '/')};` }),
      );
    }
    expect(normalized_result.edges).toContainEqual(
      expect.objectContaining({
        kind: 'packaged',
        to: 'native:libdemo.so',
        evidence: 'lib/{arm64-v8a,x86_64}/libdemo.so',
      }),
    );
  });
});

describe('package sets', () => {
  it('reads an XAPK-style set as one unit per APK, each manifest as aapt reads it', async () => {
    const work = join(dir, 'set');
    mkdirSync(work, { recursive: true });
    execFileSync('cp', [APK, join(work, 'base.apk')]);
    execFileSync('cp', [`${SAMPLES}/tests/com.politedroid_4.apk`, join(work, 'config.apk')]);
    writeFileSync(join(work, 'manifest.json'), '{}');
    const xapk = join(dir, 'rea-set.xapk');
    execFileSync('zip', ['-q', '-r', xapk, '.'], { cwd: work });
    const { normalized_result } = await runTool<{
      format: string;
      units: { name: string; manifest: { package: string } }[];
    }>(inspectAndroidPackageTool, { path: xapk });
    expect(normalized_result.format).toBe('apk-set');
    const expected = (apk: string) => /^package: name='([^']*)'/m.exec(output('aapt', ['dump', 'badging', apk]))![1];
    expect(normalized_result.units.map((u) => [u.name, u.manifest.package])).toEqual([
      ['base.apk', expected(APK)],
      ['config.apk', expected(`${SAMPLES}/tests/com.politedroid_4.apk`)],
    ]);
  });

  it('reads an app bundle by module, its DEX files and its (here empty) protobuf manifest', async () => {
    const work = join(dir, 'bundle');
    mkdirSync(join(work, 'base', 'manifest'), { recursive: true });
    mkdirSync(join(work, 'base', 'dex'), { recursive: true });
    writeFileSync(join(work, 'base', 'manifest', 'AndroidManifest.xml'), Buffer.from([0x0a, 0x00]));
    execFileSync('cp', [OKHTTP, join(work, 'base', 'dex', 'classes.dex')]);
    const aab = join(dir, 'rea-bundle.aab');
    execFileSync('zip', ['-q', '-r', aab, '.'], { cwd: work });
    const result = await runTool<{
      format: string;
      units: { name: string; manifest: { package: string | null } | null; dex: { classes: number }[] }[];
    }>(inspectAndroidPackageTool, { path: aab });
    expect(result.normalized_result.format).toBe('aab');
    expect(result.normalized_result.units[0]!.name).toBe('base');
    expect(result.normalized_result.units[0]!.dex[0]!.classes).toBe(descriptors(output('dexdump', [OKHTTP])).length);
    // An empty root element: decoded, naming no package.
    expect(result.normalized_result.units[0]!.manifest?.package).toBeNull();
    expect(result.limitations.map((l) => l.kind)).not.toContain('manifest-unreadable');
  });
});
