import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { CdpConnection } from '../engine/cdp.js';

/** A PNG written to a fresh directory, named by the SHA-256 of its bytes. */
export interface SavedPng {
  directory: string;
  path: string;
  sha256: string;
  size: number;
  width: number;
  height: number;
}

/** The document-space box of the first element matching `selector`, without scrolling or changing the page. */
async function elementBox(page: CdpConnection, selector: string): Promise<Record<string, number>> {
  const expression = `(() => { const e = document.querySelector(${JSON.stringify(selector)});
    if (!e) return null; const r = e.getBoundingClientRect();
    return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height }; })()`;
  const answer = await page.send('Runtime.evaluate', { expression, returnByValue: true, silent: true });
  if (answer['exceptionDetails'] !== undefined) {
    throw new ReaError('invalid_request', `selector "${selector}" is not a valid CSS selector.`, {
      details: { reason: 'invalid-selector', selector },
    });
  }
  const box = (answer['result'] as { value?: Record<string, number> | null }).value ?? null;
  if (box === null) {
    throw new ReaError('not_found', `No element on the page matches "${selector}".`, {
      details: { reason: 'no-element', selector },
      remediation: 'Check the selector against the page (inspect_web_page outlines its DOM).',
    });
  }
  if (!(box['width']! >= 1 && box['height']! >= 1)) {
    throw new ReaError('invalid_request', `The element "${selector}" has no visible area to capture.`, {
      details: { reason: 'element-empty', selector },
    });
  }
  return box;
}

/** Captures the viewport, or the element `selector` names, as PNG, into a fresh `rea-browser-shots-` directory. */
export async function captureScreenshot(page: CdpConnection, selector: string | null): Promise<SavedPng> {
  const params: Record<string, unknown> = { format: 'png' };
  if (selector !== null) {
    params['clip'] = { ...(await elementBox(page, selector)), scale: 1 };
    params['captureBeyondViewport'] = true;
  }
  const shot = await page.send('Page.captureScreenshot', params);
  const bytes = Buffer.from(String(shot['data']), 'base64');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const directory = mkdtempSync(join(tmpdir(), 'rea-browser-shots-'));
  const path = join(directory, `${sha256}.png`);
  writeFileSync(path, bytes);
  // The PNG header: width and height are the first two fields of IHDR.
  return { directory, path, sha256, size: bytes.length, width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
