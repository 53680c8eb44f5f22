// Library entry points. The analysis (and its parser) loads on first call, so importing the package
// stays cheap.
import type { AnalyzeOptions, AnalyzeOutcome } from './analysis/analyze.js';

/**
 * Analyzes the JavaScript application at `path` (a directory, an ASAR archive, a ZIP-based package or
 * one script) and resolves to the subject identity, the complete result, coverage and limitations.
 * Rejects with a ReaError: `not_found`, `access_denied`, `unsupported_target`,
 * `artifact_integrity_mismatch` (fail-closed policy), `cancelled`.
 */
export async function analyzeJavascriptApplication(path: string, options?: AnalyzeOptions): Promise<AnalyzeOutcome> {
  const { analyzeApplication } = await import('./analysis/analyze.js');
  return analyzeApplication(path, options);
}
