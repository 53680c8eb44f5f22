// A page too busy to answer, or one whose server never answers, leaves the frame tree unread: the
// inspection says so and invents nothing from the missing tree (no out-of-process frames the page does
// not have, no inline script reported as not inline).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServerResponse } from 'node:http';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectWebPageTool } from '@rea/provider-browser';
import type { WebPageInspection } from '@rea/provider-browser';
import { call, servePages } from './support.js';

// Loads, then never yields again.
const BUSY =
  '<!doctype html><title>busy</title><script>var first = 1;</script><script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 0));</script>';

const hanging: ServerResponse[] = [];
let server: Awaited<ReturnType<typeof servePages>>;
beforeAll(async () => {
  server = await servePages({
    '/busy': { type: 'text/html', body: BUSY },
    '/silent': (_req, res) => void hanging.push(res),
  });
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  await server?.close();
});

function record(result: Awaited<ReturnType<typeof call>>): EvidenceRecord<WebPageInspection> {
  if (result.error) throw result.error;
  if (result.outcome?.kind !== 'evidence') throw new Error('expected Evidence');
  return result.outcome.record as EvidenceRecord<WebPageInspection>;
}

const kinds = (r: EvidenceRecord<WebPageInspection>) => r.limitations.map((l) => l.kind);

describe('inspect_web_page when the frame tree is not read', () => {
  it('should say the frame tree was not read on a busy page, invent no frame, and keep its scripts inline', async () => {
    const page = record(
      await call(inspectWebPageTool, { url: `${server.origin}/busy`, load_timeout_ms: 3000, timeout_ms: 60_000 }),
    );
    expect(kinds(page)).toContain('frames-unread');
    expect(kinds(page)).not.toContain('out-of-process-frames');
    expect(page.coverage.status).toBe('partial');
    expect(page.normalized_result.document.frames).toEqual([]);
    const scripts = page.normalized_result.scripts;
    expect(scripts).toHaveLength(2);
    expect(scripts.map((s) => [s.url, s.inline])).toEqual([
      [`${server.origin}/busy`, true],
      [`${server.origin}/busy`, true],
    ]);
  }, 120_000);

  it('should invent no out-of-process frame for a page whose server never answers', async () => {
    const page = record(
      await call(inspectWebPageTool, { url: `${server.origin}/silent`, load_timeout_ms: 3000, timeout_ms: 60_000 }),
    );
    expect(kinds(page)).toEqual(expect.arrayContaining(['load-incomplete', 'frames-unread']));
    expect(kinds(page)).not.toContain('out-of-process-frames');
    expect(page.coverage.status).toBe('partial');
  }, 120_000);
});
