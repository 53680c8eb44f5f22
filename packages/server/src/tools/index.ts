import type { AnyToolContract } from '@rea/provider-kit';
import { binarySessionTool } from './binarySession.js';
import { exportEvidenceBundleTool, getEvidenceBundleTool, importEvidenceBundleTool } from './evidenceBundle.js';
import { inspectAnalysisViewTool } from './inspectAnalysisView.js';
import { closeBinaryTool, openBinaryTool } from './openClose.js';

/** The server's own tools: session, target and Evidence tools. */
export const SERVER_TOOLS: readonly AnyToolContract[] = [
  binarySessionTool,
  closeBinaryTool,
  exportEvidenceBundleTool,
  getEvidenceBundleTool,
  importEvidenceBundleTool,
  inspectAnalysisViewTool,
  openBinaryTool,
];
