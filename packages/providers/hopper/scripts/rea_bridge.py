# REA bridge for Hopper Disassembler: serves REA's native port for the document Hopper has just
# loaded, over the bridge protocol "rea-bridge/1" (one JSON object per line) on the Unix socket named
# by REA_BRIDGE_SOCKET, presenting the token in REA_BRIDGE_TOKEN. Run by the launcher with
# `-e <target> -Y rea_bridge.py`; returns (and quits Hopper) on "shutdown" or when REA disconnects.
# Written for Hopper's Python API (Document, Segment, Procedure, BasicBlock, Instruction); Python 2.7
# and 3 alike.
import hashlib
import json
import os
import socket

doc = Document.getCurrentDocument()  # noqa: F821 - provided by Hopper
BAD = getattr(Document, "BAD_ADDRESS", -1)  # noqa: F821


try:
    TEXT = (str, unicode)  # noqa: F821 - Python 2
except NameError:
    TEXT = (str,)


class BridgeError(Exception):
    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code


def fmt(address):
    return "0x%x" % address


def parse(value):
    if not isinstance(value, TEXT) or not value.startswith("0x"):
        raise BridgeError("not_found", "no address %s" % value)
    return int(value[2:], 16)


def segments():
    return [doc.getSegment(i) for i in range(doc.getSegmentCount())]


def segment_at(address):
    return doc.getSegmentAtAddress(address)


def all_procedures():
    rows = []
    for seg in segments():
        for i in range(seg.getProcedureCount()):
            rows.append(seg.getProcedureAtIndex(i))
    return sorted(rows, key=lambda p: p.getEntryPoint())


def procedure_at(address):
    seg = segment_at(address)
    proc = seg.getProcedureAtAddress(address) if seg else None
    if proc is None or proc.getEntryPoint() != address:
        return None
    return proc


def procedure(params):
    selector = params["procedure"]
    address = parse(selector) if selector.startswith("0x") else doc.getAddressForName(selector)
    proc = procedure_at(address) if address not in (None, BAD) else None
    if proc is None:
        raise BridgeError("not_found", "no procedure %s" % selector)
    return proc


def extent(proc):
    blocks = [proc.getBasicBlock(i) for i in range(proc.getBasicBlockCount())]
    if not blocks:
        return proc.getEntryPoint(), proc.getEntryPoint()
    return min(b.getStartingAddress() for b in blocks), max(b.getEndingAddress() for b in blocks)


def name_of(address):
    seg = segment_at(address)
    return seg.getNameAtAddress(address) if seg else None


def summary(proc):
    entry = proc.getEntryPoint()
    start, end = extent(proc)
    name = name_of(entry) or ("sub_%x" % entry)
    return {
        "address": fmt(entry),
        "name": name,
        "size": max(0, end - start),
        "kind": "import" if name.startswith("imp_") else "function",
        "source": "engine",
    }


def instructions(proc):
    rows = []
    for i in range(proc.getBasicBlockCount()):
        block = proc.getBasicBlock(i)
        address = block.getStartingAddress()
        seg = segment_at(address)
        while address < block.getEndingAddress():
            insn = seg.getInstructionAtAddress(address)
            length = max(1, insn.getInstructionLength())
            raw = "".join("%02x" % (seg.readByte(address + k) & 0xFF) for k in range(length))
            args = [insn.getFormattedArgument(k) for k in range(insn.getArgumentCount())]
            rows.append({
                "address": fmt(address),
                "size": length,
                "bytes": raw,
                "mnemonic": insn.getInstructionString().lower(),
                "operands": ", ".join(args),
            })
            address += length
    return sorted(rows, key=lambda r: int(r["address"], 16))


def page(rows, params, key):
    query = params.get("query")
    if query:
        rows = [r for r in rows if query.lower() in r[key].lower()]
    offset, limit = params.get("offset", 0), params.get("limit", 100)
    items = rows[offset:offset + limit]
    end = offset + len(items)
    return {"items": items, "total": len(rows), "next_offset": end if end < len(rows) else None}


def call_site(site, other, kind="call"):
    return {"site": fmt(site), "procedure": fmt(other.getEntryPoint()), "name": name_of(other.getEntryPoint()), "kind": kind}


def references_to(address):
    seg = segment_at(address)
    rows = []
    for source in (seg.getReferencesOfAddress(address) or []) if seg else []:
        owner = segment_at(source).getProcedureAtAddress(source) if segment_at(source) else None
        rows.append({"from": fmt(source), "to": fmt(address), "kind": "data",
                     "from_procedure": fmt(owner.getEntryPoint()) if owner else None})
    return rows


def references_from(address):
    seg = segment_at(address)
    owner = seg.getProcedureAtAddress(address) if seg else None
    rows = []
    for target in (seg.getReferencesFromAddress(address) or []) if seg else []:
        callee = procedure_at(target)
        rows.append({"from": fmt(address), "to": fmt(target), "kind": "call" if callee else "data",
                     "from_procedure": fmt(owner.getEntryPoint()) if owner else None})
    return rows


def strings():
    rows = []
    for seg in segments():
        for address, value in (seg.getStringsList() if hasattr(seg, "getStringsList") else []):
            rows.append({"address": fmt(address), "value": value, "encoding": "ascii", "section": seg.getName()})
    return rows


def names():
    rows = []
    for seg in segments():
        for address, name in zip(seg.getNamedAddresses(), seg.getNamesList()):
            proc = procedure_at(address)
            rows.append({"address": fmt(address), "name": name, "kind": "function" if proc else "label"})
    return rows


