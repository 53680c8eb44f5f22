/** Name of the page-global (non-enumerable) record the instrumentation keeps its registrations in. */
export const RECORD_NAME = '__reaWebmcpRegistrations';

/**
 * Instrumentation installed before the page's own scripts: wraps `registerTool` and `provideContext`
 * of `navigator.modelContext` and `document.modelContext`, where the browser offers them, so each tool
 * a page offers is recorded (name, description, input schema, frame, origin) and then passed on
 * unchanged. It adds nothing the browser does not offer (no `modelContext`, no method): a page that
 * feature-tests takes the branch it would take without REA. Each wrapper is a non-enumerable own
 * property of the browser's object and calls the browser's method with the page's receiver.
 */
export const WEBMCP_INSTRUMENTATION = `(() => {
  if (window.${RECORD_NAME}) return;
  const record = { registrations: [], wrapped: [] };
  Object.defineProperty(window, '${RECORD_NAME}', { value: record, enumerable: false });
  const copy = (value) => { try { return JSON.parse(JSON.stringify(value === undefined ? null : value)); } catch { return null; } };
  const note = (via, tool) => { if (tool && typeof tool === 'object') record.registrations.push({ via, name: String(tool.name), description: String(tool.description || ''),
    input_schema: copy(tool.inputSchema), frame: location.href, origin: location.origin }); };
  const tools = { registerTool: (tool) => [tool], provideContext: (context) => (context && context.tools) || [] };
  for (const holder of [navigator, document]) {
    let mc;
    try { mc = holder.modelContext; } catch { continue; }
    if (!mc || typeof mc !== 'object') continue;
    record.wrapped.push(mc);
    for (const method of Object.keys(tools)) {
      const original = mc[method];
      if (typeof original !== 'function') continue;
      const wrapper = { [method](...args) { try { for (const tool of tools[method](args[0])) note(method, tool); } catch {} return original.apply(this, args); } }[method];
      Object.defineProperty(mc, method, { value: wrapper, writable: true, configurable: true, enumerable: false });
    }
  }
})();`;

/**
 * Reads the recorded registrations, whether the instrumentation ran, the declarative `<form toolname>`
 * tools, how many child frames the document has, and which `modelContext` the page has now that the
 * instrumentation did not wrap (one the page defined itself, such as a polyfill: its registrations
 * were not observed).
 */
export const WEBMCP_READ = `(() => {
  const record = window.${RECORD_NAME};
  const imperative = record ? Array.from(record.registrations).slice(0, 500) : null;
  const unwrapped = record ? [['navigator', navigator], ['document', document]].filter(([, holder]) => {
    try { const mc = holder.modelContext; return !!mc && typeof mc === 'object' && !record.wrapped.includes(mc); } catch { return false; }
  }).map(([name]) => name + '.modelContext') : [];
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
  return { imperative, declarative, children: window.frames.length, unwrapped, frame: location.href };
})()`;
