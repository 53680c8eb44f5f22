/** Name of the page-global (non-enumerable) array the instrumentation records registrations in. */
export const RECORD_NAME = '__reaWebmcpRegistrations';

/**
 * Instrumentation installed before the page's own scripts: wraps `registerTool` and `provideContext`
 * of `navigator.modelContext` and `document.modelContext` so each tool a page offers is recorded
 * (name, description, input schema, frame, origin) and then passed on unchanged. Where the browser has
 * neither, a recording stand-in takes its place so a page's registration is observed.
 */
export const WEBMCP_INSTRUMENTATION = `(() => {
  if (window.${RECORD_NAME}) return;
  const seen = [];
  Object.defineProperty(window, '${RECORD_NAME}', { value: seen, enumerable: false });
  const copy = (value) => { try { return JSON.parse(JSON.stringify(value === undefined ? null : value)); } catch { return null; } };
  const note = (via, tool) => { if (tool && typeof tool === 'object') seen.push({ via, name: String(tool.name), description: String(tool.description || ''),
    input_schema: copy(tool.inputSchema), frame: location.href, origin: location.origin }); };
  const wrap = (mc) => {
    const register = typeof mc.registerTool === 'function' ? mc.registerTool.bind(mc) : null;
    const provide = typeof mc.provideContext === 'function' ? mc.provideContext.bind(mc) : null;
    mc.registerTool = function (tool) { try { note('registerTool', tool); } catch {} return register ? register(tool) : undefined; };
    mc.provideContext = function (context) { try { for (const tool of (context && context.tools) || []) note('provideContext', tool); } catch {} return provide ? provide(context) : undefined; };
  };
  const install = (holder, proto) => {
    if (holder.modelContext) return wrap(holder.modelContext);
    const stand = {}; wrap(stand); Object.defineProperty(proto, 'modelContext', { get: () => stand, configurable: true });
  };
  install(navigator, Navigator.prototype);
  install(document, Document.prototype);
})();`;

/**
 * Reads the recorded registrations, whether the instrumentation ran, the declarative `<form toolname>`
 * tools, and how many child frames the document has.
 */
export const WEBMCP_READ = `(() => {
  const imperative = window.${RECORD_NAME} ? Array.from(window.${RECORD_NAME}).slice(0, 500) : null;
  const declarative = Array.from(document.querySelectorAll('form[toolname]')).slice(0, 500).map((form) => {
    const properties = {}; const required = [];
    for (const field of Array.from(form.elements)) {
      if (!field.name || field.type === 'submit' || field.type === 'button') continue;
      const description = field.getAttribute('toolparamdescription') || field.getAttribute('title') || '';
      properties[field.name] = { type: field.type === 'number' || field.type === 'range' ? 'number' : field.type === 'checkbox' ? 'boolean' : 'string',
        ...(description ? { description } : {}) };
      if (field.required) required.push(field.name);
    }
    return { name: form.getAttribute('toolname'), description: form.getAttribute('tooldescription') || '',
      input_schema: { type: 'object', properties, required }, frame: location.href, origin: location.origin };
  });
  // Child frames of this document, those in other renderer processes too.
  return { imperative, declarative, children: window.frames.length };
})()`;
