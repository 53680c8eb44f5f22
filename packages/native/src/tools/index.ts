import type { AnyToolContract } from '@rea/provider-kit';
import { binaryOverview, listSegments } from './overview.js';
import {
  listProcedures,
  procedureAddress,
  procedureInfo,
  resolveContainingProcedure,
  searchProcedures,
} from './procedures.js';
import { procedureAssembly, procedurePseudoCode, readFunctionInstructions } from './code.js';
import { procedureCallees, procedureCallers, procedureReferences, xrefs } from './relations.js';
import { addressName, listNames, listStrings, searchStrings } from './data.js';
import { analyzeFunction } from './dossier.js';
import { compareFunctions } from './compare.js';
import { getCallGraph, traceCallPath } from './graph.js';
import {
  currentAddress,
  currentDocument,
  currentProcedure,
  getNavigationContext,
  gotoAddress,
  inspectAddressContext,
} from './navigation.js';

/** Every native tool contract, sorted by name. */
export function createNativeTools(): AnyToolContract[] {
  const tools: AnyToolContract[] = [
    addressName,
    analyzeFunction,
    binaryOverview,
    compareFunctions,
    currentAddress,
    currentDocument,
    currentProcedure,
    getCallGraph,
    getNavigationContext,
    gotoAddress,
    inspectAddressContext,
    listNames,
    listProcedures,
    listSegments,
    listStrings,
    procedureAddress,
    procedureAssembly,
    procedureCallees,
    procedureCallers,
    procedureInfo,
    procedurePseudoCode,
    procedureReferences,
    readFunctionInstructions,
    resolveContainingProcedure,
    searchProcedures,
    searchStrings,
    traceCallPath,
    xrefs,
  ];
  return tools.sort((a, b) => (a.name < b.name ? -1 : 1));
}
