#!/usr/bin/env bash
# The load and memory goals of docs/benchmarks.md for the shipped releases, measured for this
# build and a baseline binary in the same run, interleaved round by round (so both see the same
# machine load): process start (`--version`), `index info` (decodes the default index),
# `check` of a small REST-only file and of examples/ (wall time, peak RSS), the language server
# from spawn to the first diagnostics of examples/skills/netbox-inventory/SKILL.md, and its
# resident memory with the default release loaded and after switching to 4.3 (two releases'
# knowledge cached). Also the instructions of `index info` minus `--version` under callgrind
# (the index decode, repeatable on a busy machine). Prints medians and ratios (this / baseline).
#
# Usage: scripts/bench-releases.sh BASELINE_BINARY [ROUNDS]   (default 15 rounds)
# Needs: python3, /usr/bin/time (Debian: time), valgrind (optional: the instruction counts).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASE="${1:?usage: scripts/bench-releases.sh BASELINE_BINARY [ROUNDS]}"
ROUNDS="${2:-15}"
NEW="${CARGO_TARGET_DIR:-$ROOT/target}/release/netbox-lsp"
cd "$ROOT"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (dirty)')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$NEW" "$BASE" "$ROUNDS" <<'PY'
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time

new, base, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
tmp = tempfile.mkdtemp()
small = os.path.join(tmp, "small.md")
with open(small, "w") as f:
    f.write("List devices: `GET /api/dcim/devices/?site=ams1&role_id=3&status=active`\n")
skill = "examples/skills/netbox-inventory/SKILL.md"
skill_text = open(skill).read()

def timed(binary, args):
    """Wall ms and peak RSS (kB) of one run."""
    out = os.path.join(tmp, "time.txt")
    t = time.perf_counter()
    subprocess.run(["/usr/bin/time", "-v", "-o", out, binary, *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ms = (time.perf_counter() - t) * 1000
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(out).read())[1])
    return ms, rss

def frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body

def read_msg(stream):
    length = 0
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))

def vm(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key):
            return int(line.split()[1])
    return 0

def server(binary):
    """Spawn → first diagnostics (ms), then VmHWM/VmRSS (kB) with the default release and after
    switching the configuration to 4.3."""
    t = time.perf_counter()
    p = subprocess.Popen([binary, "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    uri = "file://" + os.path.abspath(skill)
    p.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"processId": None, "rootUri": None, "capabilities": {}}}))
    p.stdin.flush()
    while True:
        m = read_msg(p.stdout)
        if m is None or m.get("id") == 1:
            break
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": skill_text}}}))
    p.stdin.flush()
    def diagnostics():
        while True:
            m = read_msg(p.stdout)
            if m is None:
                return None
            if m.get("method") == "workspace/configuration":
                p.stdin.write(frame({"jsonrpc": "2.0", "id": m["id"],
                                     "result": [None] * len(m["params"]["items"])}))
                p.stdin.flush()
            elif m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]
    d = diagnostics()
    start = (time.perf_counter() - t) * 1000
    one = (vm(p.pid, "VmHWM"), vm(p.pid, "VmRSS"))
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
                         "params": {"settings": {"netboxLsp": {"netbox_version": "4.3"}}}}))
    p.stdin.flush()
    diagnostics()
    two = (vm(p.pid, "VmHWM"), vm(p.pid, "VmRSS"))
    p.stdin.write(frame({"jsonrpc": "2.0", "id": 9, "method": "shutdown"}))
    p.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    p.stdin.flush()
    p.wait(timeout=10)
    return start, one, two, len(d or [])

figures = {}
def add(name, who, value):
    figures.setdefault(name, {}).setdefault(who, []).append(value)

for r in range(rounds):
    for who, b in (("new", new), ("base", base)) if r % 2 == 0 else (("base", base), ("new", new)):
        for name, args in (("--version", ["--version"]), ("index info", ["index", "info"]),
                           ("check small.md", ["check", small]), ("check examples/", ["check", "examples/"])):
            ms, rss = timed(b, args)
            add(f"{name}: wall ms", who, ms)
            add(f"{name}: peak RSS MB", who, rss / 1024)
        start, one, two, n = server(b)
        add("server: spawn → first diagnostics ms", who, start)
        add("server: VmHWM MB, default release", who, one[0] / 1024)
        add("server: VmRSS MB, default release", who, one[1] / 1024)
        add("server: VmHWM MB, default + 4.3.3", who, two[0] / 1024)
        add("server: VmRSS MB, default + 4.3.3", who, two[1] / 1024)

def version(b):
    return subprocess.run([b, "index", "info"], capture_output=True, text=True).stdout.split("\n")[0]
print(f"this build: {new} ({version(new)}); baseline: {base} ({version(base)}); {rounds} rounds, interleaved")
print(f"binary size: this {os.path.getsize(new) / 1e6:.1f} MB, baseline {os.path.getsize(base) / 1e6:.1f} MB")
print("| figure | this build (median) | baseline (median) | ratio |")
print("|---|---|---|---|")
for name, by in figures.items():
    a, b = statistics.median(by["new"]), statistics.median(by["base"])
    print(f"| {name} | {a:.2f} | {b:.2f} | {a / b:.2f}× |")

if shutil.which("valgrind"):
    def instr(b, args):
        out = os.path.join(tmp, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", b, *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for line in open(out):
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
        return 0
    rows = []
    for who, b in (("this build", new), ("baseline", base)):
        rows.append((who, instr(b, ["index", "info"]) - instr(b, ["--version"])))
    print(f"index decode, callgrind instructions of `index info` minus `--version`: "
          f"{rows[0][0]} {rows[0][1] / 1e6:.1f} M, {rows[1][0]} {rows[1][1] / 1e6:.1f} M "
          f"({rows[0][1] / rows[1][1]:.2f}×)")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
