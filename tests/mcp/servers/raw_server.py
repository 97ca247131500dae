"""A hand-written legacy (2025-11-25) stdio server, for wire-level faults no SDK would produce.

Modes (argv[1]): `bad_root` lists a tool whose schema root is not an object (the SDK rejects the
whole page); `garbage` writes a non-JSON line before every answer; `silent` never answers; `exit`
writes to stderr and exits at once.
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1]

TOOLS = [{"name": "good", "description": "fine", "inputSchema": {"type": "object"}}]
if MODE == "bad_root":
    TOOLS.append({"name": "array_root", "description": "bad", "inputSchema": {"type": "array"}})


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict[str, object]) -> dict[str, object] | None:
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result: dict[str, object] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "good result"}]}
    elif method == "ping":
        result = {}
    else:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "error": {"code": -32601, "message": "Method not found"},
        }
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def main() -> None:
    if MODE == "exit":
        sys.stderr.write("fatal: RAW_API_KEY is not set\n")
        sys.exit(2)
    for line in sys.stdin:
        if MODE == "silent":
            continue
        if MODE == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        reply = answer(json.loads(line))
        if reply is not None:
            send(reply)


if __name__ == "__main__":
    main()
