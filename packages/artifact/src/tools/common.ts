import { createAnalysisProfile } from '@rea/evidence';
import type { JsonObject, ProviderIdentity } from '@rea/evidence';
import { z } from 'zod';
import { ARTIFACT_PACKAGE_VERSION } from '../version.js';
import { IntegrityPolicySchema } from '../schemas.js';

/** The identity recorded as `provider` in artifact Evidence. */
export const ARTIFACT_PROVIDER: ProviderIdentity = Object.freeze({
  id: 'artifact',
  name: '@rea/artifact',
  version: ARTIFACT_PACKAGE_VERSION,
});

/** The analysis profile of an artifact operation: its name and the settings that shaped it. */
export function artifactProfile(name: string, settings: JsonObject) {
  return createAnalysisProfile({ name: `artifact-${name}`, version: '1', settings });
}

/** The input fields shared by inventory and extraction. */
export const pathInput = z
  .string()
  .min(1)
  .describe(
    'Local path of the artifact: a ZIP-based package, an ASAR archive, a directory or .app bundle, a DMG, or any file.',
  );

/** The `integrity_policy` input property. */
export const policyInput = IntegrityPolicySchema.default('fail-closed').describe(
  'fail-closed (default) stops at the first contradiction with artifact_integrity_mismatch; record-and-continue quarantines contradicted entries, records them in integrity_contradictions and continues with verified siblings (coverage partial).',
);
