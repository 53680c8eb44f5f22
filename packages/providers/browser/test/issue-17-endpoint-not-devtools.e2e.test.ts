import { describe, expect, it } from '@jest/globals';
import { withTempDir } from '@rea/test-helpers';
import {
  captureBrowserScenarioTool,
  captureWebScreenshotTool,
  discoverWebmcpToolsTool,
  inspectWebPageTool,
  listBrowserTargetsTool,
} from '@rea/provider-browser';
import { run } from '../../../cli/test/run.js';
import { REA_BIN, call } from './support.js';

const NOT_DEVTOOLS = {
  code: 'invalid_request',
  message: expect.stringMatching(/^Endpoint "bogus" is not a DevTools endpoint \(it names no port\)/),
  details: { reason: 'invalid-endpoint', endpoint: 'bogus', accepted: expect.arrayContaining(['owned']) },
};

describe('an endpoint that is not a DevTools endpoint', () => {
  it('should be named as such by `rea <page tool> --endpoint bogus`, not reported as a missing target_id', async () => {
    await withTempDir(async (tmp) => {
      for (const command of [
        'inspect-web-page',
        'discover-webmcp-tools',
        'capture-web-screenshot',
        'list-browser-targets',
      ]) {
        const result = await run(REA_BIN, [command, '--endpoint', 'bogus', '--format', 'json'], {
          env: { TMPDIR: tmp },
        });
        expect(result.code).toBe(2);
        expect(JSON.parse(result.stdout)).toMatchObject({ error: NOT_DEVTOOLS });
        const human = await run(REA_BIN, [command, '--endpoint', 'bogus'], { env: { TMPDIR: tmp } });
        expect(human.stderr).toContain('not a DevTools endpoint');
        expect(human.stderr).not.toContain('target_id');
      }
    });
  }, 120_000);

  it('should be judged before what the request names, by every browser tool, before any browser starts', async () => {
    for (const [tool, input] of [
      [inspectWebPageTool, { endpoint: 'bogus' }],
      [inspectWebPageTool, { endpoint: 'bogus', url: 'http://127.0.0.1:9/' }],
      [discoverWebmcpToolsTool, { endpoint: 'bogus' }],
      [captureWebScreenshotTool, { endpoint: 'bogus' }],
      [captureBrowserScenarioTool, { endpoint: 'bogus', actions: [{ action: 'wait', ms: 1 }] }],
      [listBrowserTargetsTool, { endpoint: 'bogus' }],
    ] as const) {
      const result = await call(tool, input);
      expect(result.error).toMatchObject(NOT_DEVTOOLS);
      expect(result.dirs).toEqual([]);
    }
    // A host that is not loopback is still refused as such, before the request's page is judged.
    expect((await call(inspectWebPageTool, { endpoint: 'http://10.0.0.1:9222' })).error).toMatchObject({
      code: 'access_denied',
    });
  }, 60_000);
});
