// What is kept when the analysis worker is ended by a hard bound (its heap exhausted, or the deadline
// passed) in the middle of the parse: the records of the scripts it finished, which it handed over one
// by one. The script it was on is named, it and the scripts after it become per-file unknowns, and the
// later phases run over the rest.
import type { Collector } from './collector.js';
import { fileRecord } from './fileRecord.js';
import type { Prelude } from './analyze.js';

/** The hard bound that ended a worker. */
export interface HardBound {
  resource: 'memory' | 'cpu';
  /** For a person: "exhausted its 64 MiB heap limit", "reached its 600000 ms deadline". */
  what: string;
  /** The setting to raise. */
  setting: 'max_heap_mb' | 'max_duration_ms';
}

/** The script the worker was on when it ended: the first without a record, or null when all have one. */
export function scriptAt(c: Collector, prelude: Prelude): { path: string; node_id: string } | null {
  return prelude.scripts[c.fileCount] ?? null;
}

/**
 * Completes the parse phase of `c` after `bound` ended the worker: returns false (nothing worth keeping)
 * when no script was parsed, else records the unknowns and the parse coverage and returns true.
 */
export function keepFinished(c: Collector, prelude: Prelude, bound: HardBound): boolean {
  if (c.roleFiles.length === 0) return false;
  const remediation = `Raise ${bound.setting}, or analyze a smaller part of the application (one directory or archive).`;
  const at = c.fileCount;
  const rest = prelude.scripts.slice(at);
  const culprit = rest[0];
  // Everything was parsed and recorded: the bound cost nothing the result needs.
  if (culprit === undefined && c.hasPhase('parse')) return true;
  if (culprit !== undefined) {
    c.unknown(
      culprit.node_id,
      bound.resource === 'memory' ? 'heap-exhausted' : 'deadline-reached',
      `The analysis ${bound.what} while analyzing this script; it was not analyzed. ${remediation}`,
    );
    c.file(fileRecord(culprit.path, null));
  }
  for (const script of rest.slice(1)) {
    c.unknown(script.node_id, 'not-parsed-resource-bound', `Not parsed: the analysis ${bound.what} before it.`);
    c.file(fileRecord(script.path, null));
  }
  const where = culprit === undefined ? 'after the parse' : `at ${culprit.path}`;
  c.unknown(
    'application',
    `stopped-at-${bound.resource}-bound`,
    `The analysis ${bound.what} ${where}; ${rest.length} scripts were not analyzed. ${remediation}`,
  );
  if (!c.hasPhase('parse')) {
    const parsed = c.roleFiles.length;
    const total = prelude.scripts.length;
    c.phase('parse', [
      ...(parsed === total ? [] : [`${total - parsed} of ${total} scripts not parsed`]),
      `the analysis ${bound.what} ${where}`,
    ]);
  }
  return true;
}
