import { z } from 'zod';

const n = z.number().int().nullable();
const s = z.string().nullable();

const CertificateSchema = z.strictObject({
  subject: z.string(),
  issuer: z.string(),
  serial: z.string().describe('Hex.'),
  not_before: z.string(),
  not_after: z.string(),
  public_key_algorithm: z.string(),
  sha256: z.string().describe('SHA-256 of the DER certificate.'),
});

const ComponentSchema = z.strictObject({
  kind: z.enum(['activity', 'activity-alias', 'service', 'receiver', 'provider']),
  name: z.string(),
  exported_declared: z.boolean().nullable(),
  exported: z.boolean().describe('Declared value, else true when it has an intent filter and targetSdk < 31.'),
  permission: s,
  enabled: z.boolean().nullable(),
  authorities: s,
  intent_filters: z.array(
    z.strictObject({ actions: z.array(z.string()), categories: z.array(z.string()), data: z.array(z.string()) }),
  ),
});

const ManifestSchema = z.strictObject({
  package: s,
  split: z.string().nullable().describe('Split name (config.arm64_v8a, a feature); null for a base APK.'),
  version_code: n,
  version_name: s,
  min_sdk: n,
  target_sdk: n,
  max_sdk: n,
  compile_sdk: n,
  shared_user_id: s,
  uses_permissions: z
    .array(
      z.strictObject({
        name: z.string(),
        element: z
          .enum(['uses-permission', 'uses-permission-sdk-23'])
          .describe('The manifest element; uses-permission-sdk-23 requests the permission only from API 23 on.'),
        max_sdk: n,
        required: z.boolean().describe('false: android:required="false", the app works without it.'),
      }),
    )
    .describe('Every uses-permission and uses-permission-sdk-23 element, in document order.'),
  install_location: s.describe('auto, internalOnly or preferExternal; null when unset.'),
  permissions: z.array(
    z.strictObject({
      name: z.string(),
      protection_level: s.describe('The protectionLevel attribute as written (0x12).'),
      protection: s.describe(
        'protectionLevel by name, as a manifest spells it: the base type, then its flags (signature|privileged).',
      ),
    }),
  ),
  uses_features: z.array(z.strictObject({ name: z.string(), required: z.boolean() })),
  uses_libraries: z.array(z.string()),
  application: z.strictObject({
    name: s,
    label: s,
    labels: z.array(z.strictObject({ locale: z.string(), text: z.string() })).describe('The label in every locale.'),
    debuggable: z.boolean(),
    allow_backup: z.boolean(),
    uses_cleartext_traffic: z.boolean().nullable(),
    network_security_config: s,
    test_only: z.boolean(),
    extract_native_libs: z.boolean().nullable(),
    app_component_factory: s,
  }),
  components: z.array(ComponentSchema),
  launchable_activities: z.array(z.string()),
});

const ScopeSchema = z.strictObject({
  domains: z.array(z.strictObject({ name: z.string(), include_subdomains: z.boolean() })),
  cleartext_permitted: z.boolean().nullable(),
  trust_anchors: z.array(z.string()),
  pins: z.number().int(),
});

const SigningBlockSchema = z.strictObject({
  present: z.boolean(),
  schemes: z.array(z.string()),
  signers: z.array(
    z.strictObject({
      scheme: z.string(),
      certificates: z.array(CertificateSchema),
      digests: z.array(z.strictObject({ algorithm: z.string(), digest: z.string() })),
      min_sdk: n,
      max_sdk: n,
      lineage: z
        .array(z.strictObject({ certificate: CertificateSchema, capabilities: z.array(z.string()) }))
        .nullable()
        .describe('v3 key rotation: certificates oldest first, with capabilities kept.'),
    }),
  ),
  other_blocks: z.array(z.string()),
  problems: z.array(z.string()),
});

const UnitSchema = z.strictObject({
  name: z.string().describe('"" for the package itself, else the nested APK or bundle module.'),
  kind: z.enum(['apk', 'aab-module', 'dex']),
  manifest: ManifestSchema.nullable(),
  network_security_config: z
    .strictObject({
      path: z.string(),
      base: ScopeSchema.nullable(),
      domains: z.array(ScopeSchema),
      debug_overrides: z.boolean(),
    })
    .nullable(),
  resources: z
    .strictObject({
      packages: z.array(
        z.strictObject({
          id: z.number().int(),
          name: z.string(),
          types: z.array(
            z.strictObject({ name: z.string(), entries: z.number().int(), configurations: z.number().int() }),
          ),
        }),
      ),
      locales: z.array(z.string()),
      strings: z.number().int(),
    })
    .nullable(),
  dex: z.array(
    z.strictObject({
      path: z.string(),
      version: z.string(),
      classes: z.number().int(),
      methods: z.number().int(),
      fields: z.number().int(),
      strings: z.number().int(),
      types: z.number().int(),
    }),
  ),
  native_libraries: z.array(z.strictObject({ abi: z.string(), libraries: z.array(z.string()) })),
  assets: z.strictObject({ count: z.number().int(), paths: z.array(z.string()) }),
  v1_signers: z.array(z.strictObject({ path: z.string(), certificates: z.array(CertificateSchema) })),
  signing_block: SigningBlockSchema.nullable().describe('Of an APK inside a set; null otherwise.'),
});

/** `normalized_result` of `inspect_android_package`. */
export const AndroidPackageSchema = z.strictObject({
  format: z.enum(['apk', 'aab', 'apk-set', 'dex']),
  units: z.array(UnitSchema),
  signing_block: SigningBlockSchema.nullable().describe('APK Signing Block (v2/v3) of a single APK; null otherwise.'),
  signature_verification: z
    .array(
      z.strictObject({
        unit: z.string().describe('"" for the file itself, else the APK inside the set.'),
        scheme: z.enum(['v1', 'v2', 'v3', 'v3.1']),
        status: z.enum(['verified', 'failed', 'absent', 'unsupported']),
        reason: s,
        signers: z.number().int(),
        accepted_sdk: z
          .array(z.strictObject({ min_sdk: n, max_sdk: n }))
          .describe(
            'Per signer of a verified scheme: Android API levels accepting its signature algorithms (min null: none; max null: unbounded).',
          ),
      }),
    )
    .nullable()
    .describe(
      'Per scheme: signatures and digests checked against the bytes. Null for a DEX file or folder, or verify_signatures false.',
    ),
});
