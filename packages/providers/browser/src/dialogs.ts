import type { CdpConnection } from './engine/cdp.js';

/**
 * Answers a JavaScript dialog the page opened (`type` as `Page.javascriptDialogOpening` gives it): a
 * `beforeunload` prompt ("Leave site?") is accepted, so the navigation or close that raised it goes
 * on; `alert`, `confirm` and `prompt` are dismissed. Never rejects (the dialog may be gone already).
 */
export function answerDialog(page: CdpConnection, type: string): void {
  void page.send('Page.handleJavaScriptDialog', { accept: type === 'beforeunload' }).catch(() => undefined);
}
