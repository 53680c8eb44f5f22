// REA bridge: serves REA's native port for the program analyzeHeadless has just imported and
// analysed, over the bridge protocol "rea-bridge/1" (one JSON object per line) on the Unix socket
// named by REA_BRIDGE_SOCKET, presenting the token in REA_BRIDGE_TOKEN. Runs as a -postScript and
// returns when REA sends "shutdown" or closes the connection.
//@category REA
//@runtime Java

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import ghidra.app.decompiler.DecompInterface;
import ghidra.app.decompiler.DecompileResults;
import ghidra.app.script.GhidraScript;
import ghidra.program.model.address.Address;
import ghidra.program.model.address.AddressIterator;
import ghidra.program.model.address.AddressSpace;
import ghidra.program.model.block.BasicBlockModel;
import ghidra.program.model.block.CodeBlock;
import ghidra.program.model.block.CodeBlockIterator;
import ghidra.program.model.block.CodeBlockReference;
import ghidra.program.model.block.CodeBlockReferenceIterator;
import ghidra.program.model.listing.Bookmark;
import ghidra.program.model.listing.CodeUnit;
import ghidra.program.model.listing.Data;
import ghidra.program.model.listing.DataIterator;
import ghidra.program.model.listing.Function;
import ghidra.program.model.listing.Instruction;
import ghidra.program.model.listing.InstructionIterator;
import ghidra.program.model.listing.Listing;
import ghidra.program.model.mem.MemoryBlock;
import ghidra.program.model.mem.MemoryBlockSourceInfo;
import ghidra.program.model.pcode.HighFunction;
import ghidra.program.model.pcode.PcodeOpAST;
import ghidra.program.model.pcode.Varnode;
import ghidra.program.model.symbol.FlowType;
import ghidra.program.model.symbol.RefType;
import ghidra.program.model.symbol.Reference;
import ghidra.program.model.symbol.ReferenceIterator;
import ghidra.program.model.symbol.Symbol;
import ghidra.program.model.symbol.SymbolIterator;
import ghidra.program.model.symbol.SymbolType;

public class ReaBridge extends GhidraScript {

	/** A request REA sent that cannot be answered: not_found, unsupported or engine. */
	private static class BridgeError extends Exception {
		final String code;

		BridgeError(String code, String message) {
			super(message);
			this.code = code;
		}
	}

	private final Gson gson = new Gson();
	private DecompInterface decompiler;

	@Override
	protected void run() throws Exception {
		String socket = System.getenv("REA_BRIDGE_SOCKET");
		String token = System.getenv("REA_BRIDGE_TOKEN");
		if (socket == null || token == null) {
			printerr("REA bridge: REA_BRIDGE_SOCKET and REA_BRIDGE_TOKEN must be set");
			return;
		}
		try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
			channel.connect(UnixDomainSocketAddress.of(socket));
			BufferedReader in = new BufferedReader(
				new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
			Writer out = new OutputStreamWriter(Channels.newOutputStream(channel), StandardCharsets.UTF_8);
			JsonObject hello = new JsonObject();
			hello.addProperty("type", "hello");
			hello.addProperty("protocol", "rea-bridge/1");
			hello.addProperty("token", token);
			JsonObject engine = new JsonObject();
			engine.addProperty("name", "Ghidra");
			engine.addProperty("version", getGhidraVersion());
			hello.add("engine", engine);
			hello.addProperty("imported_sha256", currentProgram.getExecutableSHA256().toLowerCase());
			send(out, hello);
			String line;
			while ((line = in.readLine()) != null) {
				JsonObject request = JsonParser.parseString(line).getAsJsonObject();
				int id = request.get("id").getAsInt();
				String method = request.get("method").getAsString();
				JsonObject params = request.has("params") ? request.getAsJsonObject("params") : new JsonObject();
				JsonObject response = new JsonObject();
				response.addProperty("id", id);
				try {
					response.add("result", answer(method, params));
				}
				catch (BridgeError error) {
					JsonObject failure = new JsonObject();
					failure.addProperty("code", error.code);
					failure.addProperty("message", error.getMessage());
					response.add("error", failure);
				}
				catch (Exception error) {
					JsonObject failure = new JsonObject();
					failure.addProperty("code", "engine");
					failure.addProperty("message", String.valueOf(error));
					response.add("error", failure);
				}
				send(out, response);
				if (method.equals("shutdown")) {
					break;
				}
			}
		}
		finally {
			if (decompiler != null) {
				decompiler.dispose();
			}
		}
	}

