"""An MCP server that describes some tools badly, written by hand on stdio (the SDK's own
server would refuse to send a bad tool). Shapes from the 2025-06-18 specification:
initialize -> {protocolVersion, capabilities, serverInfo}; tools/list -> {tools: [{name,
description, inputSchema}]}; tools/call -> {content: [{type: "text", text}], isError}.

`bad_tools.py one` lists six tools, one with `"inputSchema": "nope"`; `bad_tools.py all`
answers `"tools": "nope"`.
"""

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "one"
SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}


def tools() -> object:
    if MODE == "all":
        return "nope"
    listed: list[dict[str, object]] = [
        {"name": f"tool{i}", "description": f"Tool {i}.", "inputSchema": SCHEMA} for i in range(5)
    ]
    listed.insert(2, {"name": "broken", "description": "Bad.", "inputSchema": "nope"})
    return listed


def answer(request: dict[str, object]) -> object:
    method = request.get("method")
    if method == "initialize":
        return {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bad-tools", "version": "1.0"},
        }
    if method == "tools/list":
        return {"tools": tools()}
    if method == "tools/call":
        params = request.get("params") or {}
        assert isinstance(params, dict)
        text = f"{params.get('name')}: {json.dumps(params.get('arguments'))}"
        return {"content": [{"type": "text", "text": text}], "isError": False}
    return {}


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue  # a notification (notifications/initialized)
    reply = {"jsonrpc": "2.0", "id": request["id"], "result": answer(request)}
    print(json.dumps(reply), flush=True)
