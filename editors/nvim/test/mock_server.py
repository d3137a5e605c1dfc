#!/usr/bin/env python3
"""A stand-in for netbox-lsp that checks the Neovim e2e harness itself (not the real server).

It speaks just enough LSP over stdio to exercise editors/nvim/test/e2e.lua: full document sync,
an `unknown-filter` diagnostic (source `netbox-lsp`) on every `"device_role_id"` key, and a
quick-fix code action replacing it with `role_id`. Usage:

    scripts/nvim-e2e.sh editors/nvim/test/mock_server.py

ASCII fixtures only (columns are counted in characters, which equal UTF-16 units there).
"""

import json
import re
import sys

KEY = re.compile(r'"(device_role_id)"')


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def send(obj):
    body = json.dumps(obj).encode("utf-8")
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def findings(text):
    out = []
    for lnum, line in enumerate(text.split("\n")):
        for m in KEY.finditer(line):
            out.append({
                "range": {"start": {"line": lnum, "character": m.start(1)},
                          "end": {"line": lnum, "character": m.end(1)}},
                "severity": 1,
                "source": "netbox-lsp",
                "code": "unknown-filter",
                "message": "`device_role_id` is not a filter of /api/dcim/devices/; use `role_id`",
            })
    return out


def publish(uri, text):
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "diagnostics": findings(text)}})


def main():
    docs = {}
    stdin = sys.stdin.buffer
    while True:
        msg = read_message(stdin)
        if msg is None:
            return
        method, params = msg.get("method"), msg.get("params") or {}
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "capabilities": {"textDocumentSync": 1, "codeActionProvider": True},
                "serverInfo": {"name": "mock-netbox-lsp"}}})
        elif method == "textDocument/didOpen":
            doc = params["textDocument"]
            docs[doc["uri"]] = doc["text"]
            publish(doc["uri"], doc["text"])
        elif method == "textDocument/didChange":
            uri = params["textDocument"]["uri"]
            docs[uri] = params["contentChanges"][-1]["text"]
            publish(uri, docs[uri])
        elif method == "textDocument/codeAction":
            uri = params["textDocument"]["uri"]
            actions = [{
                "title": "Replace `device_role_id` with `role_id`",
                "kind": "quickfix",
                "isPreferred": True,
                "diagnostics": [d],
                "edit": {"changes": {uri: [{"range": d["range"], "newText": "role_id"}]}},
            } for d in params["context"]["diagnostics"] if d.get("code") == "unknown-filter"]
            send({"jsonrpc": "2.0", "id": msg["id"], "result": actions})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif method == "exit":
            return
        elif "id" in msg:
            send({"jsonrpc": "2.0", "id": msg["id"],
                  "error": {"code": -32601, "message": f"method not found: {method}"}})


if __name__ == "__main__":
    main()