def document():
    path = doc.getExecutableFilePath()
    return {
        "name": os.path.basename(path),
        "format": "macho" if "Mach" in str(doc.getDatabaseFilePath() or "") else "unknown",
        "architecture": "x86_64" if doc.is64Bits() else "x86",
        "bits": 64 if doc.is64Bits() else 32,
        "endianness": "little",
        "entry": fmt(doc.getEntryPoint()) if doc.getEntryPoint() not in (None, BAD) else None,
        "image_base": fmt(min(s.getStartingAddress() for s in segments())),
    }


def answer(method, p):
    if method == "health":
        return {"status": "ready"}
    if method == "shutdown":
        return None
    if method == "document":
        return document()
    if method == "procedures":
        return page([summary(x) for x in all_procedures()], p, "name")
    if method == "procedure":
        proc = procedure_at(parse(p["address"]))
        if proc is None:
            return None
        row = summary(proc)
        row.update({
            "end": fmt(extent(proc)[1]),
            "instruction_count": len(instructions(proc)),
            "basic_block_count": proc.getBasicBlockCount(),
            "caller_count": len(proc.getAllCallers()),
            "callee_count": len(proc.getAllCallees()),
            "library": None,
        })
        return row
    if method == "containing_procedure":
        address = parse(p["address"])
        seg = segment_at(address)
        proc = seg.getProcedureAtAddress(address) if seg else None
        return summary(proc) if proc else None
    if method == "instructions":
        return page(instructions(procedure(p)), p, "mnemonic")
    if method == "control_flow":
        proc = procedure(p)
        blocks, edges = [], []
        for i in range(proc.getBasicBlockCount()):
            block = proc.getBasicBlock(i)
            count = len([r for r in instructions(proc)
                         if block.getStartingAddress() <= int(r["address"], 16) < block.getEndingAddress()])
            blocks.append({"start": fmt(block.getStartingAddress()), "end": fmt(block.getEndingAddress()),
                           "instruction_count": count})
            for k in range(block.getSuccessorCount()):
                edges.append({"from": fmt(block.getStartingAddress()),
                              "to": fmt(block.getSuccessorAddressAtIndex(k)), "kind": "branch"})
        return {"blocks": blocks, "edges": edges, "unresolved": []}
    if method == "callers":
        proc = procedure(p)
        return [call_site(ref.fromAddress(), procedure_at_or_containing(ref.fromAddress()))
                for ref in proc.getAllCallerReferences() if procedure_at_or_containing(ref.fromAddress())] \
            if hasattr(proc, "getAllCallerReferences") else \
            [call_site(c.getEntryPoint(), c) for c in proc.getAllCallers()]
    if method == "callees":
        proc = procedure(p)
        return {"calls": [call_site(proc.getEntryPoint(), c) for c in proc.getAllCallees()], "unresolved": []}
    if method == "references":
        address = parse(p["address"])
        return {"to": references_to(address), "from": references_from(address)}
    if method == "procedure_references":
        rows = []
        for row in instructions(procedure(p)):
            rows.extend(references_from(int(row["address"], 16)))
        return rows
    if method == "strings":
        return page(strings(), p, "value")
    if method == "string_at":
        return next((r for r in strings() if r["address"] == p["address"]), None)
    if method == "names":
        return page(names(), p, "name")
    if method == "name_at":
        return name_of(parse(p["address"]))
    if method == "address_of":
        address = doc.getAddressForName(p["name"])
        return fmt(address) if address not in (None, BAD) else None
    if method == "segments":
        return [{"name": s.getName(), "start": fmt(s.getStartingAddress()),
                 "end": fmt(s.getStartingAddress() + s.getLength()), "size": s.getLength(),
                 "file_offset": s.getFileOffset() if hasattr(s, "getFileOffset") else None,
                 "readable": True, "writable": False, "executable": s.getProcedureCount() > 0}
                for s in segments()]
    if method == "is_mapped":
        return segment_at(parse(p["address"])) is not None
    if method == "pseudocode":
        text = procedure(p).decompile()
        if text is None:
            raise BridgeError("engine", "Hopper could not decompile %s" % p["procedure"])
        return {"language": "c", "text": text}
    if method == "comments":
        address = parse(p["address"])
        seg = segment_at(address)
        return {"comment": seg.getCommentAtAddress(address) or None if seg else None,
                "inline_comment": seg.getInlineCommentAtAddress(address) or None if seg else None}
    raise BridgeError("unsupported", "no method %s" % method)


def procedure_at_or_containing(address):
    seg = segment_at(address)
    return seg.getProcedureAtAddress(address) if seg else None


def digest():
    sha = hashlib.sha256()
    with open(doc.getExecutableFilePath(), "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            sha.update(chunk)
    return sha.hexdigest()


def serve():
    doc.waitForBackgroundProcessing() if hasattr(doc, "waitForBackgroundProcessing") else None
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    channel.connect(os.environ["REA_BRIDGE_SOCKET"])
    stream = channel.makefile("rwb")

    def send(value):
        stream.write((json.dumps(value) + "\n").encode("utf-8"))
        stream.flush()

    send({"type": "hello", "protocol": "rea-bridge/1", "token": os.environ["REA_BRIDGE_TOKEN"],
          "engine": {"name": "Hopper", "version": str(doc.getVersionString() if hasattr(doc, "getVersionString") else "unknown")},
          "imported_sha256": digest()})
    for line in iter(stream.readline, b""):
        request = json.loads(line.decode("utf-8"))
        response = {"id": request["id"]}
        try:
            response["result"] = answer(request["method"], request.get("params") or {})
        except BridgeError as error:
            response["error"] = {"code": error.code, "message": str(error)}
        except Exception as error:  # noqa: BLE001 - every engine failure is an answer, not a crash
            response["error"] = {"code": "engine", "message": repr(error)}
        send(response)
        if request["method"] == "shutdown":
            break
    channel.close()


serve()