	private void send(Writer out, JsonObject value) throws Exception {
		out.write(gson.toJson(value));
		out.write("\n");
		out.flush();
	}

	private JsonElement answer(String method, JsonObject p) throws Exception {
		switch (method) {
			case "health": {
				JsonObject ready = new JsonObject();
				ready.addProperty("status", "ready");
				return ready;
			}
			case "shutdown":
				return JsonNull.INSTANCE;
			case "document":
				return document();
			case "procedures":
				return page(procedureRows(), p, "name");
			case "procedure": {
				Function f = getFunctionAt(address(p, "address"));
				return f == null ? JsonNull.INSTANCE : procedureInfo(f);
			}
			case "containing_procedure": {
				Function f = getFunctionContaining(address(p, "address"));
				return f == null ? JsonNull.INSTANCE : procedureSummary(f);
			}
			case "instructions":
				return page(instructionRows(function(p)), p, "mnemonic");
			case "control_flow":
				return controlFlow(function(p));
			case "callers":
				return callers(function(p));
			case "callees":
				return callees(function(p));
			case "references":
				return references(address(p, "address"));
			case "procedure_references":
				return procedureReferences(function(p));
			case "strings":
				return page(stringRows(), p, "value");
			case "string_at": {
				Data data = getDataAt(address(p, "address"));
				return data != null && data.hasStringValue() ? stringRow(data) : JsonNull.INSTANCE;
			}
			case "names":
				return page(nameRows(), p, "name");
			case "name_at": {
				Symbol symbol = currentProgram.getSymbolTable().getPrimarySymbol(address(p, "address"));
				return symbol == null ? JsonNull.INSTANCE : new com.google.gson.JsonPrimitive(symbol.getName());
			}
			case "address_of": {
				List<Symbol> symbols = getSymbols(p.get("name").getAsString(), null);
				return symbols.isEmpty() ? JsonNull.INSTANCE
						: new com.google.gson.JsonPrimitive(format(symbols.get(0).getAddress()));
			}
			case "segments":
				return segments();
			case "is_mapped":
				return new com.google.gson.JsonPrimitive(currentProgram.getMemory().contains(address(p, "address")));
			case "pseudocode":
				return pseudocode(function(p));
			case "high_pcode":
				return page(highPcodeRows(function(p)), p, "mnemonic");
			case "comments": {
				Address at = address(p, "address");
				JsonObject comments = new JsonObject();
				Listing listing = currentProgram.getListing();
				comments.add("comment", text(listing.getComment(CodeUnit.PRE_COMMENT, at)));
				comments.add("inline_comment", text(listing.getComment(CodeUnit.EOL_COMMENT, at)));
				return comments;
			}
			case "bookmarks": {
				JsonArray rows = new JsonArray();
				for (Bookmark b : currentProgram.getBookmarkManager().getBookmarks(address(p, "address"))) {
					JsonObject row = new JsonObject();
					row.addProperty("category", b.getCategory());
					row.addProperty("text", b.getComment());
					rows.add(row);
				}
				return rows;
			}
			default:
				throw new BridgeError("unsupported", "no method " + method);
		}
	}

	// ---- addresses ----

	/** Canonical REA form: 0x<hex> in the default space, else <space>:0x<hex>. */
	private String format(Address a) {
		String hex = "0x" + Long.toHexString(a.getOffset());
		AddressSpace space = a.getAddressSpace();
		if (space.equals(currentProgram.getAddressFactory().getDefaultAddressSpace())) {
			return hex;
		}
		return java.net.URLEncoder.encode(space.getName(), StandardCharsets.UTF_8) + ":" + hex;
	}

	private Address address(JsonObject p, String key) throws BridgeError {
		String value = p.get(key).getAsString();
		AddressSpace space = currentProgram.getAddressFactory().getDefaultAddressSpace();
		int colon = value.lastIndexOf(':');
		if (colon >= 0) {
			String name = java.net.URLDecoder.decode(value.substring(0, colon), StandardCharsets.UTF_8);
			space = currentProgram.getAddressFactory().getAddressSpace(name);
			value = value.substring(colon + 1);
		}
		if (space == null || !value.startsWith("0x")) {
			throw new BridgeError("not_found", "no address " + p.get(key).getAsString());
		}
		return space.getAddress(Long.parseUnsignedLong(value.substring(2), 16));
	}

