import { ReaError } from '@rea/evidence';
import type { IntegrityContradiction } from './schemas.js';

/** A contradiction observed while reading one entry, before the policy decides what happens. */
export interface ObservedContradiction {
  path: string;
  algorithm: IntegrityContradiction['algorithm'];
  declared: string;
  observed: string;
  observedSha256: string | null;
  provenance: IntegrityContradiction['provenance'];
  unpacked: boolean;
}

/** The `artifact_integrity_mismatch` error for a contradiction under the fail-closed policy. */
export function integrityMismatch(
  c: ObservedContradiction,
  operation: 'inspect_artifact' | 'extract_artifact',
): ReaError {
  const rerun = `rerun ${operation} with integrity_policy "record-and-continue"`;
  const cause = c.unpacked
    ? ` It is an .asar.unpacked entry: packaging tools commonly sign or strip unpacked native files after the archive header is written, so the declared hash no longer matches (Electron does not check unpacked files at runtime). If that explains it, ${rerun} to record the contradiction and continue.`
    : ` To record the contradiction and continue with verified entries, ${rerun}.`;
  return new ReaError(
    'artifact_integrity_mismatch',
    `Integrity mismatch at ${c.path}: declared ${c.algorithm} ${c.declared}, observed ${c.observed}.${cause}`,
    {
      details: {
        path: c.path,
        declared: c.declared,
        observed: c.observed,
        algorithm: c.algorithm,
        unpacked: c.unpacked,
        provenance: c.provenance,
      },
      remediation: `Obtain intact bytes, or ${rerun}.`,
    },
  );
}

/** The record kept under record-and-continue. */
export function contradictionRecord(c: ObservedContradiction, quarantined: boolean): IntegrityContradiction {
  return {
    path: c.path,
    algorithm: c.algorithm,
    declared: c.declared,
    observed: c.observed,
    observed_sha256: c.observedSha256,
    trust: 'contradicted',
    provenance: c.provenance,
    unpacked: c.unpacked,
    quarantined,
  };
}
