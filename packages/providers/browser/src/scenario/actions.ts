import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { CdpConnection } from '../engine/cdp.js';
import { checkPageUrl } from '../pageUrl.js';
import type { Downloads } from './downloads.js';
import type { EventLog } from './events.js';
import { ACTION_FIELDS } from './schema.js';
import type { Action } from './schema.js';

/** What running one action needs. */
export interface ActionContext {
  page: CdpConnection;
  log: EventLog;
  signal: AbortSignal;
  loadMs: number;
  /** A fresh directory for screenshots, made on first use. */
  screenshotDir: () => string;
  onLoad: (listener: () => void) => void;
  /** The scenario's downloads (null on an external endpoint, where they are left to the browser). */
  downloads: Downloads | null;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** Polls `done` every 50 ms for up to `ms`; true once it holds. Cancellation and the deadline still stop it. */
async function waitUntil(done: () => boolean, ms: number, signal: AbortSignal): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() >= until) return false;
    await sleep(Math.min(50, Math.max(1, until - Date.now())), signal);
  }
  return true;
}

/** `work`'s answer, or null when it has not answered within `ms` (it is left running); rejects on abort. */
function answerWithin<T>(work: Promise<T>, ms: number, signal: AbortSignal): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const finish = (then: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      then();
    };
    const stop = () => finish(() => reject(signal.reason));
    const timer = setTimeout(() => finish(() => resolve(null)), ms);
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

function failed(message: string): ReaError {
  return new ReaError('execution_failure', message, { details: { reason: 'action-failed' } });
}

async function evaluate(page: CdpConnection, expression: string): Promise<unknown> {
  const result = await page.send('Runtime.evaluate', {
    expression,
    returnByValue: true,
    awaitPromise: true,
    silent: true,
  });
  if (result['exceptionDetails'])
    throw failed(`the page threw: ${JSON.stringify((result['exceptionDetails'] as { text?: string }).text ?? '')}`);
  return (result['result'] as { value?: unknown }).value;
}

const KEYS: Record<string, { code: number; text?: string }> = {
  Enter: { code: 13, text: '\r' },
  Tab: { code: 9 },
  Escape: { code: 27 },
  Backspace: { code: 8 },
  ArrowLeft: { code: 37 },
  ArrowUp: { code: 38 },
  ArrowRight: { code: 39 },
  ArrowDown: { code: 40 },
};

