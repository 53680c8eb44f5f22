/** Facts read inside the page by one read-only expression. */
export interface PageFacts {
  url: string;
  title: string;
  /** `document.readyState`. */
  ready: string;
  secure: boolean;
  elements: number;
  outline: Array<{ depth: number; tag: string; id: string | null; classes: string[] }>;
  csp: string[];
  styles: Array<{ url: string | null; inline: boolean; size: number | null }>;
  local: Array<{ key: string; value: string | null }> | null;
  session: Array<{ key: string; value: string | null }> | null;
  /** Frames below the main frame, counted through `window.frames`: those of other renderer processes too. */
  descendants: number;
}

/**
 * The read-only expression evaluated in the page: document, bounded DOM outline (`maxNodes` elements
 * in document order), meta CSP, stylesheets, storage keys (values only with `values`) and how many
 * frames are below the main frame. It changes nothing in the page.
 */
export function pageFactsExpression(maxNodes: number, values: boolean): string {
  return `(() => {
  const cut = (t) => (t.length > 1024 ? t.slice(0, 1024) + '…' : t);
  const storage = (name) => { try { const s = window[name]; const out = [];
    for (let i = 0; i < s.length && i < 500; i++) { const key = s.key(i); out.push({ key, value: ${values} ? cut(String(s.getItem(key))) : null }); }
    return out; } catch { return null; } };
  const outline = []; const root = document.documentElement;
  if (root) { const walk = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT); let n = walk.currentNode;
    while (n && outline.length < ${maxNodes}) { let depth = 0; for (let p = n.parentElement; p; p = p.parentElement) depth++;
      outline.push({ depth, tag: n.localName, id: n.id || null, classes: Array.from(n.classList).slice(0, 4) }); n = walk.nextNode(); } }
  const styles = Array.from(document.styleSheets).slice(0, 500).map((s) => ({ url: s.href, inline: !s.href,
    size: s.href ? null : (s.ownerNode && s.ownerNode.textContent ? s.ownerNode.textContent.length : 0) }));
  // A frame's length and indexed children are readable across origins and processes, so this counts
  // every frame under the page (bounded against a page that nests without end).
  let descendants = 0;
  const count = (w, depth) => { let n = 0; try { n = w.length; } catch { return; }
    for (let i = 0; i < n && descendants < 10000; i++) { descendants++; if (depth < 32) { try { count(w[i], depth + 1); } catch {} } } };
  count(window, 0);
  return { url: location.href, title: document.title, ready: document.readyState, secure: isSecureContext, elements: document.getElementsByTagName('*').length,
    outline, csp: Array.from(document.querySelectorAll('meta[http-equiv="Content-Security-Policy" i]')).map((m) => cut(m.content)),
    styles, local: storage('localStorage'), session: storage('sessionStorage'), descendants };
})()`;
}
