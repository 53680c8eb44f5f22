/**
 * @rea/artifact — every export of this module is public API.
 *
 * Containers (ZIP and ZIP-based packages, ASAR, directories, DMG, single files): inventory with
 * streamed hashes, integrity policies, safe extraction and comparison, and the tools built on them.
 */
export { ARTIFACT_PACKAGE_VERSION } from './version.js';
