// Builders of realistic observations for the tests of this package.
import { createAnalysisProfile, sealEvidence } from '@rea/evidence';
import type { EvidenceRecord, JsonValue, UnsignedEvidence } from '@rea/evidence';
import { createHash } from 'node:crypto';

/** SHA-256 of a label, standing in for the hash of an artifact's bytes. */
export function sha(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

/** An observation of `analyze_function` on the procedure at `address`, with `rows` assembly rows. */
export function functionObservation(address: string, rows = 3, target = 'a.out'): UnsignedEvidence {
  return {
    operation: 'analyze_function',
    subject: { format: 'elf', sha256: sha(target), size: 16_384 },
    provider: { id: 'capstone', name: 'Capstone', version: '5.0.1' },
    analysis_profile: createAnalysisProfile({ name: 'default', version: '1', settings: { max_rows: 10_000 } }),
    parameters: { address },
    normalized_result: {
      procedure: {
        address,
        name: `fn_${address}`,
        assembly: Array.from({ length: rows }, (_, i) => ({
          address: `0x${(Number(address) + i * 4).toString(16)}`,
          mnemonic: i % 2 === 0 ? 'mov' : 'call',
          operands: `rax, ${i}`,
        })),
        pseudocode: `int fn(void) {\n  return ${rows};\n}\n`,
      },
      callers: [{ id: 'c1', address: '0x400000' }],
    },
    raw_result: null,
    confidence: 'observed',
    limitations: [{ kind: 'indirect-call', message: 'One indirect call target is unknown.', scope: address }],
    coverage: { status: 'complete', reasons: [] },
    locations: [{ kind: 'address', value: address }],
    evidence_links: [],
  };
}

/** A sealed `analyze_function` record. */
export function functionRecord(address: string, rows = 3, target = 'a.out'): EvidenceRecord {
  return sealEvidence(functionObservation(address, rows, target));
}

/** A sealed record whose normalized_result is `result`. */
export function recordWith(result: JsonValue, operation = 'inspect_artifact'): EvidenceRecord {
  return sealEvidence({ ...functionObservation('0x401000'), operation, normalized_result: result });
}

/** What a test reads of a thrown ReaError. */
interface Caught {
  code: string;
  message: string;
  details: Record<string, unknown>;
  remediation?: string;
}

/** The thrown value of `fn`, or a failure when it does not throw. */
export function caught(fn: () => unknown): Caught {
  try {
    fn();
  } catch (error) {
    return error as Caught;
  }
  throw new Error('expected a thrown error');
}

/** The rejection of `promise`, or a failure when it resolves. */
export async function rejected(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; remediation: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: string; message: string; remediation: string; details: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}
