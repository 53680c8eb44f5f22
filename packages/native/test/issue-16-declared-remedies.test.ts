// The remedy for a capability the bound provider lacks names the providers of the native port that
// declare it in the host's registry (ProviderBinding.peers), not a fixed list of engine names.
import { describe, expect, it } from '@jest/globals';
import { NATIVE_CAPABILITIES, createNativeTools } from '@rea/native';
import { executeTool } from '@rea/provider-kit';
import { isReaError } from '@rea/evidence';
import { contextFor, scriptedPort } from './scriptedPort.js';

const ALL = NATIVE_CAPABILITIES.filter((c) => c !== 'pseudocode' && c !== 'comments');
const pseudocode = createNativeTools().find((tool) => tool.name === 'procedure_pseudo_code')!;

async function refusal(context: ReturnType<typeof contextFor>) {
  try {
    await executeTool(pseudocode, { procedure: 'main' }, context);
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; remediation: string; details: Record<string, unknown> };
  }
  throw new Error('expected a refusal');
}

describe('issue 16: remedies from declared capabilities', () => {
  it('should name the one native provider of the registry that declares the capability', async () => {
    const peers = [
      { id: 'scripted', name: 'Scripted stand-in', capabilities: ['procedures'] },
      { id: 'decompiler', name: 'A decompiler', capabilities: ['procedures', 'pseudocode'] },
      { id: 'lister', name: 'A lister', capabilities: ['procedures', 'strings'] },
    ];
    const error = await refusal(contextFor(scriptedPort(ALL), peers));
    expect(error).toMatchObject({
      code: 'capability_unavailable',
      details: { capability: 'pseudocode', provider_id: 'scripted', alternatives: ['decompiler'] },
    });
    expect(error.remediation).toContain('provider_id "decompiler"');
    expect(error.remediation).not.toMatch(/ghidra|hopper/i);
  });

  it('should say to install a provider when none of the registry declares it', async () => {
    const peers = [{ id: 'scripted', name: 'Scripted stand-in', capabilities: ['procedures'] }];
    const error = await refusal(contextFor(scriptedPort(ALL), peers));
    expect(error.details).toMatchObject({ capability: 'pseudocode', alternatives: [] });
    expect(error.remediation).toMatch(/No native-analysis provider of this installation declares pseudocode/);
  });
});