	private Function function(JsonObject p) throws BridgeError {
		String selector = p.get("procedure").getAsString();
		Function f = selector.startsWith("0x") || selector.contains(":") ? getFunctionAt(address(p, "procedure"))
				: getGlobalFunctions(selector).stream().findFirst().orElse(null);
		if (f == null) {
			throw new BridgeError("not_found", "no procedure " + selector);
		}
		return f;
	}

	private static JsonElement text(String value) {
		return value == null ? JsonNull.INSTANCE : new com.google.gson.JsonPrimitive(value);
	}

	private JsonObject page(List<JsonObject> rows, JsonObject p, String key) {
		int offset = p.has("offset") ? p.get("offset").getAsInt() : 0;
		int limit = p.has("limit") ? p.get("limit").getAsInt() : 100;
		String query = p.has("query") ? p.get("query").getAsString().toLowerCase() : null;
		List<JsonObject> matching = new ArrayList<>();
		for (JsonObject row : rows) {
			if (query == null || row.get(key).getAsString().toLowerCase().contains(query)) {
				matching.add(row);
			}
		}
		JsonArray items = new JsonArray();
		for (int i = offset; i < Math.min(matching.size(), offset + limit); i++) {
			items.add(matching.get(i));
		}
		int end = offset + items.size();
		JsonObject page = new JsonObject();
		page.add("items", items);
		page.addProperty("total", matching.size());
		page.add("next_offset", end < matching.size() ? new com.google.gson.JsonPrimitive(end) : JsonNull.INSTANCE);
		return page;
	}

	// ---- document, procedures, instructions ----

	private JsonObject document() {
		JsonObject doc = new JsonObject();
		doc.addProperty("name", currentProgram.getName());
		String format = currentProgram.getExecutableFormat();
		doc.addProperty("format", format.contains("ELF") ? "elf"
				: format.contains("Portable Executable") ? "pe" : format.contains("Mac") ? "macho" : format);
		doc.addProperty("architecture", currentProgram.getLanguage().getProcessor().toString().toLowerCase());
		doc.addProperty("bits", currentProgram.getLanguage().getLanguageDescription().getSize());
		doc.addProperty("endianness", currentProgram.getLanguage().isBigEndian() ? "big" : "little");
		AddressIterator entries = currentProgram.getSymbolTable().getExternalEntryPointIterator();
		doc.add("entry", entries.hasNext() ? new com.google.gson.JsonPrimitive(format(entries.next())) : JsonNull.INSTANCE);
		doc.addProperty("image_base", format(currentProgram.getImageBase()));
		return doc;
	}

	private JsonObject procedureSummary(Function f) {
		JsonObject row = new JsonObject();
		row.addProperty("address", format(f.getEntryPoint()));
		row.addProperty("name", f.getName());
		row.addProperty("size", f.getBody().getNumAddresses());
		boolean imported = f.isExternal() || (f.isThunk() && f.getThunkedFunction(true) != null
				&& f.getThunkedFunction(true).isExternal());
		row.addProperty("kind", imported ? "import" : f.isThunk() ? "thunk" : "function");
		row.addProperty("source", "engine");
		return row;
	}

	private List<JsonObject> procedureRows() {
		List<JsonObject> rows = new ArrayList<>();
		for (Function f : currentProgram.getFunctionManager().getFunctions(true)) {
			rows.add(procedureSummary(f));
		}
		return rows;
	}

	private JsonObject procedureInfo(Function f) throws Exception {
		JsonObject info = procedureSummary(f);
		info.addProperty("end", format(f.getBody().getMaxAddress().add(1)));
		info.addProperty("instruction_count", instructionRows(f).size());
		int blocks = 0;
		CodeBlockIterator it = new BasicBlockModel(currentProgram).getCodeBlocksContaining(f.getBody(), monitor);
		while (it.hasNext()) {
			it.next();
			blocks++;
		}
		info.addProperty("basic_block_count", blocks);
		info.addProperty("caller_count", f.getCallingFunctions(monitor).size());
		info.addProperty("callee_count", f.getCalledFunctions(monitor).size());
		Function thunked = f.isThunk() ? f.getThunkedFunction(true) : null;
		info.add("library", thunked != null && thunked.isExternal()
				? text(thunked.getExternalLocation().getLibraryName()) : JsonNull.INSTANCE);
		return info;
	}

