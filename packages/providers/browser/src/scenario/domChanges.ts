import type { CdpConnection } from '../engine/cdp.js';
import type { ScenarioCapture } from './schema.js';

/** What one action changed in the main document's DOM. */
export type DomChanges = Omit<ScenarioCapture['dom_changes'][number], 'action'>;

/** How many changes each action lists (all are counted). */
export const MAX_DOM_CHANGES = 50;

const READ_NAME = '__reaDomChanges';

/**
 * A MutationObserver on the main frame's document, installed before the page's scripts (and on the
 * current document of an external target). It counts added and removed nodes, attribute and text
 * changes, and lists the first {@link MAX_DOM_CHANGES} element changes with a short CSS selector
 * (computed when the change happens), until read.
 */
export const DOM_OBSERVER = `(() => {
  if (window !== window.top || window.${READ_NAME}) return;
  const fresh = () => ({ added: 0, removed: 0, attributes: 0, text: 0, changes: [], truncated: false });
  let state = fresh();
  const esc = (s) => (typeof CSS !== 'undefined' && CSS.escape ? CSS.escape(s) : s);
  const name = (el) => el.id ? el.localName + '#' + esc(el.id)
    : el.localName + Array.from(el.classList).slice(0, 2).map((c) => '.' + esc(c)).join('');
  const path = (el) => { const parts = [];
    for (let n = el; n && n.nodeType === 1 && parts.length < 5; n = n.parentElement) { parts.unshift(name(n)); if (n.id) break; }
    return parts.join(' > ') || '#document'; };
  const note = (type, selector, attribute) => {
    if (state.changes.length < ${MAX_DOM_CHANGES}) state.changes.push({ type, selector: selector.slice(0, 512), attribute });
    else state.truncated = true; };
  new MutationObserver((records) => { for (const r of records) {
    if (r.type === 'attributes') { state.attributes++; note('attribute', path(r.target), r.attributeName); }
    else if (r.type === 'characterData') { state.text++; }
    else {
      for (const n of r.addedNodes) { state.added++; if (n.nodeType === 1) note('added', path(r.target) + ' > ' + name(n), null); }
      for (const n of r.removedNodes) { state.removed++; if (n.nodeType === 1) note('removed', path(r.target) + ' > ' + name(n), null); }
    }
  } }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  Object.defineProperty(window, '${READ_NAME}', { value: () => { const s = state; state = fresh(); return s; }, enumerable: false });
})();`;

/** Installs the observer for later documents and on the current one. */
export async function observeDom(page: CdpConnection): Promise<void> {
  await page.send('Page.addScriptToEvaluateOnNewDocument', { source: DOM_OBSERVER });
  await page.send('Runtime.evaluate', { expression: DOM_OBSERVER, silent: true });
}

/** The changes since the last read (null when the current document has no observer, e.g. a failed load). */
export async function takeDomChanges(page: CdpConnection): Promise<DomChanges | null> {
  const result = await page.send('Runtime.evaluate', {
    expression: `typeof window.${READ_NAME} === 'function' ? window.${READ_NAME}() : null`,
    returnByValue: true,
    silent: true,
  });
  return ((result['result'] as { value?: DomChanges | null }).value ?? null) as DomChanges | null;
}

/** One line for the event sequence. */
export function summarizeDomChanges(changes: DomChanges): string {
  return `added ${changes.added}, removed ${changes.removed}, attributes ${changes.attributes}, text ${changes.text}`;
}
