"""PEP 517 build backend of the `netbox-lsp` wheel: maturin (the `netbox_lsp._native` PyO3
module), with the `netbox-lsp` binary built first and put in the wheel's scripts, so that
`pip install .`, `pip install git+<url>`, `pipx install .`, an sdist and pre-commit's
`language: python` each build a whole wheel in one command (Rust and a C compiler needed).

The binary is built with `cargo build --release --locked` for the same target cargo builds the
module for (`CARGO_BUILD_TARGET` if set), into cargo's own target folder (`CARGO_TARGET_DIR`
is honoured), and with the feature set of the module's build, so the library is compiled once
for both. `NETBOX_LSP_BINARY=/path/to/netbox-lsp` skips that build and ships the given binary
instead (scripts/dist.sh: a static musl or Windows build made beforehand).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import maturin
from maturin import (  # noqa: F401  (the rest of the PEP 517 interface, as maturin has it)
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "python" / "data" / "scripts"


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


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _empty_data_dir()
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    _empty_data_dir()
    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _stage_binary()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _stage_binary()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    # The sdist carries the sources, never a binary: it is built when the sdist is installed.
    shutil.rmtree(SCRIPTS, ignore_errors=True)
    _empty_data_dir()
    return maturin.build_sdist(sdist_directory, config_settings)