async function find(page: CdpConnection, selector: string): Promise<{ x: number; y: number }> {
  const at = (await evaluate(
    page,
    `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return null; e.scrollIntoView({ block: 'center' });
      const r = e.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
  )) as { x: number; y: number } | null;
  if (at === null) throw failed(`no element matches ${selector}`);
  return at;
}

/** The named key of `press`, or null when `name` is one character (typed as itself). */
function namedKey(name: string): { code: number; text?: string } | null {
  return Object.hasOwn(KEYS, name) ? KEYS[name]! : null;
}

/**
 * Refuses, before anything runs, an action that lacks a field it needs, a `navigate` whose URL the
 * `url` input would refuse (see {@link checkPageUrl}), and a `press` whose key is neither a named key of
 * {@link KEYS} nor one character (`invalid_request`, `details.accepted` lists the names).
 */
export function checkActions(actions: readonly Action[]): void {
  actions.forEach((action, index) => {
    const missing = ACTION_FIELDS[action.action].filter((field) => action[field as keyof Action] === undefined);
    if (missing.length > 0) {
      throw new ReaError('invalid_request', `actions[${index}] (${action.action}) needs ${missing.join(' and ')}.`, {
        details: { reason: 'incomplete-action', index, action: action.action, missing },
      });
    }
    if (action.action === 'navigate') checkPageUrl(action.url!, `actions[${index}] (navigate) url`, { index });
    const key = action.action === 'press' ? action.key! : null;
    if (key !== null && namedKey(key) === null && [...key].length !== 1) {
      const accepted = Object.keys(KEYS);
      throw new ReaError(
        'invalid_request',
        `actions[${index}] (press) key "${key}" is not one of ${accepted.join(', ')} nor a single character (" " for Space).`,
        { details: { reason: 'unsupported-key', index, key, accepted } },
      );
    }
  });
}

/**
 * `navigate`: loads `url` in the page and waits, all told, up to `ms` (the action's `timeout_ms`, by
 * default the call's `load_timeout_ms`) for it to load.
 * - No answer within `ms` (a server that never responds): the navigation is stopped, the page stays as
 *   it was, and the action fails (`execution_failure`, `details.reason: "navigation-timeout"`).
 * - Answered but not loaded within `ms` (a resource that never ends): done, as far as it loaded.
 * - A response the browser saves as a file (an attachment): done once the download begins; the page
 *   stays as it was.
 * A `beforeunload` prompt of the page it leaves is accepted (see `answerDialog`) and named in the detail.
 */
async function navigate(url: string, ms: number, c: ActionContext): Promise<string> {
  const { page, signal } = c;
  const until = Date.now() + ms;
  const left = () => Math.max(0, until - Date.now());
  const prompts = c.log.beforeUnloadPrompts;
  const prompted = () =>
    c.log.beforeUnloadPrompts > prompts ? ' (the beforeunload prompt of the page it left was accepted)' : '';
  let loaded = false;
  c.onLoad(() => (loaded = true));
  const navigated = await answerWithin(page.send('Page.navigate', { url }), ms, signal);
  if (navigated === null) {
    // Stopped, so the page does not change under the actions that follow (or the call's end).
    await page.send('Page.stopLoading').catch(() => undefined);
    throw new ReaError(
      'execution_failure',
      `navigate timed out: ${url} did not answer within ${ms} ms; the navigation was stopped and the page stays as it was`,
      {
        details: { reason: 'navigation-timeout', url: url.slice(0, 2048), timeout_ms: ms },
        remediation: 'Check that the server answers, or give the navigate action a larger timeout_ms.',
      },
    );
  }
  // A response the browser saves as a file (an attachment) ends the navigation without a new
  // document, which the browser reports as aborted: the action is done, and the download recorded.
  if (navigated['isDownload'] === true) {
    // The browser may announce the download just after answering: wait for it, so it is this action's.
    if (c.downloads !== null) await answerWithin(c.downloads.whenBegun(c.log.action), left(), signal);
    return `became a download (the page stays as it was)${prompted()}`;
  }
  if (navigated['errorText']) throw failed(`loading ${url} failed: ${String(navigated['errorText'])}`);
  await waitUntil(() => loaded, left(), signal);
  const outcome = loaded
    ? 'loaded'
    : `not loaded within ${ms} ms (the actions go on with the page as far as it loaded)`;
  return `${outcome}${prompted()}`;
}

/** Runs one action; answers a short description of what it did, or throws `execution_failure`. */
export async function runAction(action: Action, c: ActionContext): Promise<string> {
  const { page, signal } = c;
  const timeoutMs = action.timeout_ms ?? 10_000;
  const selector = action.selector ?? '';
  switch (action.action) {
    case 'navigate':
      return navigate(action.url ?? '', action.timeout_ms ?? c.loadMs, c);
    case 'click': {
      const { x, y } = await find(page, selector);
      for (const type of ['mousePressed', 'mouseReleased'])
        await page.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
      return `clicked at ${Math.round(x)},${Math.round(y)}`;
    }
    case 'type': {
      const found = await evaluate(
        page,
        `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return false; e.focus(); return true; })()`,
      );
      if (found !== true) throw failed(`no element matches ${selector}`);
      const text = action.text ?? '';
      await page.send('Input.insertText', { text });
      return `typed ${text.length} character${text.length === 1 ? '' : 's'}`;
    }
    case 'press': {
      const name = action.key ?? '';
      const key = namedKey(name) ?? { code: name.toUpperCase().charCodeAt(0), text: name };
      const base = { key: name, windowsVirtualKeyCode: key.code };
      await page.send('Input.dispatchKeyEvent', { type: 'keyDown', ...base, ...(key.text ? { text: key.text } : {}) });
      await page.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
      return `pressed ${name}`;
    }
    case 'select': {
      // The option is looked for first, so a select that fails leaves the page as it was.
      const value = JSON.stringify(action.value);
      const outcome = await evaluate(
        page,
        `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e || !('options' in e)) return 'no-select';
          if (![...e.options].some((o) => o.value === ${value})) return 'no-option';
          e.value = ${value}; e.dispatchEvent(new Event('input', { bubbles: true })); e.dispatchEvent(new Event('change', { bubbles: true }));
          return e.value === ${value} ? 'ok' : 'not-selected'; })()`,
      );
      if (outcome === 'no-select') throw failed(`no <select> matches ${selector}`);
      if (outcome === 'no-option') throw failed(`${selector} has no option with value ${value}; nothing was changed`);
      if (outcome !== 'ok') throw failed(`${selector} did not take the value ${value}`);
      return `selected ${action.value ?? ''}`;
    }
    case 'wait_for_selector': {
      for (let waited = 0; waited <= timeoutMs; waited += 100) {
        if ((await evaluate(page, `document.querySelector(${JSON.stringify(selector)}) !== null`)) === true)
          return 'found';
        await sleep(100, signal);
      }
      throw failed(`${selector} did not appear within ${timeoutMs} ms`);
    }
    case 'wait_for_network_idle': {
      const idleMs = action.idle_ms ?? 500;
      for (let waited = 0; waited <= timeoutMs; waited += 50) {
        const quiet = c.log.quietFor();
        if (quiet !== null && quiet >= idleMs) return 'idle';
        await sleep(50, signal);
      }
      const pending = c.log.inFlight();
      throw new ReaError('execution_failure', `the network was not idle for ${idleMs} ms within ${timeoutMs} ms`, {
        details: { reason: 'action-failed', in_flight: pending },
        remediation: pending.length
          ? `still in flight: ${pending.join(', ')}; a page that polls or streams is never idle: wait for a selector instead`
          : 'the page kept making requests: wait for a selector instead, or give a shorter idle_ms',
      });
    }
    case 'wait_for_downloads': {
      const downloads = c.downloads;
      if (downloads === null)
        throw failed('downloads are observed only on a page REA loads itself (url with endpoint "owned")');
      for (let waited = 0; waited <= timeoutMs; waited += 50) {
        if (downloads.settle()) return `${downloads.list.length} downloads so far, none in progress`;
        await sleep(50, signal);
      }
      throw failed(`no new download began and ended within ${timeoutMs} ms`);
    }
    case 'wait':
      await sleep(action.ms ?? 0, signal);
      return `waited ${action.ms ?? 0} ms`;
    case 'scroll': {
      // Instant, so the position read back is where the scroll ends even on a page that scrolls smoothly;
      // a page shorter than the position asked for stops at its end.
      const [x, y] = [action.x ?? 0, action.y ?? 0];
      const at = (await evaluate(
        page,
        `(() => { window.scrollTo({ left: ${x}, top: ${y}, behavior: 'instant' }); return [window.scrollX, window.scrollY]; })()`,
      )) as [number, number];
      const reached = at.map((n) => Math.round(n)).join(',');
      return reached === `${x},${y}` ? `scrolled to ${reached}` : `scrolled to ${reached} (asked for ${x},${y})`;
    }
    case 'screenshot': {
      const shot = await page.send('Page.captureScreenshot', { format: 'png' });
      const bytes = Buffer.from(String(shot['data']), 'base64');
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const path = join(c.screenshotDir(), `${sha256}.png`);
      writeFileSync(path, bytes);
      return path;
    }
  }
}
