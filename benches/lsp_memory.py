#!/usr/bin/env python3
"""RSS of `netbox-lsp --stdio` after a SKILL.md is checked with each of N releases in turn
(workspace/didChangeConfiguration netbox_version, a completion after each), optionally after EDITS
didChange edits (their CPU per edit too), SETTLE seconds after the last diagnostics (issue 36).
Usage: python3 benches/lsp_memory.py BINARY SKILL.md N   (by hand, not in CI)"""
import os, json, subprocess, sys, time
SERVER, SKILL, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
URI = "file:///tmp/skills/inv/SKILL.md"
TEXT = open(SKILL).read()
VERSIONS = ["4.7", "4.6", "4.5", "4.4", "4.3"][:N]
def send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body); p.stdin.flush()
def recv(p):
    length = 0
    while True:
        line = p.stdout.readline().strip()
        if not line: break
        if line.lower().startswith(b"content-length:"): length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))
def wait(p, pred):
    while True:
        m = recv(p)
        if pred(m): return m
def request(p, id_, method, params):
    send(p, {"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
    return wait(p, lambda m: m.get("id") == id_ and "method" not in m)
def vm(pid):
    d = {}
    for l in open(f"/proc/{pid}/status"):
        k, _, v = l.partition(":")
        if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"): d[k] = int(v.split()[0])
    return d
p = subprocess.Popen([SERVER, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
request(p, 1, "initialize", {"capabilities": {}, "processId": None, "rootUri": None,
        "initializationOptions": {"netbox_version": VERSIONS[0]}})
send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
    "uri": URI, "languageId": "markdown", "version": 1, "text": TEXT}}})
wait(p, lambda m: m.get("method") == "textDocument/publishDiagnostics")
line = next(i for i, l in enumerate(TEXT.splitlines()) if '"status": "' in l)
col = TEXT.splitlines()[line].index('"status": "') + 11
rid = 10
for v in VERSIONS:
    send(p, {"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": {"settings": {"netboxLsp": {"netbox_version": v}}}})
    wait(p, lambda m: m.get("method") == "textDocument/publishDiagnostics")
    rid += 1
    request(p, rid, "textDocument/completion", {"textDocument": {"uri": URI}, "position": {"line": line, "character": col}})
def cpu():
    st = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(st[11]) + int(st[12])) * 1000 / os.sysconf("SC_CLK_TCK")
EDITS = int(os.environ.get("EDITS", "0"))
c0 = cpu(); w0 = time.perf_counter()
for i in range(EDITS):
    send(p, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": URI, "version": 2 + i},
        "contentChanges": [{"text": TEXT + "\n" * (i % 2)}]}})
    wait(p, lambda m: m.get("method") == "textDocument/publishDiagnostics")
edit_cpu = (cpu() - c0) / max(EDITS, 1); edit_wall = (time.perf_counter() - w0) * 1000 / max(EDITS, 1)
time.sleep(float(os.environ.get("SETTLE", "0.3")))
m = vm(p.pid)
st = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
m["cpu_ms"] = (int(st[11]) + int(st[12])) * 1000 // os.sysconf("SC_CLK_TCK")
request(p, 99, "shutdown", None); send(p, {"jsonrpc": "2.0", "method": "exit"}); p.wait(timeout=10)
print(json.dumps({"releases": N, **m, "edit_cpu_ms": edit_cpu, "edit_wall_ms": round(edit_wall, 2)}))
