import type { AnyToolContract } from '@rea/provider-kit';

type Loader = () => Promise<Record<string, unknown>>;

const overview: Loader = () => import('./overview.js');
const procedures: Loader = () => import('./procedures.js');
const code: Loader = () => import('./code.js');
const relations: Loader = () => import('./relations.js');
const data: Loader = () => import('./data.js');
const navigation: Loader = () => import('./navigation.js');

/**
 * Where each native tool contract is declared: the module that builds it and the name it exports.
 * A test holds this equal to {@link createNativeTools}.
 */
const NATIVE_TOOL_MODULES: Readonly<Record<string, readonly [Loader, string]>> = {
  address_name: [data, 'addressName'],
  analyze_function: [() => import('./dossier.js'), 'analyzeFunction'],
  binary_overview: [overview, 'binaryOverview'],
  compare_functions: [() => import('./compare.js'), 'compareFunctions'],
  current_address: [navigation, 'currentAddress'],
  current_document: [navigation, 'currentDocument'],
  current_procedure: [navigation, 'currentProcedure'],
  get_call_graph: [() => import('./graph.js'), 'getCallGraph'],
  get_navigation_context: [navigation, 'getNavigationContext'],
  goto_address: [navigation, 'gotoAddress'],
  inspect_address_context: [navigation, 'inspectAddressContext'],
  list_names: [data, 'listNames'],
  list_procedures: [procedures, 'listProcedures'],
  list_segments: [overview, 'listSegments'],
  list_strings: [data, 'listStrings'],
  procedure_address: [procedures, 'procedureAddress'],
  procedure_assembly: [code, 'procedureAssembly'],
  procedure_callees: [relations, 'procedureCallees'],
  procedure_callers: [relations, 'procedureCallers'],
  procedure_info: [procedures, 'procedureInfo'],
  procedure_pseudo_code: [code, 'procedurePseudoCode'],
  procedure_references: [relations, 'procedureReferences'],
  read_function_instructions: [code, 'readFunctionInstructions'],
  resolve_containing_procedure: [procedures, 'resolveContainingProcedure'],
  search_procedures: [procedures, 'searchProcedures'],
  search_strings: [data, 'searchStrings'],
  trace_call_path: [() => import('./graph.js'), 'traceCallPath'],
  xrefs: [relations, 'xrefs'],
};

/** The names of every native tool, sorted (known without building any contract). */
export const NATIVE_TOOL_NAMES: readonly string[] = Object.keys(NATIVE_TOOL_MODULES).sort();

/**
 * The named native tool contracts, sorted by name, loading only the modules that declare them: a
 * command that runs one native tool does not build the schemas of the others. Names that are not
 * native tools are left out. The contracts are the same objects {@link createNativeTools} returns.
 */
export async function loadNativeTools(names: Iterable<string>): Promise<AnyToolContract[]> {
  const wanted = [...new Set(names)].filter((name) => Object.hasOwn(NATIVE_TOOL_MODULES, name)).sort();
  return Promise.all(
    wanted.map(async (name) => {
      const [load, exported] = NATIVE_TOOL_MODULES[name]!;
      return (await load())[exported] as AnyToolContract;
    }),
  );
}
