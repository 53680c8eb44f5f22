/**
 * @rea/test-helpers — fixtures and fixture builders shared by the test suites (private).
 */
export { sharedTestdata, withTempDir } from './files.js';
export { skipUnless } from './gate.js';
