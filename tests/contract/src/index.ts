/**
 * @rea/contract-tests — the cross-package contract suites (private). Every export is used by other
 * packages' tests.
 */
export { describeProviderContract } from './describeProviderContract.js';
export type { CapabilityCheckContext, ContractTarget, ProviderContractOptions } from './describeProviderContract.js';