	private List<JsonObject> instructionRows(Function f) throws Exception {
		List<JsonObject> rows = new ArrayList<>();
		InstructionIterator it = currentProgram.getListing().getInstructions(f.getBody(), true);
		while (it.hasNext()) {
			Instruction insn = it.next();
			JsonObject row = new JsonObject();
			row.addProperty("address", format(insn.getAddress()));
			row.addProperty("size", insn.getLength());
			StringBuilder hex = new StringBuilder();
			for (byte b : insn.getBytes()) {
				hex.append(String.format("%02x", b & 0xff));
			}
			row.addProperty("bytes", hex.toString());
			row.addProperty("mnemonic", insn.getMnemonicString().toLowerCase());
			List<String> operands = new ArrayList<>();
			for (int i = 0; i < insn.getNumOperands(); i++) {
				operands.add(insn.getDefaultOperandRepresentation(i));
			}
			row.addProperty("operands", String.join(", ", operands));
			rows.add(row);
		}
		return rows;
	}

	// ---- control flow and calls ----

	private JsonObject controlFlow(Function f) throws Exception {
		JsonArray blocks = new JsonArray();
		JsonArray edges = new JsonArray();
		CodeBlockIterator it = new BasicBlockModel(currentProgram).getCodeBlocksContaining(f.getBody(), monitor);
		while (it.hasNext()) {
			CodeBlock block = it.next();
			JsonObject row = new JsonObject();
			row.addProperty("start", format(block.getMinAddress()));
			row.addProperty("end", format(block.getMaxAddress().add(1)));
			int count = 0;
			InstructionIterator insns = currentProgram.getListing().getInstructions(block, true);
			while (insns.hasNext()) {
				insns.next();
				count++;
			}
			row.addProperty("instruction_count", count);
			blocks.add(row);
			CodeBlockReferenceIterator out = block.getDestinations(monitor);
			while (out.hasNext()) {
				CodeBlockReference ref = out.next();
				FlowType flow = ref.getFlowType();
				if (flow.isCall() || !f.getBody().contains(ref.getDestinationAddress())) {
					continue;
				}
				JsonObject edge = new JsonObject();
				edge.addProperty("from", format(block.getMinAddress()));
				edge.addProperty("to", format(ref.getDestinationAddress()));
				edge.addProperty("kind", flow.isFallthrough() ? "fallthrough"
						: flow.isComputed() ? "table" : flow.isConditional() ? "conditional" : "branch");
				edges.add(edge);
			}
		}
		JsonObject result = new JsonObject();
		result.add("blocks", blocks);
		result.add("edges", edges);
		result.add("unresolved", unresolved(f, false));
		return result;
	}

	/** Indirect calls (or jumps) whose targets Ghidra left without a reference. */
	private JsonArray unresolved(Function f, boolean callsOnly) throws Exception {
		JsonArray rows = new JsonArray();
		InstructionIterator it = currentProgram.getListing().getInstructions(f.getBody(), true);
		while (it.hasNext()) {
			Instruction insn = it.next();
			FlowType flow = insn.getFlowType();
			if (!flow.isComputed() || (callsOnly && !flow.isCall()) || insn.getFlows().length > 0) {
				continue;
			}
			JsonObject row = new JsonObject();
			row.addProperty("site", format(insn.getAddress()));
			row.addProperty("kind", flow.isCall() ? "indirect-call" : "indirect-jump");
			row.addProperty("instruction", insn.toString());
			rows.add(row);
		}
		return rows;
	}

	private JsonObject callSite(Address site, Function other, boolean viaImport) {
		JsonObject row = new JsonObject();
		row.addProperty("site", format(site));
		row.addProperty("procedure", format(other.getEntryPoint()));
		row.addProperty("name", other.getName());
		row.addProperty("kind", viaImport ? "import-call" : "call");
		return row;
	}

	private boolean isImport(Function f) {
		return f.isExternal() || (f.isThunk() && f.getThunkedFunction(true) != null
				&& f.getThunkedFunction(true).isExternal());
	}

