#!/usr/bin/env bash
# Issue 12 §1–§3, issue 22 §2 in CI: builds the wheel as `pip wheel .` does (the project's PEP 517
# backend: maturin from PyPI for the Python module, reusing the crate's release build in
# target/, so only pyo3 and the bindings compile), shipping the given binary (CI: the static
# musl one, as releases do), checks the sdist carries what a source build needs, installs the
# wheel into a fresh venv, runs `netbox-lsp check examples/` and `python -m netbox_lsp check
# examples/` from that install (same output and exit code as the given binary), the pytest suite
# (Python API and its property test, the server's initialize handshake) and mypy's stubtest.
# The pre-commit hook built from source is scripts/precommit-ci.sh.
# Usage: scripts/python-ci.sh [path/to/netbox-lsp]   (default target/release/netbox-lsp)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$(realpath "${1:-target/release/netbox-lsp}")
PY=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say() { printf -- '--- %s\n' "$*"; }
t0=$SECONDS
unset PIP_FIND_LINKS

say "versions agree (scripts/versions.sh: Cargo.toml, python/Cargo.toml, the extension, the lock files)"
v=$(scripts/versions.sh)

say "wheel: pip wheel . (the backend ships $BIN)"
NETBOX_LSP_BINARY="$BIN" "$PY" -m pip wheel -v --no-deps --disable-pip-version-check -w "$WORK/dist" . \
  > "$WORK/wheel.log" 2>&1 || { tail -40 "$WORK/wheel.log"; exit 1; }
grep -E "Compiling|Built wheel" "$WORK/wheel.log" | sed 's/^ *//'
ls -l "$WORK"/dist/*.whl
# After `cargo test --release` only pyo3 and the bindings should compile (scripts/feature-parity.sh).
if grep -q "Compiling netbox-lsp v" "$WORK/wheel.log"; then
  echo "WARNING: the wheel build compiled the netbox-lsp crate again: its feature set differs from"
  echo "         cargo test's (scripts/feature-parity.sh says which package), CI pays for a second build"
fi
"$PY" - "$WORK"/dist/*.whl "$BIN" <<'PY'
import hashlib, sys, zipfile
wheel, binary = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    script = [n for n in names if n.endswith(".data/scripts/netbox-lsp")]
    assert script, names
    assert hashlib.sha256(z.read(script[0])).digest() == hashlib.sha256(open(binary, "rb").read()).digest()
    assert any(n.endswith("_native.abi3.so") for n in names), names
    assert "netbox_lsp/py.typed" in names, names
print("wheel carries the given binary, the module and py.typed")
PY

say "sdist: what a source build needs is in it"
"$PY" -m venv "$WORK/tools"
"$WORK/tools/bin/pip" install -q --disable-pip-version-check "build>=1,<2"
"$WORK/tools/bin/python" -m build --sdist --outdir "$WORK/sdist" . > "$WORK/sdist.log" 2>&1 \
  || { cat "$WORK/sdist.log"; exit 1; }
sdist=$(ls "$WORK"/sdist/*.tar.gz)
tar tzf "$sdist" > "$WORK/sdist.txt"
for f in pyproject.toml Cargo.toml Cargo.lock src/lib.rs src/main.rs index/netbox-4.6.8.index.json.gz \
         python/Cargo.toml python/src/lib.rs python/backend/netbox_lsp_backend.py \
         python/python/netbox_lsp/__init__.py python/README.md; do
  grep -q "^[^/]*/$f\$" "$WORK/sdist.txt" || { echo "sdist lacks $f"; exit 1; }
done
if grep -q '/python/data/scripts/.' "$WORK/sdist.txt"; then echo "sdist carries a binary"; exit 1; fi
echo "$(basename "$sdist"): $(wc -l < "$WORK/sdist.txt") files, $(du -k "$sdist" | cut -f1) KiB"

say "fresh venv: pip install the wheel"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "$WORK"/dist/*.whl "pytest>=8,<10" "hypothesis>=6,<7"

say "netbox-lsp check examples/ from the install (expect exit 1 and the cargo binary's output)"
set +e
"$BIN" check examples/ > "$WORK/want.txt"; want=$?
"$WORK/venv/bin/netbox-lsp" check examples/ > "$WORK/got.txt"; got=$?
"$WORK/venv/bin/python" -m netbox_lsp check examples/ > "$WORK/got-m.txt"; got_m=$?
set -e
tail -1 "$WORK/got.txt"
[ "$want" = 1 ] && [ "$got" = 1 ] && [ "$got_m" = 1 ] || { echo "exit codes: cargo $want, pip $got, python -m $got_m (want 1)"; exit 1; }
grep -q 'error\[unknown-filter\] `device_role_id`' "$WORK/got.txt"
diff "$WORK/want.txt" "$WORK/got.txt"
diff "$WORK/want.txt" "$WORK/got-m.txt"

say "pytest (Python API, install, server handshake)"
(cd "$WORK" && "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/python/tests")

say "type stubs match the native module (mypy stubtest)"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "mypy>=1.15,<2"
"$WORK/venv/bin/python" -m mypy.stubtest netbox_lsp._native

say "python ci done in $((SECONDS - t0)) s"
