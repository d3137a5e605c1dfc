#!/usr/bin/env python3
"""Measures a large document in the editor (issue 23 §4): starts `netbox-lsp --stdio`, sends one
file through `textDocument/didOpen` and waits for its `publishDiagnostics`. Prints the time from
didOpen to the diagnostics (ms), the server's peak resident memory (VmHWM of /proc/<pid>/status,
Linux), the number of diagnostics and what the server said about the size (a `not-checked`
diagnostic or a `window/showMessage`).

Usage: scripts/lsp-large.py FILE [path/to/netbox-lsp]
Files: python3 benches/gen_skill.py 25000000 /tmp/big/SKILL.md;
       python3 benches/gen_calls.py 290000 /tmp/big/calls.py (about 25 MB).
"""
import json
import os
import subprocess
import sys
import time

FILE = sys.argv[1]
SERVER = sys.argv[2] if len(sys.argv) > 2 else "target/release/netbox-lsp"
LANG = {".md": "markdown", ".py": "python", ".json": "json", ".yaml": "yaml", ".ipynb": "json"}


def send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def recv(p):
    length = 0
    while True:
        line = p.stdout.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))


def vm(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def main():
    text = open(FILE, encoding="utf-8").read()
    uri = "file://" + os.path.abspath(FILE)
    p = subprocess.Popen([SERVER, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"processId": None, "rootUri": None, "capabilities": {
                 "textDocument": {"publishDiagnostics": {"versionSupport": True}}}}})
    messages = []
    while True:
        m = recv(p)
        if m.get("id") == 1:
            break
    send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    time.sleep(0.5)
    before = vm(p.pid, "VmHWM")
    lang = LANG.get(os.path.splitext(FILE)[1], "plaintext")
    t0 = time.monotonic()
    send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": lang, "version": 1, "text": text}}})
    diags = None
    while diags is None:
        m = recv(p)
        if m is None:
            print("the server closed the connection")
            sys.exit(1)
        if m.get("method") == "window/showMessage":
            messages.append(m["params"]["message"])
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
            diags = m["params"]["diagnostics"]
    elapsed = (time.monotonic() - t0) * 1000
    peak = vm(p.pid, "VmHWM")
    size = [d for d in diags if d.get("code") in ("not-checked", "partly-checked")
            and d["range"]["start"]["line"] == 0]
    send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    send(p, {"jsonrpc": "2.0", "method": "exit"})
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
    print(f"file: {FILE} ({len(text.encode())} bytes)")
    print(f"didOpen -> publishDiagnostics: {elapsed:.0f} ms")
    print(f"VmHWM: {peak // 1024} MB (after initialize: {before // 1024} MB)")
    print(f"diagnostics: {len(diags)}")
    for d in size:
        print(f"size diagnostic ({d['code']}): {d['message']}")
    for m in messages:
        print(f"showMessage: {m}")


if __name__ == "__main__":
    main()
