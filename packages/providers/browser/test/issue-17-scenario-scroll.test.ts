// A scroll action reports the position the page reached (as the page itself sees it), not the one asked
// for: a page ends before a position past its end, and a page that scrolls smoothly still ends where asked.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, servePages } from './support.js';

// The page logs where it is once a scroll has settled.
const page = (style: string) => `<!doctype html><title>tall</title><style>${style} body { margin: 0 }</style>
<div style="height: 3000px; width: 100px"></div>
<script>addEventListener('scrollend', () => console.log('at ' + scrollX + ',' + scrollY));</script>`;

let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({
    '/tall': { type: 'text/html', body: page('') },
    '/smooth': { type: 'text/html', body: page('html { scroll-behavior: smooth }') },
  });
});
afterAll(() => server?.close());

async function scroll(path: string, y: number) {
  const result = await call(captureBrowserScenarioTool, {
    url: `${server.origin}${path}`,
    actions: [
      { action: 'scroll', x: 0, y },
      { action: 'wait', ms: 1000 },
    ],
  });
  if (result.error) throw result.error;
  const capture = (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record.normalized_result;
  const logged = capture.events.filter((e) => e.kind === 'console').map((e) => e.detail);
  return { detail: capture.actions[0]!.detail, logged };
}

describe('capture_browser_scenario scroll', () => {
  it('should report the position reached when the page ends before the position asked for', async () => {
    const { detail, logged } = await scroll('/tall', 100_000);
    expect(logged).toHaveLength(1);
    const reached = /^log: at (\d+),(\d+)$/.exec(logged[0]!)!;
    expect(Number(reached[2])).toBeLessThan(3000);
    expect(detail).toBe(`scrolled to ${reached[1]},${reached[2]} (asked for 0,100000)`);
  }, 120_000);

  it('should report where a smoothly scrolling page ends', async () => {
    const { detail, logged } = await scroll('/smooth', 1000);
    expect(logged).toEqual(['log: at 0,1000']);
    expect(detail).toBe('scrolled to 0,1000');
  }, 120_000);
});
