import type { z } from 'zod';
import type * as Evidence from '@rea/evidence';

/** One synthetic tool: the structural shape @rea/schema projects. */
export interface SyntheticTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodType;
  output: z.ZodType;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  examples: ReadonlyArray<{ input: unknown; advertised?: boolean; description?: string }>;
}

/** Builds the synthetic catalog with the given zod and @rea/evidence modules. */
export function createSyntheticCatalog(deps: { z: typeof z; evidence: typeof Evidence }): {
  tools: SyntheticTool[];
  records: { capture: Record<string, unknown>; overview: Record<string, unknown> };
};
