// v3 key rotation: a v3 signer's proof-of-rotation attribute lists the signing certificates from the
// oldest to the current one, each with the capabilities it keeps. Checked against
// `apksigner lineage --print-certs` on apksig's rotated-key sample APKs that androguard ships.
import { describe, expect, it } from '@jest/globals';
import { inspectAndroidPackageTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const APKSIG = `${SAMPLES}/signing/apksig`;

interface Report {
  signing_block: {
    signers: {
      scheme: string;
      certificates: { sha256: string }[];
      lineage: { certificate: { subject: string; sha256: string }; capabilities: string[] }[] | null;
    }[];
  } | null;
}

const NAMES: Record<string, string> = {
  'installed data': 'installed-data',
  'shared UID': 'shared-uid',
  permission: 'permission',
  rollback: 'rollback',
  auth: 'auth',
};

/** apksigner's lineage: each certificate's SHA-256 with the capabilities it keeps. */
function apksignerLineage(apk: string): { sha256: string; capabilities: string[] }[] {
  const text = output('apksigner', ['lineage', '--in', apk, '--print-certs', '-v']);
  return text
    .split(/^(?=Signer #\d+ in lineage certificate DN)/m)
    .filter((block) => block.startsWith('Signer'))
    .map((block) => ({
      sha256: /certificate SHA-256 digest: ([0-9a-f]+)/.exec(block)![1]!,
      capabilities: [...block.matchAll(/^Has (.+?) capability *: (true|false)$/gm)]
        .filter((m) => m[2] === 'true')
        .map((m) => NAMES[m[1]!]!),
    }));
}

describe('v3 signing certificate lineage', () => {
  it.each([
    'golden-aligned-v3-lineage-out.apk',
    'golden-aligned-v1v2v3-lineage-out.apk',
    'v1v2v3-with-rsa-2048-lineage-3-signers.apk',
  ])('reports the lineage of %s as apksigner prints it', async (file) => {
    const apk = `${APKSIG}/${file}`;
    const expected = apksignerLineage(apk);
    expect(expected.length).toBeGreaterThan(1);
    const { normalized_result } = await runTool<Report>(inspectAndroidPackageTool, { path: apk });
    const v3 = normalized_result.signing_block!.signers.filter((s) => s.scheme === 'v3');
    expect(v3).toHaveLength(1);
    const lineage = v3[0]!.lineage!;
    expect(lineage.map((l) => ({ sha256: l.certificate.sha256, capabilities: l.capabilities }))).toEqual(expected);
    // The newest certificate of the lineage is the signer's own.
    expect(lineage.at(-1)!.certificate.sha256).toBe(v3[0]!.certificates[0]!.sha256);
    for (const s of normalized_result.signing_block!.signers.filter((x) => x.scheme === 'v2')) {
      expect(s.lineage).toBeNull();
    }
  });
});
