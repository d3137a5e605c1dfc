"""The build backend's published-wheel route (issue 35 §1), against a real HTTP server on
loopback standing in for PyPI: a clean tree whose commit is the one recorded in a published
wheel gets that wheel (checked against the index's SHA-256 and PyPI's provenance: trusted
publishing from the repository's release workflow); any mismatch, or no release at all, means
a build from source (`None`)."""

import hashlib
import http.server
import io
import json
import pathlib
import sys
import threading
import types
import zipfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"
VERSION = "9.9.9"
WHEEL = f"netbox_lsp-{VERSION}-py3-none-any.whl"


def backend():
    # The backend imports maturin at the top; its build functions are not used here.
    stub = types.ModuleType("maturin")
    stub.get_requires_for_build_editable = stub.get_requires_for_build_sdist = lambda *a: []
    sys.modules.setdefault("maturin", stub)
    sys.path.insert(0, str(REPO / "python" / "backend"))
    import netbox_lsp_backend

    return netbox_lsp_backend


def wheel(recorded: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("netbox_lsp/_source.txt", recorded + "\n")
        z.writestr("netbox_lsp/__init__.py", "")
    return out.getvalue()


class Index:
    """What the fake PyPI serves; changed by each case."""

    def __init__(self):
        self.files = {WHEEL: wheel(COMMIT)}
        self.digest = None
        self.publisher = {"kind": "GitHub", "repository": "owner/netbox-lsp", "workflow": "release.yml"}
        self.released = True
        self.requests = []


@pytest.fixture()
def index(monkeypatch):
    state = Index()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            state.requests.append(self.path)
            base = f"http://127.0.0.1:{self.server.server_port}"
            body = None
            if self.path == f"/pypi/netbox-lsp/{VERSION}/json" and state.released:
                urls = [{"filename": n, "url": f"{base}/files/{n}",
                         "digests": {"sha256": state.digest or hashlib.sha256(b).hexdigest()}}
                        for n, b in state.files.items()]
                body = json.dumps({"urls": urls}).encode()
            elif self.path == f"/integrity/netbox-lsp/{VERSION}/{WHEEL}/provenance":
                body = json.dumps({"attestation_bundles": [{"publisher": state.publisher}]}).encode()
            elif self.path.startswith("/files/"):
                body = state.files.get(self.path[len("/files/"):])
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    b = backend()
    monkeypatch.setenv("NETBOX_LSP_WHEEL_INDEX", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.delenv("NETBOX_LSP_FROM_SOURCE", raising=False)
    monkeypatch.delenv("NETBOX_LSP_BINARY", raising=False)
    manifest = {"repository": "https://github.com/owner/netbox-lsp", "version": VERSION}
    monkeypatch.setattr(b, "_manifest", lambda key, path: manifest[key])
    monkeypatch.setattr(b, "_source_commit", lambda: COMMIT)
    state.backend = b
    state.manifest = manifest
    yield state
    server.shutdown()


def test_the_release_commit_gets_the_published_wheel(index, tmp_path):
    name = index.backend._published_wheel(str(tmp_path))
    assert name == WHEEL
    assert (tmp_path / WHEEL).read_bytes() == index.files[WHEEL]


@pytest.mark.parametrize("case", ["other commit", "other publisher", "bad digest", "no release",
                                  "dirty tree", "no repository", "from source"])
def test_anything_else_builds_from_source(index, tmp_path, monkeypatch, case):
    if case == "other commit":
        index.files[WHEEL] = wheel("f" * 40)
    elif case == "other publisher":
        index.publisher = {"kind": "GitHub", "repository": "squatter/netbox-lsp", "workflow": "release.yml"}
    elif case == "bad digest":
        index.digest = "0" * 64
    elif case == "no release":
        index.released = False
    elif case == "dirty tree":
        monkeypatch.setattr(index.backend, "_source_commit", lambda: COMMIT + "+dirty")
    elif case == "no repository":
        index.manifest["repository"] = None
    elif case == "from source":
        monkeypatch.setenv("NETBOX_LSP_FROM_SOURCE", "1")
    assert index.backend._published_wheel(str(tmp_path)) is None
    assert not (tmp_path / WHEEL).exists(), "nothing is left behind"
    if case in ("dirty tree", "no repository", "from source"):
        assert index.requests == [], "no request for a tree that cannot be a release"
