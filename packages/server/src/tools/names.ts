/**
 * The names of the server's own tools, sorted: what the catalog needs to know about them before their
 * contracts load (a test keeps this equal to the names of SERVER_TOOLS).
 */
export const SERVER_TOOL_NAMES: readonly string[] = [
  'binary_session',
  'close_binary',
  'export_evidence_bundle',
  'get_evidence_bundle',
  'import_evidence_bundle',
  'inspect_analysis_view',
  'open_binary',
];
