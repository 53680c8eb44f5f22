// The key facts of an `inspect_android_package` record for the readable report of `rea analyze`. The
// CLI imports no provider: the result is read as plain JSON, and a shape this does not recognise is left
// to the generic summary (null).

type Json = Record<string, unknown>;

/** Most units (APKs of a set, modules of a bundle) summarised one by one. */
const MAX_UNITS = 8;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isObject) : []);

const shown = (value: unknown): string => (value === null || value === undefined ? 'none' : String(value));

const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

const COMPONENTS: ReadonlyArray<[kind: string, one: string, many: string]> = [
  ['activity', 'activity', 'activities'],
  ['activity-alias', 'activity alias', 'activity aliases'],
  ['service', 'service', 'services'],
  ['receiver', 'receiver', 'receivers'],
  ['provider', 'provider', 'providers'],
];

function manifestFacts(manifest: Json, indent: string): string[] {
  const split = typeof manifest['split'] === 'string' ? ` (split ${manifest['split']})` : '';
  const sdk = [`min ${shown(manifest['min_sdk'])}`, `target ${shown(manifest['target_sdk'])}`];
  if (typeof manifest['max_sdk'] === 'number') sdk.push(`max ${manifest['max_sdk']}`);
  const components = list(manifest['components']);
  const byKind = COMPONENTS.filter(([kind]) => kind !== 'activity-alias' || components.some((c) => c['kind'] === kind))
    .map(([kind, one, many]) => count(components.filter((c) => c['kind'] === kind).length, one, many))
    .join(', ');
  const exported = components.filter((c) => c['exported'] === true).length;
  return [
    `${indent}package: ${shown(manifest['package'])}${split}`,
    `${indent}version: code ${shown(manifest['version_code'])}, name ${shown(manifest['version_name'])}`,
    `${indent}sdk: ${sdk.join(', ')}`,
    `${indent}permissions: ${list(manifest['uses_permissions']).length} requested, ${list(manifest['permissions']).length} declared`,
    `${indent}components: ${byKind} (${exported} exported)`,
  ];
}

function unitFacts(unit: Json, indent: string): string[] {
  const lines: string[] = [];
  if (isObject(unit['manifest'])) lines.push(...manifestFacts(unit['manifest'], indent));
  else if (unit['kind'] !== 'dex') lines.push(`${indent}manifest: none`);
  const dex = list(unit['dex']);
  const total = (key: string) => dex.reduce((sum, file) => sum + (typeof file[key] === 'number' ? file[key] : 0), 0);
  lines.push(
    dex.length === 0
      ? `${indent}dex: none`
      : `${indent}dex: ${count(dex.length, 'file', 'files')}, ${count(total('classes'), 'class', 'classes')}, ${count(total('methods'), 'method', 'methods')}`,
  );
  const abis = list(unit['native_libraries']).map((abi) => {
    const libraries = Array.isArray(abi['libraries']) ? abi['libraries'].length : 0;
    return `${shown(abi['abi'])} (${libraries})`;
  });
  if (abis.length > 0) lines.push(`${indent}native libraries: ${abis.join(', ')}`);
  return lines;
}

function signatureFacts(verification: Json[], unit: string, indent: string): string[] {
  const schemes = verification.filter((v) => v['unit'] === unit);
  if (schemes.length === 0) return [];
  const statuses = schemes.map((v) => {
    const reason = typeof v['reason'] === 'string' && v['status'] !== 'verified' ? ` (${v['reason']})` : '';
    return `${shown(v['scheme'])} ${shown(v['status'])}${reason}`;
  });
  return [`${indent}signatures: ${statuses.join(', ')}`];
}

/**
 * The readable facts of an `inspect_android_package` result, one line each under `indent`: its format;
 * per unit the package, versions, SDK levels, permission and component counts, DEX files with their
 * class and method counts, native libraries; and each signature scheme's verification status. Null
 * when `result` does not have that tool's shape.
 */
export function androidPackageFacts(result: unknown, indent = '    '): string[] | null {
  if (!isObject(result) || typeof result['format'] !== 'string' || !Array.isArray(result['units'])) return null;
  const units = list(result['units']);
  const verification = list(result['signature_verification']);
  const lines = [`${indent}format: ${result['format']}`];
  const whole = units.length === 1 && units[0]!['name'] === '';
  if (whole) lines.push(...unitFacts(units[0]!, indent));
  else {
    for (const unit of units.slice(0, MAX_UNITS)) {
      lines.push(`${indent}unit ${shown(unit['name'])} (${shown(unit['kind'])}):`);
      lines.push(
        ...unitFacts(unit, `${indent}  `),
        ...signatureFacts(verification, String(unit['name']), `${indent}  `),
      );
    }
    if (units.length > MAX_UNITS) lines.push(`${indent}… ${units.length - MAX_UNITS} more units (use --format json)`);
  }
  if (result['signature_verification'] === null) {
    lines.push(
      `${indent}signatures: ${result['format'] === 'dex' ? 'none (a DEX file is not signed)' : 'not verified'}`,
    );
  } else lines.push(...signatureFacts(verification, '', indent));
  return lines;
}
