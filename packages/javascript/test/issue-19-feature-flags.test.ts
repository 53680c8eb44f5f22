// Feature flags: the checks of flag SDKs with the key they name, and environment variables read as
// flags, in an application's sources and in the same sources bundled and minified by the real esbuild.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { analyzeJavascriptApplication, findModules, moduleSemantics, traceFeature } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';

const APP = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'flags-app');
let tmp: string;
let sources: JavascriptApplication;
let bundled: JavascriptApplication;

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
});
