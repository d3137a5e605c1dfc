#!/usr/bin/env python3
"""Drives `netbox-lsp --stdio` through one short editing session and prints what an editor
would show: the diagnostics of a SKILL.md, the completion list inside a filters dict, the
choice values after `"status": "`, and the quick-fix for `device_role_id`. Used to record the
session text in README.md. Usage: scripts/lsp-session.py [path/to/netbox-lsp]"""
import json
import subprocess
import sys

SERVER = sys.argv[1] if len(sys.argv) > 1 else "target/release/netbox-lsp"
URI = "file:///tmp/skills/inventory/SKILL.md"
TEXT = """# Inventory skill

```python
devices = netbox_get_objects("dcim.device", filters={"device_role_id": 3, "status": "Active"})
leaves = netbox_get_objects("dcim.device", filters={"rol": 1, "status": "pl"})
```
"""


def send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def recv(p):
    length = 0
    while True:
        line = p.stdout.readline().strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))


def wait(p, pred):
    while True:
        m = recv(p)
        if pred(m):
            return m


def request(p, id_, method, params):
    send(p, {"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
    return wait(p, lambda m: m.get("id") == id_ and "method" not in m)["result"]


def pos(line, needle, after=0):
    col = TEXT.splitlines()[line].index(needle) + after
    return {"line": line, "character": col}


p = subprocess.Popen([SERVER, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
request(p, 1, "initialize", {"capabilities": {}, "processId": None, "rootUri": None})
send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": URI, "languageId": "markdown", "version": 1, "text": TEXT}}})
diags = wait(p, lambda m: m.get("method") == "textDocument/publishDiagnostics")["params"]["diagnostics"]
print("$ open SKILL.md  →  textDocument/publishDiagnostics")
for d in diags:
    s = d["range"]["start"]
    print(f"  {s['line'] + 1}:{s['character'] + 1} {d['code']}: {d['message']}")

items = request(p, 2, "textDocument/completion", {"textDocument": {"uri": URI}, "position": pos(4, '"rol"', 4)})
items = items["items"] if isinstance(items, dict) else items
print(f'\n$ complete after `filters={{"rol`  →  textDocument/completion ({len(items)} items; as an editor filters them by "rol":)')
items = [it for it in items if it.get("filterText", it["label"]).startswith("rol")]
for it in items[:8]:
    print(f"  {it['label']:<16} {it.get('detail', '')}")
if len(items) > 8:
    print(f"  … {len(items) - 8} more")

items = request(p, 3, "textDocument/completion", {"textDocument": {"uri": URI}, "position": pos(4, '"pl"', 3)})
items = items["items"] if isinstance(items, dict) else items
print('\n$ complete after `"status": "pl`  →  textDocument/completion')
for it in items[:8]:
    print(f"  {it['label']:<16} {it.get('detail', '')}")

d = diags[0]
acts = request(p, 4, "textDocument/codeAction", {"textDocument": {"uri": URI}, "range": d["range"],
                                                 "context": {"diagnostics": [d], "only": ["quickfix"]}})
print("\n$ code actions on the first diagnostic  →  textDocument/codeAction")
for a in acts:
    edits = a.get("edit", {}).get("changes", {}).get(URI, [])
    new = ", ".join(repr(e["newText"]) for e in edits)
    print(f"  [{a.get('kind')}{', preferred' if a.get('isPreferred') else ''}] {a['title']}  → {new}")
request(p, 5, "shutdown", None)
send(p, {"jsonrpc": "2.0", "method": "exit"})
p.wait(timeout=5)