	private JsonArray callers(Function f) {
		JsonArray rows = new JsonArray();
		ReferenceIterator refs = currentProgram.getReferenceManager().getReferencesTo(f.getEntryPoint());
		while (refs.hasNext()) {
			Reference ref = refs.next();
			Function caller = getFunctionContaining(ref.getFromAddress());
			if (ref.getReferenceType().isCall() && caller != null) {
				rows.add(callSite(ref.getFromAddress(), caller, false));
			}
		}
		return rows;
	}

	private JsonObject callees(Function f) throws Exception {
		JsonArray calls = new JsonArray();
		InstructionIterator it = currentProgram.getListing().getInstructions(f.getBody(), true);
		while (it.hasNext()) {
			Instruction insn = it.next();
			for (Reference ref : insn.getReferencesFrom()) {
				RefType type = ref.getReferenceType();
				Function callee = getFunctionAt(ref.getToAddress());
				if (callee != null && (type.isCall() || (type.isJump() && !f.getBody().contains(ref.getToAddress())))) {
					JsonObject row = callSite(insn.getAddress(), callee, isImport(callee));
					if (!type.isCall()) {
						row.addProperty("kind", "tail-call");
					}
					calls.add(row);
				}
			}
		}
		JsonObject result = new JsonObject();
		result.add("calls", calls);
		result.add("unresolved", unresolved(f, true));
		return result;
	}

	// ---- references, strings, names, segments ----

	private JsonObject referenceRow(Reference ref) {
		JsonObject row = new JsonObject();
		row.addProperty("from", format(ref.getFromAddress()));
		row.addProperty("to", format(ref.getToAddress()));
		RefType type = ref.getReferenceType();
		row.addProperty("kind", type.isCall() ? "call" : type.isJump() ? "jump" : "data");
		Function from = getFunctionContaining(ref.getFromAddress());
		row.add("from_procedure", from == null ? JsonNull.INSTANCE : new com.google.gson.JsonPrimitive(format(from.getEntryPoint())));
		return row;
	}

	private boolean reportable(Reference ref) {
		return ref.getToAddress().isMemoryAddress() && !ref.getReferenceType().isFallthrough();
	}

	private JsonObject references(Address at) {
		JsonArray to = new JsonArray();
		ReferenceIterator refs = currentProgram.getReferenceManager().getReferencesTo(at);
		while (refs.hasNext()) {
			Reference ref = refs.next();
			if (reportable(ref)) {
				to.add(referenceRow(ref));
			}
		}
		JsonArray from = new JsonArray();
		for (Reference ref : currentProgram.getReferenceManager().getReferencesFrom(at)) {
			if (reportable(ref)) {
				from.add(referenceRow(ref));
			}
		}
		JsonObject result = new JsonObject();
		result.add("to", to);
		result.add("from", from);
		return result;
	}

	private JsonArray procedureReferences(Function f) {
		JsonArray rows = new JsonArray();
		InstructionIterator it = currentProgram.getListing().getInstructions(f.getBody(), true);
		while (it.hasNext()) {
			for (Reference ref : it.next().getReferencesFrom()) {
				if (reportable(ref)) {
					rows.add(referenceRow(ref));
				}
			}
		}
		return rows;
	}

	private JsonObject stringRow(Data data) {
		JsonObject row = new JsonObject();
		row.addProperty("address", format(data.getAddress()));
		row.addProperty("value", String.valueOf(data.getValue()));
		String type = data.getDataType().getName().toLowerCase();
		row.addProperty("encoding", type.contains("unicode") || type.contains("16") ? "utf-16le" : "ascii");
		MemoryBlock block = currentProgram.getMemory().getBlock(data.getAddress());
		row.add("section", block == null ? JsonNull.INSTANCE : new com.google.gson.JsonPrimitive(block.getName()));
		return row;
	}

	private List<JsonObject> stringRows() {
		List<JsonObject> rows = new ArrayList<>();
		DataIterator it = currentProgram.getListing().getDefinedData(true);
		while (it.hasNext()) {
			Data data = it.next();
			if (data.hasStringValue()) {
				rows.add(stringRow(data));
			}
		}
		return rows;
	}

