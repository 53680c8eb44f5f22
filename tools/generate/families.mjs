// Tool families: which question each group of tools answers, in the order of an investigation. The
// tool reference and the agent skill are organised by them. A tool no family names is still listed,
// under its provider, so adding a provider needs no change here.

/** Families in workflow order; each names its tools in the order an investigation reaches them. */
export const FAMILIES = [
  {
    id: 'session',
    question: 'Which file is open, with which engine, and what does the session hold?',
    tools: ['open_binary', 'binary_session', 'close_binary'],
  },
  {
    id: 'overview',
    question: 'What is in this binary at a glance?',
    tools: ['binary_overview', 'list_segments', 'list_names', 'list_strings', 'search_strings'],
  },
  {
    id: 'functions',
    question: 'What does this function do?',
    tools: [
      'list_procedures',
      'search_procedures',
      'procedure_info',
      'analyze_function',
      'procedure_assembly',
      'procedure_pseudo_code',
      'read_function_instructions',
      'compare_functions',
    ],
  },
  {
    id: 'graph',
    question: 'Who calls what, and what refers to this?',
    tools: [
      'get_call_graph',
      'procedure_callers',
      'procedure_callees',
      'procedure_references',
      'trace_call_path',
      'xrefs',
    ],
  },
  {
    id: 'addresses',
    question: 'What is at this address, and where am I?',
    tools: [
      'address_name',
      'procedure_address',
      'resolve_containing_procedure',
      'inspect_address_context',
      'goto_address',
      'current_address',
      'current_document',
      'current_procedure',
      'get_navigation_context',
    ],
  },
  {
    id: 'artifacts',
    question:
      'What is inside this package, archive, application or executable file, and what changed between two versions?',
    tools: ['inspect_artifact', 'extract_artifact', 'compare_artifacts', 'inspect_binary_layout'],
  },
  {
    id: 'evidence',
    question: 'How do I page through a large result, and keep or share what I found?',
    tools: ['inspect_analysis_view', 'export_evidence_bundle', 'get_evidence_bundle', 'import_evidence_bundle'],
  },
];

/**
 * Groups the catalog into families: `[{ id, question, tools: [contract…] }]`. Tools no family names
 * follow, one group per provider (`owners` maps a tool name to its provider's name).
 */
export function groupTools(tools, owners) {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const claimed = new Set();
  const groups = [];
  for (const family of FAMILIES) {
    const members = family.tools.filter((name) => byName.has(name)).map((name) => byName.get(name));
    for (const tool of members) claimed.add(tool.name);
    if (members.length > 0) groups.push({ id: family.id, question: family.question, tools: members });
  }
  const rest = new Map();
  for (const tool of tools) {
    if (claimed.has(tool.name)) continue;
    const owner = owners.get(tool.name) ?? 'REA';
    if (!rest.has(owner)) rest.set(owner, []);
    rest.get(owner).push(tool);
  }
  for (const [owner, members] of [...rest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const id = owner.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    groups.push({ id, question: `What else can ${owner} answer?`, tools: members });
  }
  return groups;
}

/** The first sentence of a description. */
export function firstSentence(text) {
  const match = /^(.*?[.!?])(?=\s+[A-Z]|\s*$)/s.exec(text);
  return (match ? match[1] : text).replace(/\s+/g, ' ').trim();
}
