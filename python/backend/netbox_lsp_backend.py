"""PEP 517 build backend of the `netbox-lsp` wheel: maturin (the `netbox_lsp._native` PyO3
module), with the `netbox-lsp` binary built first and put in the wheel's scripts, so that
`pip install .`, `pip install git+<url>`, `pipx install .`, an sdist and pre-commit's
`language: python` each build a whole wheel in one command (Rust and a C compiler needed).

The binary is built with `cargo build --release --locked` for the same target cargo builds the
module for (`CARGO_BUILD_TARGET` if set), into cargo's own target folder (`CARGO_TARGET_DIR`
is honoured), and with the feature set of the module's build, so the library is compiled once
for both. `NETBOX_LSP_BINARY=/path/to/netbox-lsp` skips that build and ships the given binary
instead (scripts/dist.sh: a static musl or Windows build made beforehand).

The published wheel instead of a build (issue 35 §1): pre-commit (`language: python`) and
`pip install git+<url>@<rev>` build from a clone. When that clone is exactly a release — its
commit is the one recorded in the release's wheel on PyPI — the backend hands pip that wheel
(checked against the index's SHA-256, and against PyPI's provenance: uploaded by trusted
publishing from this repository's release workflow) instead of compiling, so a `rev:` that
names a release installs in seconds with no Rust. Every other tree (an unreleased commit, a
changed file, no `repository` in Cargo.toml, no network, no such release) builds from source,
as before. `NETBOX_LSP_FROM_SOURCE=1` always builds; `NETBOX_LSP_WHEEL_INDEX` names another
index than https://pypi.org (tests: a server on loopback). Each wheel this backend builds
records its source commit in `netbox_lsp/_source.txt` (`<sha>`, `+dirty` when the tree had
changes).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import maturin
from maturin import (  # noqa: F401  (the rest of the PEP 517 interface, as maturin has it)
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "python" / "data" / "scripts"
SOURCE = ROOT / "python" / "python" / "netbox_lsp" / "_source.txt"
PROJECT = "netbox-lsp"
WORKFLOW = "release.yml"


def _say(msg: str) -> None:
    print(f"netbox-lsp build: {msg}", flush=True)


def _cargo() -> str:
    cargo = shutil.which("cargo")
    if cargo is None:
        sys.exit(
            "netbox-lsp build: cargo is not on PATH. Building netbox-lsp from source needs Rust "
            "(rustup.rs; the project is tested with Rust 1.95) and a C compiler (cc)."
        )
    return cargo


def _target_dir(cargo: str) -> Path:
    out = subprocess.run(
        [cargo, "metadata", "--format-version", "1", "--no-deps", "--locked",
         "--manifest-path", str(ROOT / "Cargo.toml")],
        check=True, stdout=subprocess.PIPE,
    ).stdout
    return Path(json.loads(out)["target_directory"])


def _binary() -> Path:
    """The `netbox-lsp` binary to ship: the given one, or a fresh release build."""
    given = os.environ.get("NETBOX_LSP_BINARY")
    if given:
        _say(f"shipping the given binary {given}")
        return Path(given)
    cargo = _cargo()
    # `-p netbox-lsp-python` joins the module's dependencies to the feature resolution (the
    # binary is still the only thing built), so its library build is the one the module reuses.
    cmd = [cargo, "build", "--release", "--locked", "--manifest-path", str(ROOT / "Cargo.toml"),
           "-p", "netbox-lsp", "-p", "netbox-lsp-python", "--bin", "netbox-lsp"]
    _say(" ".join(cmd) + "  (the first build takes minutes)")
    subprocess.run(cmd, check=True)
    triple = os.environ.get("CARGO_BUILD_TARGET")
    release = _target_dir(cargo) / (triple or "") / "release"
    exe = ".exe" if (triple and "windows" in triple) or (not triple and os.name == "nt") else ""
    return release / f"netbox-lsp{exe}"


def _stage_binary() -> None:
    binary = _binary()
    if not binary.is_file():
        sys.exit(f"netbox-lsp build: no binary at {binary}")
    shutil.rmtree(SCRIPTS, ignore_errors=True)
    SCRIPTS.mkdir(parents=True)
    name = "netbox-lsp.exe" if binary.suffix == ".exe" else "netbox-lsp"
    shutil.copy2(binary, SCRIPTS / name)


def _empty_data_dir() -> None:
    # maturin wants the `data` folder of pyproject.toml to exist before anything is built.
    SCRIPTS.mkdir(parents=True, exist_ok=True)


def get_requires_for_build_wheel(config_settings=None):
    # `packaging` picks the published wheel that fits this interpreter (its tags).
    return [*maturin.get_requires_for_build_wheel(config_settings), "packaging>=23"]


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _source_commit() -> str | None:
    """`<sha>` of the tree being built, `<sha>+dirty` with changes to tracked files, `None`
    outside a git checkout."""
    sha = _git("rev-parse", "HEAD")
    if not sha or not re.fullmatch(r"[0-9a-f]{40}", sha):
        return None
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return sha if dirty == "" else sha + "+dirty"


def _manifest(key: str, path: Path) -> str | None:
    m = re.search(rf'^{key} = "([^"]*)"', path.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else None


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=15) as r:
            return r.read()
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _published_wheel(wheel_directory: str) -> str | None:
    """The file name of the published wheel put in `wheel_directory` when this tree is a
    release (see the module docs), else `None` (build from source), saying why."""
    if os.environ.get("NETBOX_LSP_FROM_SOURCE") == "1" or os.environ.get("NETBOX_LSP_BINARY"):
        return None
    repo = _manifest("repository", ROOT / "Cargo.toml")
    version = _manifest("version", ROOT / "python" / "Cargo.toml")
    commit = _source_commit()
    m = re.fullmatch(r"https://github\.com/([^/]+/[^/]+?)/?", repo or "")
    if not (m and version and commit) or commit.endswith("+dirty"):
        return None  # no public repository yet, or not a clean checkout: no release to match
    index = os.environ.get("NETBOX_LSP_WHEEL_INDEX", "https://pypi.org").rstrip("/")
    meta = _get(f"{index}/pypi/{PROJECT}/{version}/json")
    if meta is None:
        _say(f"no published {PROJECT} {version} found at {index}: building from source")
        return None
    from packaging.tags import sys_tags
    from packaging.utils import parse_wheel_filename

    files = {f["filename"]: f for f in json.loads(meta).get("urls", [])
             if f.get("filename", "").endswith(".whl")}
    fits = None
    for tag in sys_tags():
        fits = next((f for name, f in files.items() if tag in parse_wheel_filename(name)[3]), None)
        if fits:
            break
    if fits is None:
        _say(f"no published {PROJECT} {version} wheel fits this Python: building from source")
        return None
    name, digest = fits["filename"], fits.get("digests", {}).get("sha256", "")
    provenance = _get(f"{index}/integrity/{PROJECT}/{version}/{name}/provenance")
    publishers = []
    if provenance:
        for bundle in json.loads(provenance).get("attestation_bundles", []):
            publishers.append(bundle.get("publisher") or {})
    trusted = any(p.get("kind") == "GitHub" and p.get("repository") == m.group(1)
                  and p.get("workflow") == WORKFLOW for p in publishers)
    if not trusted:
        _say(f"{name} is not attested as published by {m.group(1)}'s {WORKFLOW}: building from source")
        return None
    data = _get(fits["url"])
    if data is None or hashlib.sha256(data).hexdigest() != digest:
        _say(f"{name}: download failed or its SHA-256 differs from the index's: building from source")
        return None
    target = Path(wheel_directory) / name
    target.write_bytes(data)
    try:
        with zipfile.ZipFile(target) as z:
            recorded = z.read("netbox_lsp/_source.txt").decode().strip()
    except (KeyError, zipfile.BadZipFile, UnicodeDecodeError):
        recorded = None
    if recorded != commit:
        target.unlink()
        _say(f"{name} was built from {recorded}, this tree is {commit}: building from source")
        return None
    _say(f"this tree is the release {version} ({commit[:12]}): installing the published {name}")
    return name


def _record_source() -> None:
    SOURCE.write_text((_source_commit() or "unknown") + "\n", encoding="utf-8")


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _empty_data_dir()
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    _empty_data_dir()
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    published = _published_wheel(wheel_directory)
    if published:
        return published
    _stage_binary()
    _record_source()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _stage_binary()
    _record_source()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    # The sdist carries the sources, never a binary: it is built when the sdist is installed.
    shutil.rmtree(SCRIPTS, ignore_errors=True)
    SOURCE.unlink(missing_ok=True)  # an sdist is built into a wheel of its own source
    _empty_data_dir()
    return maturin.build_sdist(sdist_directory, config_settings)
