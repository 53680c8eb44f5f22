// A tab of the session's own browser that is behind another draws no frame: captured by target_id, it
// waited about 15 s for one (18 s over MCP after an inspect_web_page of it). It is brought to the front
// first, so the capture answers well within a 10 s call deadline, which it used to overrun.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EvidenceRecord } from '@rea/evidence';
import { createSessionResources } from '@rea/provider-kit';
import type { SessionResourcesHost } from '@rea/provider-kit';
import { captureWebScreenshotTool, inspectWebPageTool } from '@rea/provider-browser';
import { call, servePages } from './support.js';

let server: Awaited<ReturnType<typeof servePages>>;
let resources: SessionResourcesHost;
/** The directories the screenshots were written to, removed after. */
const shots: string[] = [];
beforeAll(async () => {
  server = await servePages({
    '/': { type: 'text/html', body: '<!doctype html><title>first</title><p>first tab' },
    '/red': { type: 'text/html', body: '<!doctype html><body style="background:red">second tab' },
    '/favicon.ico': { type: 'image/x-icon', body: '' },
  });
  resources = createSessionResources();
});
afterAll(async () => {
  for (const dir of shots) rmSync(dir, { recursive: true, force: true });
  await resources?.closeAll();
  await server?.close();
});

function record<T>(result: Awaited<ReturnType<typeof call>>): EvidenceRecord<T> {
  if (result.error) throw result.error;
  const kept = (result.outcome as unknown as { record: EvidenceRecord<T> }).record;
  const path = (kept.normalized_result as { path?: string }).path;
  if (path !== undefined) shots.push(dirname(path));
  return kept;
}

describe('a screenshot of a background tab of the owned browser', () => {
  it('should be captured within its call deadline', async () => {
    const session = { sessionResources: resources };
    const first = record<{ target: { id: string } }>(
      await call(inspectWebPageTool, { url: `${server.origin}/` }, session),
    );
    // A second tab, opened later, is in front of the first.
    record(await call(captureWebScreenshotTool, { url: `${server.origin}/red` }, session));
    const shot = await call(
      captureWebScreenshotTool,
      { target_id: first.normalized_result.target.id, timeout_ms: 10_000 },
      session,
    );
    expect(shot.error).toBeNull();
    const png = record<{ width: number; height: number; target: { id: string } }>(shot).normalized_result;
    expect(png.target.id).toBe(first.normalized_result.target.id);
    expect(png.width).toBeGreaterThan(0);
    expect(png.height).toBeGreaterThan(0);
  }, 120_000);
});
