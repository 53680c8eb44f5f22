import { attribute } from '../format/axml.js';
import type { XmlAttribute, XmlDocument, XmlElement } from '../format/axml.js';
import type { ResourceTable } from '../format/arsc.js';

/** What the manifest reader asks of a resource table (resources.arsc, or a bundle's resources.pb). */
export type ResourceLookup = Pick<ResourceTable, 'resolve' | 'text'>;
import { VALUE } from '../format/resValue.js';

/** An intent filter of a component. */
export interface IntentFilter {
  actions: string[];
  categories: string[];
  data: string[];
}

/** An activity, activity-alias, service, receiver or provider. */
export interface Component {
  kind: 'activity' | 'activity-alias' | 'service' | 'receiver' | 'provider';
  name: string;
  /** android:exported as written, or null when absent. */
  exported_declared: boolean | null;
  /** Whether other apps can reach it: the declared value, else (before API 31) true when it has an intent filter. */
  exported: boolean;
  permission: string | null;
  enabled: boolean | null;
  authorities: string | null;
  intent_filters: IntentFilter[];
}

/** The decoded AndroidManifest.xml, with resource references resolved where a table is present. */
export interface Manifest {
  package: string | null;
  /** The split this APK is (`config.arm64_v8a`, a feature name), or null for a base APK. */
  split: string | null;
  version_code: number | null;
  version_name: string | null;
  min_sdk: number | null;
  target_sdk: number | null;
  max_sdk: number | null;
  compile_sdk: number | null;
  shared_user_id: string | null;
  /**
   * Every `uses-permission` and `uses-permission-sdk-23` in document order, `element` naming which (the
   * latter requests the permission only from API 23 on). `required` false: the app works without it
   * (`android:required="false"`; aapt's optional-permission).
   */
  uses_permissions: {
    name: string;
    element: 'uses-permission' | 'uses-permission-sdk-23';
    max_sdk: number | null;
    required: boolean;
  }[];
  /** `auto`, `internalOnly` or `preferExternal` (the raw value when it is none of them); null when unset. */
  install_location: string | null;
  /**
   * `protection_level` is the attribute's raw text (`0x12`); `protection` names its base type and flags
   * as a manifest spells them (`signature|privileged`).
   */
  permissions: { name: string; protection_level: string | null; protection: string | null }[];
  uses_features: { name: string; required: boolean }[];
  uses_libraries: string[];
  application: {
    name: string | null;
    label: string | null;
    labels: { locale: string; text: string }[];
    debuggable: boolean;
    allow_backup: boolean;
    uses_cleartext_traffic: boolean | null;
    network_security_config: string | null;
    test_only: boolean;
    extract_native_libs: boolean | null;
    app_component_factory: string | null;
  };
  components: Component[];
  launchable_activities: string[];
}

/** The manifest's installLocation, by name (the values of the platform's attribute enum). */
function installLocation(value: number | null): string | null {
  if (value === null) return null;
  return ['auto', 'internalOnly', 'preferExternal'][value] ?? String(value);
}

/** The base types of a permission's protectionLevel (its low four bits), by value. */
const PROTECTION_BASES = ['normal', 'dangerous', 'signature', 'signatureOrSystem', 'internal'];
/** The flags of protectionLevel above its base type, as the platform's attribute names them. */
const PROTECTION_FLAGS: ReadonlyArray<[number, string]> = [
  [0x10, 'privileged'],
  [0x20, 'development'],
  [0x40, 'appop'],
  [0x80, 'pre23'],
  [0x100, 'installer'],
  [0x200, 'verifier'],
  [0x400, 'preinstalled'],
  [0x800, 'setup'],
  [0x1000, 'instant'],
  [0x2000, 'runtime'],
  [0x4000, 'oem'],
  [0x8000, 'vendorPrivileged'],
  [0x10000, 'textClassifier'],
  [0x20000, 'wellbeing'],
  [0x40000, 'documenter'],
  [0x80000, 'configurator'],
  [0x100000, 'incidentReportApprover'],
  [0x200000, 'appPredictor'],
  [0x400000, 'module'],
  [0x800000, 'companion'],
  [0x1000000, 'retailDemo'],
  [0x2000000, 'recents'],
  [0x4000000, 'role'],
  [0x8000000, 'knownSigner'],
];