	private List<JsonObject> nameRows() {
		List<JsonObject> rows = new ArrayList<>();
		Set<String> seen = new HashSet<>();
		SymbolIterator it = currentProgram.getSymbolTable().getAllSymbols(true);
		while (it.hasNext()) {
			Symbol symbol = it.next();
			SymbolType type = symbol.getSymbolType();
			if (symbol.isExternal() || !symbol.getAddress().isMemoryAddress()
					|| (type != SymbolType.FUNCTION && type != SymbolType.LABEL)) {
				continue;
			}
			String key = symbol.getAddress() + "/" + symbol.getName();
			if (!seen.add(key)) {
				continue;
			}
			Function f = getFunctionAt(symbol.getAddress());
			JsonObject row = new JsonObject();
			row.addProperty("address", format(symbol.getAddress()));
			row.addProperty("name", symbol.getName());
			row.addProperty("kind", f != null && isImport(f) ? "import"
					: symbol.isExternalEntryPoint() ? "export"
							: type == SymbolType.FUNCTION ? "function"
									: getDataAt(symbol.getAddress()) != null ? "object" : "label");
			rows.add(row);
		}
		return rows;
	}

	private JsonArray segments() {
		JsonArray rows = new JsonArray();
		for (MemoryBlock block : currentProgram.getMemory().getBlocks()) {
			if (!block.getStart().isMemoryAddress() || block.isOverlay()) {
				continue;
			}
			JsonObject row = new JsonObject();
			row.addProperty("name", block.getName());
			row.addProperty("start", format(block.getStart()));
			row.addProperty("end", format(block.getEnd().add(1)));
			row.addProperty("size", block.getSize());
			List<MemoryBlockSourceInfo> sources = block.getSourceInfos();
			long offset = sources.isEmpty() ? -1 : sources.get(0).getFileBytesOffset();
			row.add("file_offset", offset < 0 ? JsonNull.INSTANCE : new com.google.gson.JsonPrimitive(offset));
			row.addProperty("readable", block.isRead());
			row.addProperty("writable", block.isWrite());
			row.addProperty("executable", block.isExecute());
			rows.add(row);
		}
		return rows;
	}

	// ---- pseudocode ----

	private DecompileResults decompile(Function f) throws BridgeError {
		if (decompiler == null) {
			decompiler = new DecompInterface();
			if (!decompiler.openProgram(currentProgram)) {
				throw new BridgeError("engine", "the decompiler did not start: " + decompiler.getLastMessage());
			}
		}
		DecompileResults results = decompiler.decompileFunction(f, 120, monitor);
		if (results == null || !results.decompileCompleted() || results.getDecompiledFunction() == null) {
			String why = results == null ? "no result" : results.getErrorMessage();
			throw new BridgeError("engine", "decompiling " + f.getName() + " failed: " + why);
		}
		return results;
	}

	/** A varnode as space:0xoffset:size (the space name as Ghidra spells it, e.g. register, unique, const). */
	private String varnode(Varnode v) {
		return v.getAddress().getAddressSpace().getName() + ":0x" + Long.toHexString(v.getOffset()) + ":" + v.getSize();
	}

	/** The decompiler's high p-code of the function, in the order the syntax tree yields the ops. */
	private List<JsonObject> highPcodeRows(Function f) throws BridgeError {
		HighFunction high = decompile(f).getHighFunction();
		if (high == null) {
			throw new BridgeError("engine", "the decompiler returned no high function for " + f.getName());
		}
		List<JsonObject> rows = new ArrayList<>();
		Iterator<PcodeOpAST> ops = high.getPcodeOps();
		while (ops.hasNext()) {
			PcodeOpAST op = ops.next();
			JsonObject row = new JsonObject();
			row.addProperty("address", format(op.getSeqnum().getTarget()));
			row.addProperty("mnemonic", op.getMnemonic());
			Varnode out = op.getOutput();
			if (out == null) {
				row.add("output", JsonNull.INSTANCE);
			} else {
				row.addProperty("output", varnode(out));
			}
			JsonArray inputs = new JsonArray();
			for (Varnode in : op.getInputs()) {
				inputs.add(varnode(in));
			}
			row.add("inputs", inputs);
			rows.add(row);
		}
		return rows;
	}

	private JsonObject pseudocode(Function f) throws BridgeError {
		DecompileResults results = decompile(f);
		JsonObject result = new JsonObject();
		result.addProperty("language", "c");
		result.addProperty("text", results.getDecompiledFunction().getC());
		return result;
	}
}
