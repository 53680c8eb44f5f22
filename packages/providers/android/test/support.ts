import { execFileSync } from 'node:child_process';
import { quietToolContext } from '@rea/test-helpers';
import type { AnyToolContract } from '@rea/provider-kit';
import type { Coverage, Limitation } from '@rea/evidence';

/** Where Debian's androguard package installs its sample APK and DEX files. */
export const SAMPLES = '/usr/share/doc/androguard/examples';

/** Runs a tool from source with its input parsed as the host would, returning its Evidence fields. */
export async function runTool<R = Record<string, unknown>>(
  tool: AnyToolContract,
  input: Record<string, unknown>,
): Promise<{ normalized_result: R; limitations: Limitation[]; coverage: Coverage }> {
  const parsed: unknown = tool.input.parse(input);
  return (await tool.run(parsed as never, quietToolContext())) as never;
}

/** Standard output of a command (which must succeed). */
export function output(command: string, args: string[]): string {
  return execFileSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** The signing samples (keys, certificates, APKs) of Debian's androguard package. */
export const APKSIG = `${SAMPLES}/signing/apksig`;

/** Signs the apksig golden APK with the sample RSA 2048 key (v1, v2, v3 for min SDK 18) into `out`. */
export function signGoldenApk(out: string): string {
  execFileSync('apksigner', [
    'sign',
    '--key',
    `${APKSIG}/rsa-2048.pk8`,
    '--cert',
    `${APKSIG}/rsa-2048.x509.pem`,
    '--min-sdk-version',
    '18',
    '--out',
    out,
    `${APKSIG}/golden-aligned-in.apk`,
  ]);
  return out;
}

/**
 * Writes into a DEX file's header the Adler-32 checksum of its bytes (everything after that field), as
 * a DEX made with those bytes would carry: a test that damages one structure on purpose keeps the file
 * otherwise valid, so that the damage it means to test is what is found.
 */
export function resealDex(bytes: Buffer): Buffer {
  let a = 1;
  let b = 0;
  for (let i = 12; i < bytes.length; i += 1) {
    a = (a + bytes[i]!) % 65521;
    b = (b + a) % 65521;
  }
  bytes.writeUInt32LE(((b << 16) | a) >>> 0, 8);
  return bytes;
}
