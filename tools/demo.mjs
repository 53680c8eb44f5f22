// REA's main job on an example that ships in the repository. Replaced by `rea analyze` once the CLI
// lands; until then it shows the newest real capability: sealing an observation of a file's bytes as a
// content-addressed Evidence record, and verifying it again.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './workspace.mjs';

const { sealEvidence, parseEvidence, canonicalJson } = await import(join(repoRoot, 'packages/evidence/dist/index.js'));
const path = process.argv[2] ?? join(repoRoot, 'examples', 'hello.json');
const bytes = readFileSync(path);
const record = sealEvidence({
  operation: 'inspect_file',
  subject: { format: 'json', sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length },
  provider: { id: 'demo', name: 'REA demo', version: '0.0.0' },
  analysis_profile: null,
  parameters: {},
  normalized_result: JSON.parse(bytes.toString('utf8')),
  raw_result: null,
  confidence: 'observed',
  limitations: [],
  coverage: { status: 'complete', reasons: [] },
  locations: [],
  evidence_links: [],
  local: { path },
});
parseEvidence(record);
process.stdout.write(canonicalJson(record) + '\n');