/**
 * A permission's protectionLevel as a manifest spells it (`signature|privileged`): the base type, then
 * each flag in the order of its value. A base or flag the platform does not name stays a hex number.
 */
export function protectionOf(value: number | null): string | null {
  if (value === null) return null;
  const base = value & 0xf;
  const names = [PROTECTION_BASES[base] ?? `0x${base.toString(16)}`];
  let rest = (value >>> 0) & ~0xf;
  for (const [bit, name] of PROTECTION_FLAGS) {
    if ((rest & bit) === 0) continue;
    names.push(name);
    rest &= ~bit;
  }
  if (rest !== 0) names.push(`0x${(rest >>> 0).toString(16)}`);
  return names.join('|');
}

/** Resolves an attribute to text, following a resource reference through the table. */
function textOf(attr: XmlAttribute | undefined, table: ResourceLookup | null): string | null {
  if (attr === undefined) return null;
  if ((attr.value.type === VALUE.REFERENCE || attr.value.type === VALUE.DYNAMIC_REFERENCE) && table !== null) {
    return table.text(attr.value.data) ?? attr.text;
  }
  return attr.text;
}

function boolOf(attr: XmlAttribute | undefined, table: ResourceLookup | null): boolean | null {
  const text = textOf(attr, table);
  if (text === null) return null;
  if (attr!.value.type === VALUE.BOOLEAN) return attr!.value.data !== 0;
  return text === 'true' ? true : text === 'false' ? false : null;
}

function intOf(attr: XmlAttribute | undefined, table: ResourceLookup | null): number | null {
  if (attr === undefined) return null;
  if (attr.value.type >= VALUE.INT_DEC && attr.value.type <= VALUE.INT_HEX) return attr.value.data | 0;
  const text = textOf(attr, table);
  return text !== null && /^-?\d+$/.test(text) ? Number(text) : null;
}

function className(pkg: string | null, name: string | null): string {
  if (name === null) return '';
  if (name.startsWith('.')) return `${pkg ?? ''}${name}`;
  if (!name.includes('.') && pkg !== null) return `${pkg}.${name}`;
  return name;
}

const COMPONENTS = new Set(['activity', 'activity-alias', 'service', 'receiver', 'provider']);

/** A `uses-permission` or `uses-permission-sdk-23` element. */
function isPermissionRequest(
  element: XmlElement,
): element is XmlElement & { name: Manifest['uses_permissions'][number]['element'] } {
  return element.name === 'uses-permission' || element.name === 'uses-permission-sdk-23';
}

function filters(element: XmlElement, table: ResourceLookup | null): IntentFilter[] {
  return element.children
    .filter((c) => c.name === 'intent-filter')
    .map((f) => ({
      actions: f.children.filter((c) => c.name === 'action').map((c) => textOf(attribute(c, 'name'), table) ?? ''),
      categories: f.children.filter((c) => c.name === 'category').map((c) => textOf(attribute(c, 'name'), table) ?? ''),
      data: f.children
        .filter((c) => c.name === 'data')
        .map((c) => c.attributes.map((a) => `${a.name}=${textOf(a, table) ?? ''}`).join(' ')),
    }));
}

