#!/usr/bin/env bash
# Release artefacts for one platform: the `netbox-lsp` binary, the VS Code `.vsix` that carries
# it, and the wheel (the binary and the Python API). Target-agnostic: each platform is one row
# of the table below (its Rust target, how the binary is linked, the target of the wheel's
# Python module and its tag flags); adding one (macOS, on a Mac) is one row.
#
# Usage: scripts/dist.sh PLATFORM [OUT]       (OUT default: dist/)
#        scripts/dist.sh --binary-only PLATFORM (just the binary, printed path; used by CI)
# PLATFORM: linux-x64 | linux-arm64 | alpine-x64 | alpine-arm64 | win32-x64 | darwin-arm64 | darwin-x64
# (VS Code's platform names; alpine-* are musl Linux: the same static binary, a musllinux wheel)
#
# Linux binaries are static (musl, linked by zig through cargo-zigbuild: both from PyPI) and run
# on any distribution. The wheel's Python module links against glibc 2.17 (zig's stubs:
# manylinux2014, which pip on RHEL/Rocky 8 and Ubuntu 20.04 accepts). Windows is built with
# Debian's mingw-w64 (scripts/platform-tools.sh windows), the wheel's module too: abi3, linked
# against python3.dll through the import library pyo3 writes (`generate-import-lib`,
# python/Cargo.toml), so no Windows Python is needed. Needs `rustup target add` of the
# platform's targets (done here) and, for the .vsix, Node.js and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

binary_only=
if [ "${1:-}" = "--binary-only" ]; then binary_only=1; shift; fi
PLATFORM=${1:?usage: scripts/dist.sh [--binary-only] PLATFORM [OUT]}
OUT=${2:-$ROOT/dist}

#            platform      binary target                 linker  wheel module target            wheel tag flag
case "$PLATFORM" in
  linux-x64)    BIN_TARGET=x86_64-unknown-linux-musl;  LINK=zig;   PY_TARGET=x86_64-unknown-linux-gnu;  PY_FLAGS="--zig --compatibility manylinux2014" ;;
  linux-arm64)  BIN_TARGET=aarch64-unknown-linux-musl; LINK=zig;   PY_TARGET=aarch64-unknown-linux-gnu; PY_FLAGS="--zig --compatibility manylinux2014" ;;
  alpine-x64)   BIN_TARGET=x86_64-unknown-linux-musl;  LINK=zig;   PY_TARGET=x86_64-unknown-linux-musl;  PY_FLAGS="--zig --compatibility musllinux_1_2" ;;
  alpine-arm64) BIN_TARGET=aarch64-unknown-linux-musl; LINK=zig;   PY_TARGET=aarch64-unknown-linux-musl; PY_FLAGS="--zig --compatibility musllinux_1_2" ;;
  win32-x64)    BIN_TARGET=x86_64-pc-windows-gnu;      LINK=mingw; PY_TARGET=x86_64-pc-windows-gnu;     PY_FLAGS="" ;;
  darwin-arm64) BIN_TARGET=aarch64-apple-darwin;       LINK=cargo; PY_TARGET=aarch64-apple-darwin;      PY_FLAGS="" ;;
  darwin-x64)   BIN_TARGET=x86_64-apple-darwin;        LINK=cargo; PY_TARGET=x86_64-apple-darwin;       PY_FLAGS="" ;;
  *) echo "dist: unknown platform $PLATFORM" >&2; exit 2 ;;
esac
EXE=; case "$BIN_TARGET" in *windows*) EXE=.exe ;; esac
say() { printf -- '--- dist %s: %s\n' "$PLATFORM" "$*" >&2; }

# Build tools from PyPI (zig, cargo-zigbuild, maturin), once per machine.
tools() { PATH="$(scripts/platform-tools.sh pypi):$PATH"; export PATH; }

target_add() {
  rustup target list --installed | grep -qx "$1" && return
  rustup target add "$1" >&2 || {
    echo "dist: \`rustup target add $1\` failed (above): $PLATFORM needs that target's standard library from static.rust-lang.org" >&2
    exit 1
  }
}

# `cargo build` for the target's linker: `cargo zigbuild` (zig links), or cargo with mingw-w64
# as the linker.
cargo_build() {
  case "$LINK" in
    zig) tools; cargo zigbuild "$@" ;;
    mingw)
      command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "dist: x86_64-w64-mingw32-gcc missing (scripts/platform-tools.sh windows, or apt-get install gcc-mingw-w64-x86-64)" >&2; exit 2; }
      CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc cargo build "$@" ;;
    cargo) cargo build "$@" ;;
  esac
}

target_add "$BIN_TARGET"
say "binary ($BIN_TARGET, $LINK)"
# Where the wheel's module has the binary's target (Windows, macOS; not musl, whose module is built
# without crt-static, a build of its own), `-p netbox-lsp-python`
# joins the module's dependencies to the feature resolution (only the binary is built), so the
# wheel below reuses this library build, as the PEP 517 backend's own build does.
PKGS=(-p netbox-lsp); [ "$PY_TARGET" = "$BIN_TARGET" ] && [ "$LINK" != zig ] && PKGS+=(-p netbox-lsp-python)
cargo_build --release --locked --target "$BIN_TARGET" "${PKGS[@]}" --bin netbox-lsp >&2
BIN="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/$BIN_TARGET/release/netbox-lsp$EXE"
test -f "$BIN"
if [ -n "$binary_only" ]; then echo "$BIN"; exit 0; fi

mkdir -p "$OUT"
cp "$BIN" "$OUT/netbox-lsp-$PLATFORM$EXE"

say ".vsix"
(cd editors/vscode && { [ -d node_modules ] || npm ci --no-audit --no-fund >&2; } &&
  npm run package:target -- --binary "$BIN" --target "$PLATFORM" --out "$OUT/netbox-lsp-$PLATFORM.vsix" >&2)

if [ -z "$PY_TARGET" ]; then say "no wheel for $PLATFORM yet"; ls -l "$OUT" >&2; exit 0; fi
say "wheel (Python module for $PY_TARGET, binary $BIN_TARGET)"
target_add "$PY_TARGET"
tools
# The backend (python/backend/netbox_lsp_backend.py) ships the given binary instead of building one.
export NETBOX_LSP_BINARY="$BIN"
case "$LINK" in
  mingw) export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc ;;
esac
python3 - "$OUT" "$PY_TARGET" $PY_FLAGS <<'PY' >&2
# maturin through the project's own PEP 517 backend, with the platform's flags.
import os, sys
sys.path.insert(0, "python/backend")
out, target, *flags = sys.argv[1:]
os.environ["MATURIN_PEP517_ARGS"] = " ".join(["--target", target, *flags])
import netbox_lsp_backend
print("wheel:", netbox_lsp_backend.build_wheel(out))
PY
ls -l "$OUT" >&2
