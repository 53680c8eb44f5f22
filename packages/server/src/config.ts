import { ReaError } from '@rea/evidence';
import { DEFAULT_MAX_RESPONSE_BYTES } from './budget.js';

/** The input-schema profile the catalog is advertised in. */
export type SchemaProfile = 'full' | 'compact';

/** The settings the server reads once, at startup. */
export interface ServerConfig {
  /** `REA_MCP_MAX_RESPONSE_BYTES`: safe integer ≥ 10485760; 1024 of it is the envelope reserve. */
  maxResponseBytes: number;
  /** `REA_MCP_INPUT_SCHEMA_PROFILE`: `full` (default) or `compact`. */
  inputSchemaProfile: SchemaProfile;
  /** `REA_ANALYSIS_PROVIDER`: the provider choice used when `open_binary` names none. */
  analysisProvider: string | null;
}

function invalid(variable: string, value: string, accepted: string): ReaError {
  return new ReaError('configuration_invalid', `${variable}=${JSON.stringify(value)} is not ${accepted}.`, {
    details: { variable, value, accepted },
  });
}

/**
 * Reads the server's settings from `env`. Unset or empty variables take their defaults; a value
 * outside its accepted form is `configuration_invalid` naming the variable, the value and the form.
 */
export function readServerConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const rawBytes = env['REA_MCP_MAX_RESPONSE_BYTES'];
  let maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
  if (rawBytes !== undefined && rawBytes !== '') {
    const accepted = `a decimal integer from ${DEFAULT_MAX_RESPONSE_BYTES} to ${Number.MAX_SAFE_INTEGER}`;
    if (!/^[0-9]+$/.test(rawBytes)) throw invalid('REA_MCP_MAX_RESPONSE_BYTES', rawBytes, accepted);
    const value = Number(rawBytes);
    if (!Number.isSafeInteger(value) || value < DEFAULT_MAX_RESPONSE_BYTES) {
      throw invalid('REA_MCP_MAX_RESPONSE_BYTES', rawBytes, accepted);
    }
    maxResponseBytes = value;
  }
  const rawProfile = env['REA_MCP_INPUT_SCHEMA_PROFILE'];
  let inputSchemaProfile: SchemaProfile = 'full';
  if (rawProfile !== undefined && rawProfile !== '') {
    if (rawProfile !== 'full' && rawProfile !== 'compact') {
      throw invalid('REA_MCP_INPUT_SCHEMA_PROFILE', rawProfile, '"full" or "compact"');
    }
    inputSchemaProfile = rawProfile;
  }
  const provider = env['REA_ANALYSIS_PROVIDER'];
  return { maxResponseBytes, inputSchemaProfile, analysisProvider: provider ? provider : null };
}
