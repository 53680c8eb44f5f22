import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { captureBrowserScenarioTool } from '@rea/provider-browser';
import type { ScenarioCapture } from '@rea/provider-browser';
import { call, ownedBrowsersGone, servePages } from './support.js';

const REPORT = 'id,total\n1,42\n2,17\n';
const BIG = 2 * 1024 * 1024;
const PAGE = `<!doctype html><title>files</title><body>
<a id="small" href="/files/report.csv">report</a> <a id="big" href="/files/big.bin">big</a>
<a id="never" href="/files/never.bin">never</a> <button id="flood">flood</button>
<script>
document.getElementById('flood').addEventListener('click', () => {
  for (let i = 0; i < 300; i++) console.log('message number ' + i + ' of the flood');
});
</script></body>`;

let server: Awaited<ReturnType<typeof servePages>>;
const kept: string[] = [];

beforeAll(async () => {
  const attachment = (name: string, length: number) => ({
    'content-type': 'application/octet-stream',
    'content-disposition': `attachment; filename="${name}"`,
    'content-length': String(length),
  });
  server = await servePages({
    '/': { type: 'text/html', body: PAGE },
    '/files/report.csv': (_req, res) => res.writeHead(200, attachment('report.csv', REPORT.length)).end(REPORT),
    '/files/big.bin': (_req, res) => {
      res.on('error', () => undefined);
      res.writeHead(200, attachment('big.bin', BIG)).end(Buffer.alloc(BIG, 7));
    },
    // Announces 512 KiB (within the budget), sends 64 KiB and never more: the download cannot finish.
    '/files/never.bin': (_req, res) => {
      res.on('error', () => undefined);
      res.writeHead(200, attachment('never.bin', 512 * 1024)).write(Buffer.alloc(64 * 1024, 1));
    },
  });
});

afterAll(async () => {
  for (const dir of kept) rmSync(dir, { recursive: true, force: true });
  await server?.close();
});

describe('capture_browser_scenario budgets', () => {
  it('should keep complete downloads within the download budget, cancel the rest, and keep events within the byte budget', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      max_download_bytes: 1024 * 1024,
      max_event_bytes: 4096,
      actions: [
        { action: 'click', selector: '#small' },
        { action: 'wait_for_downloads' },
        { action: 'click', selector: '#big' },
        { action: 'wait_for_downloads' },
        { action: 'click', selector: '#flood' },
        { action: 'click', selector: '#never' },
        // The last download never ends, so this wait fails and the capture is kept as partial.
        { action: 'wait_for_downloads', timeout_ms: 5000 },
      ],
    });
    const capture =
      (result.error as { details?: { partial_observation?: ScenarioCapture } } | null)?.details?.partial_observation ??
      (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record.normalized_result;
    kept.push(...capture.downloads.flatMap((d) => (d.path ? [dirname(d.path)] : [])));
    expect(isReaError(result.error) && result.error.code).toBe('execution_failure');
    const [small, big, never] = capture.downloads;
    expect(capture.actions.map((a) => a.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'failed']);
    // Each download is the click's that asked for it, though the browser may announce it during the wait after it.
    expect(capture.downloads.map((d) => d.action)).toEqual([0, 2, 5]);
    expect(small).toEqual({
      action: small!.action,
      url: `${server.origin}/files/report.csv`,
      suggested_filename: 'report.csv',
      outcome: 'kept',
      path: expect.stringMatching(/rea-browser-downloads-[^/]+\/[0-9a-f]{64}\.csv$/),
      sha256: createHash('sha256').update(REPORT).digest('hex'),
      size: REPORT.length,
    });
    expect(readFileSync(small!.path!, 'utf8')).toBe(REPORT);
    expect(big).toMatchObject({ suggested_filename: 'big.bin', outcome: 'over-budget', path: null });
    expect(never).toMatchObject({ suggested_filename: 'never.bin', outcome: 'incomplete', path: null });
    // Only the complete download is in the kept directory; the browser's own files went with the call.
    expect(readdirSync(dirname(small!.path!))).toEqual([`${small!.sha256}.csv`]);
    expect(ownedBrowsersGone(result.dirs)).toBe(true);

    // The flood passed the 4096-byte event budget: the kept events are a prefix within it, the rest counted.
    const bytes = capture.events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(bytes).toBeLessThanOrEqual(4096);
    capture.events.forEach((e, i) => expect(e.seq).toBe(i));
    expect(capture.events_total).toBeGreaterThan(capture.events.length + 250);
  }, 180_000);

  it('should report the budgets it ran into as limitations of a complete run', async () => {
    const result = await call(captureBrowserScenarioTool, {
      url: `${server.origin}/`,
      max_event_bytes: 2048,
      max_download_bytes: 0,
      actions: [
        { action: 'click', selector: '#small' },
        { action: 'wait_for_downloads' },
        { action: 'click', selector: '#flood' },
      ],
    });
    if (result.error) throw result.error;
    const record = (result.outcome as unknown as { record: EvidenceRecord<ScenarioCapture> }).record;
    expect(record.normalized_result.downloads).toEqual([
      expect.objectContaining({ suggested_filename: 'report.csv', outcome: 'refused', path: null }),
    ]);
    expect(record.limitations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'budget-reached', scope: 'events' }),
        expect.objectContaining({ kind: 'downloads-refused', scope: 'downloads' }),
      ]),
    );
    expect(record.limitations.find((l) => l.scope === 'events')!.message).toContain('2048 bytes');
    expect(record.coverage.status).toBe('partial');
    expect(ownedBrowsersGone(result.dirs)).toBe(true);
  }, 120_000);
});
