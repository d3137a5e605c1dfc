"""The installed package as a user meets it: the `netbox-lsp` command from the wheel,
`python -m netbox_lsp`, and the language server's initialize handshake over stdio."""

import json
import pathlib
import subprocess
import sys

import netbox_lsp

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_binary_is_in_the_environment_scripts():
    exe = pathlib.Path(netbox_lsp.find_netbox_lsp_bin())
    assert exe.parent == pathlib.Path(sys.executable).parent
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "netbox-lsp " + netbox_lsp.__version__


def test_python_m_runs_check():
    skill = REPO / "examples" / "skills" / "netbox-inventory" / "SKILL.md"
    out = subprocess.run(
        [sys.executable, "-m", "netbox_lsp", "check", str(skill)], capture_output=True, text=True
    )
    assert out.returncode == 1
    assert "error[unknown-filter] `device_role_id`" in out.stdout


def _send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def _recv(p):
    length = 0
    while True:
        line = p.stdout.readline()
        if not line:
            raise EOFError("server closed stdout")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))


def test_server_initialize_handshake_and_diagnostics():
    p = subprocess.Popen(
        [netbox_lsp.find_netbox_lsp_bin()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        _send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        while True:
            m = _recv(p)
            if m.get("id") == 1:
                break
        caps = m["result"]["capabilities"]
        assert m["result"]["serverInfo"]["name"] == "netbox-lsp"
        assert caps.get("hoverProvider") and caps.get("codeActionProvider")
        _send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        uri = "file:///tmp/pip-install/SKILL.md"
        text = 'Run `netbox_get_objects("dcim.device", filters={"device_role_id": 3})`.\n'
        _send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}})
        while True:
            m = _recv(p)
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                break
        assert [d["code"] for d in m["params"]["diagnostics"]] == ["unknown-filter"]
        _send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
        while _recv(p).get("id") != 2:
            pass
        _send(p, {"jsonrpc": "2.0", "method": "exit", "params": None})
        assert p.wait(timeout=10) == 0
    finally:
        if p.poll() is None:
            p.kill()


def test_project_metadata_as_pypi_shows_it():
    from importlib.metadata import metadata

    meta = metadata("netbox-lsp")
    assert meta["Version"] == netbox_lsp.__version__
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta["Requires-Python"] == ">=3.10"
    assert "NetBox" in meta["Summary"]
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3.10" in classifiers
    assert "Typing :: Typed" in classifiers
    # Project URLs name the project's own documents (paths in the repository until its URL is
    # filled in at publication, see python/pyproject.toml): each must exist.
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Documentation", "Python API", "Diagnostic codes", "Benchmarks"} <= set(urls)
    for label, url in urls.items():
        path = url.split("/blob/", 1)[1].split("/", 1)[1] if "/blob/" in url else url
        assert (REPO / path).is_file(), f"{label}: {url}"