/** Builds the manifest model from a decoded AndroidManifest.xml and, when present, resources.arsc. */
export function readManifest(doc: XmlDocument, table: ResourceLookup | null): Manifest {
  const root = doc.root;
  const kids = (name: string) => root?.children.filter((c) => c.name === name) ?? [];
  const get = (name: string) => (root === null ? undefined : attribute(root, name));
  const pkg = textOf(get('package'), table);
  const sdk = kids('uses-sdk')[0];
  const app = kids('application')[0];
  const targetSdk = sdk === undefined ? null : intOf(attribute(sdk, 'targetSdkVersion'), table);
  const appAttr = (name: string) => (app === undefined ? undefined : attribute(app, name));
  const labelAttr = appAttr('label');
  const labels =
    labelAttr !== undefined && labelAttr.value.type === VALUE.REFERENCE && table !== null
      ? table.resolve(labelAttr.value.data).map((v) => ({ locale: v.locale, text: v.text }))
      : [];
  const components: Component[] = (app?.children ?? [])
    .filter((c) => COMPONENTS.has(c.name))
    .map((c) => {
      const declared = boolOf(attribute(c, 'exported'), table);
      const intentFilters = filters(c, table);
      return {
        kind: c.name as Component['kind'],
        name: className(pkg, textOf(attribute(c, 'name'), table)),
        exported_declared: declared,
        exported: declared ?? (intentFilters.length > 0 && (targetSdk ?? 0) < 31),
        permission: textOf(attribute(c, 'permission'), table),
        enabled: boolOf(attribute(c, 'enabled'), table),
        authorities: textOf(attribute(c, 'authorities'), table),
        intent_filters: intentFilters,
      };
    });
  const launchable = components
    .filter(
      (c) =>
        (c.kind === 'activity' || c.kind === 'activity-alias') &&
        c.intent_filters.some(
          (f) =>
            f.actions.includes('android.intent.action.MAIN') &&
            f.categories.includes('android.intent.category.LAUNCHER'),
        ),
    )
    .map((c) => c.name);
  return {
    package: pkg,
    split: textOf(get('split'), table),
    version_code: intOf(get('versionCode'), table),
    version_name: textOf(get('versionName'), table),
    min_sdk: sdk === undefined ? null : intOf(attribute(sdk, 'minSdkVersion'), table),
    target_sdk: targetSdk,
    max_sdk: sdk === undefined ? null : intOf(attribute(sdk, 'maxSdkVersion'), table),
    compile_sdk: intOf(get('compileSdkVersion'), table),
    shared_user_id: textOf(get('sharedUserId'), table),
    uses_permissions: (root?.children ?? []).filter(isPermissionRequest).map((e) => ({
      name: textOf(attribute(e, 'name'), table) ?? '',
      element: e.name,
      max_sdk: intOf(attribute(e, 'maxSdkVersion'), table),
      required: boolOf(attribute(e, 'required'), table) ?? true,
    })),
    install_location: installLocation(intOf(get('installLocation'), table)),
    permissions: kids('permission').map((e) => ({
      name: textOf(attribute(e, 'name'), table) ?? '',
      protection_level: textOf(attribute(e, 'protectionLevel'), table),
      protection: protectionOf(intOf(attribute(e, 'protectionLevel'), table)),
    })),
    uses_features: kids('uses-feature').map((e) => ({
      name: textOf(attribute(e, 'name'), table) ?? textOf(attribute(e, 'glEsVersion'), table) ?? '',
      required: boolOf(attribute(e, 'required'), table) ?? true,
    })),
    uses_libraries: (app?.children ?? [])
      .filter((c) => c.name === 'uses-library')
      .map((c) => textOf(attribute(c, 'name'), table) ?? ''),
    application: {
      name:
        app === undefined
          ? null
          : textOf(appAttr('name'), table) === null
            ? null
            : className(pkg, textOf(appAttr('name'), table)),
      label: textOf(labelAttr, table),
      labels,
      debuggable: boolOf(appAttr('debuggable'), table) ?? false,
      allow_backup: boolOf(appAttr('allowBackup'), table) ?? true,
      uses_cleartext_traffic: boolOf(appAttr('usesCleartextTraffic'), table),
      network_security_config: textOf(appAttr('networkSecurityConfig'), table),
      test_only: boolOf(appAttr('testOnly'), table) ?? false,
      extract_native_libs: boolOf(appAttr('extractNativeLibs'), table),
      app_component_factory: textOf(appAttr('appComponentFactory'), table),
    },
    components,
    launchable_activities: launchable,
  };
}
