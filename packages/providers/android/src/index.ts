/**
 * @rea/provider-android — every export of this module is public API.
 *
 * Android package analysis without a JVM: APK, AAB, split-APK sets and DEX files decoded by this
 * package's own parsers (binary XML, resources.arsc, DEX, JAR and APK Signing Block certificates).
 */
export { ANDROID_PROVIDER_VERSION } from './version.js';
export { ANDROID_CAPABILITIES, androidTools, createAndroidProvider } from './provider.js';
export { ANDROID_PROVIDER } from './tools/common.js';
export { AndroidPackageSchema } from './tools/schemas.js';
export { inspectAndroidPackageTool } from './tools/inspectAndroidPackage.js';
export { ClassSearchSchema, searchAndroidClassesTool } from './tools/searchAndroidClasses.js';
export { AndroidClassSchema, inspectAndroidClassTool } from './tools/inspectAndroidClass.js';
export { AndroidMethodSchema, inspectAndroidMethodTool } from './tools/inspectAndroidMethod.js';
export { ReferenceTraceSchema, traceAndroidReferencesTool } from './tools/traceAndroidReferences.js';
export { ApplicationGraphSchema, projectAndroidApplicationGraphTool } from './tools/projectAndroidApplicationGraph.js';
export { parseBinaryXml } from './format/axml.js';
export type { XmlAttribute, XmlDocument, XmlElement } from './format/axml.js';
export { ResourceTable } from './format/arsc.js';
export type { ResourceSummary, ResourceValue } from './format/arsc.js';
export { DexFile } from './format/dex/file.js';
export { disassemble } from './format/dex/disassemble.js';
export type { Disassembly, Instruction } from './format/dex/disassemble.js';
export { certificateSummary, pkcs7Certificates } from './format/der.js';
export type { CertificateSummary } from './format/der.js';
/** @rea/provider-android — every export of this module is public API. */
export { ANDROID_DEVICE_CAPABILITIES, ANDROID_DEVICE_SETTINGS, createAndroidDeviceProvider } from './device/index.js';
export type { AndroidDeviceProviderOptions } from './device/index.js';
