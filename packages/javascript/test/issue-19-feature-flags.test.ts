// Feature flags: the checks of flag SDKs with the key they name, and environment variables read as
// flags, in an application's sources and in the same sources bundled and minified by the real esbuild.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { selectAnalysisView } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import {
  analyzeJavascriptApplication,
  compareVersions,
  findModules,
  moduleSemantics,
  traceFeature,
} from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';

const APP = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'flags-app');
let tmp: string;
let sources: JavascriptApplication;
let bundled: JavascriptApplication;
let nextVersion: JavascriptApplication;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rea-js-flags-'));
  sources = (await analyzeJavascriptApplication(APP)).result;
  const root = join(tmp, 'app');
  cpSync(APP, root, { recursive: true });
  await build({
    entryPoints: [join(root, 'src', 'main.js')],
    bundle: true,
    minify: true,
    sourcemap: true,
    platform: 'node',
    format: 'cjs',
    external: ['launchdarkly-node-server-sdk', '@growthbook/growthbook'],
    outfile: join(tmp, 'dist', 'server.js'),
    absWorkingDir: root,
    logLevel: 'silent',
  });
  bundled = (await analyzeJavascriptApplication(join(tmp, 'dist'))).result;
  // The next version: one-click-buy no longer checked, button-color checked twice, express-pay new.
  const next = join(tmp, 'next');
  cpSync(APP, next, { recursive: true });
  const checkout = join(next, 'src', 'checkout.js');
  const text = readFileSync(checkout, 'utf8')
    .replace("gb.isOn('one-click-buy')", "gb.isOn('express-pay')")
    .replace('return { cart, color };', "return { cart, color, accent: gb.getFeatureValue('button-color', 'red') };");
  writeFileSync(checkout, text);
  nextVersion = (await analyzeJavascriptApplication(next)).result;
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const sites = (result: JavascriptApplication) =>
  result.feature_flags.map((f) => `${f.node_id} ${f.provider} ${f.api} ${f.key}`).sort();

describe('feature flags', () => {
  it('should list each SDK check with its key and provider, and the env variables read as flags', () => {
    expect(sites(sources)).toEqual(
      [
        'file:src/checkout.js growthbook gb.getFeatureValue button-color',
        'file:src/checkout.js growthbook gb.isOn one-click-buy',
        'file:src/main.js env process.env FEATURE_FAST_SHIPPING',
        'file:src/main.js launchdarkly ldClient.variation new-checkout-flow',
        'file:src/sidebar.mjs env import.meta.env VITE_ENABLE_BETA_SIDEBAR',
        'file:src/sidebar.mjs unleash unleash.getVariant sidebar-theme',
        'file:src/sidebar.mjs unleash unleash.isEnabled wide-sidebar',
      ].sort(),
    );
    // Generic names (isEnabled, getValue) on ordinary objects in a file without a flag SDK are not flags,
    // nor are environment variables that do not name a flag (LD_SDK_KEY, DEBUG, HOME, MODE).
    expect(sources.feature_flags.filter((f) => f.node_id === 'file:src/plain.js')).toEqual([]);
    const main = sources.feature_flags.find((f) => f.key === 'new-checkout-flow')!;
    expect([main.line, main.column]).toEqual([8, 28]);
  });

  it('should find the same checks in the minified bundle, in the module (from its map) that makes them', () => {
    const keys = bundled.feature_flags.map((f) => `${f.provider} ${f.key}`).sort();
    expect(keys).toEqual([
      'env FEATURE_FAST_SHIPPING',
      'growthbook button-color',
      'growthbook one-click-buy',
      'launchdarkly new-checkout-flow',
    ]);
    const holders = new Map(bundled.bundled_modules.map((m) => [m.node_id, m.module_id]));
    const holderOf = (key: string) => holders.get(bundled.feature_flags.find((f) => f.key === key)!.node_id);
    expect(holderOf('button-color')).toBe('../app/src/checkout.js');
    expect(holderOf('one-click-buy')).toBe('../app/src/checkout.js');
    expect(holderOf('new-checkout-flow')).toBe('../app/src/main.js');
    expect(holderOf('FEATURE_FAST_SHIPPING')).toBe('../app/src/main.js');
  });

  it('should trace a flag key to the modules that check it', () => {
    const trace = traceFeature(sources, { kind: 'feature_flag', value: 'sidebar|SIDEBAR', match: 'regex' });
    expect(trace.sites.map((s) => [s.node_id, s.kind, s.detail])).toEqual([
      ['file:src/sidebar.mjs', 'flag', 'unleash.isEnabled wide-sidebar'],
      ['file:src/sidebar.mjs', 'flag', 'unleash.getVariant sidebar-theme'],
      ['file:src/sidebar.mjs', 'flag', 'import.meta.env VITE_ENABLE_BETA_SIDEBAR'],
    ]);
    expect(trace.modules).toEqual(['file:src/sidebar.mjs']);
  });

  it("should list a module's flag checks among its semantics", () => {
    const [checkout] = findModules(sources, 'src/checkout.js');
    const semantics = moduleSemantics(sources, checkout as Parameters<typeof moduleSemantics>[1]);
    expect(semantics.feature_flags.map((f) => [f.key, f.provider, f.line])).toEqual([
      ['one-click-buy', 'growthbook', 6],
      ['button-color', 'growthbook', 7],
    ]);
  });

  it('should compare the flags of two versions: keys added, removed, and checked at more sites', () => {
    const { feature_flags } = compareVersions(sources, nextVersion);
    expect(feature_flags).toEqual({
      added: ['express-pay'],
      removed: ['one-click-buy'],
      changed: [
        {
          key: 'button-color',
          before: { providers: ['growthbook'], sites: 1 },
          after: { providers: ['growthbook'], sites: 2 },
        },
      ],
    });
  });

  it('should count the flags in the summary and list the keys checked most', () => {
    const record = {
      evidence_id: `ev_${'0'.repeat(64)}`,
      operation: 'analyze_javascript_application',
      normalized_result: nextVersion,
      coverage: { status: 'complete', reasons: [] },
      limitations: [],
    };
    const view = selectAnalysisView(record as unknown as EvidenceRecord<unknown>, { view: 'summary' });
    if (view.view !== 'summary') throw new Error('expected a summary');
    // Eight checks of seven keys; button-color, checked twice, first.
    const facet = view.summary.application!.feature_flags;
    expect([facet.sites, facet.keys]).toEqual([8, 7]);
    expect(facet.top[0]).toEqual({ key: 'button-color', providers: ['growthbook'], sites: 2 });
    expect(facet.top.slice(1).map((f) => f.key)).toEqual(
      [
        'FEATURE_FAST_SHIPPING',
        'VITE_ENABLE_BETA_SIDEBAR',
        'express-pay',
        'new-checkout-flow',
        'sidebar-theme',
        'wide-sidebar',
      ].sort(),
    );
  });
});
