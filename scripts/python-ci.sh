#!/usr/bin/env bash
# Issue 12 §1–§3 in CI: builds the wheel (maturin from PyPI; the crate's release build in
# target/ is reused, only pyo3 and the bindings compile), installs it into a fresh venv, runs
# `netbox-lsp check examples/` and `python -m netbox_lsp check examples/` from that install
# (same output and exit code as the cargo-built binary), the pytest suite (Python API, the
# server's initialize handshake), and the pre-commit hook on a sample repository.
# Usage: scripts/python-ci.sh [path/to/netbox-lsp]   (default target/release/netbox-lsp)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${1:-target/release/netbox-lsp}
PY=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK" python/data' EXIT
say() { printf -- '--- %s\n' "$*"; }
t0=$SECONDS

say "versions agree (Cargo.toml, python/Cargo.toml, pyproject.toml shim)"
cargo_version() { sed -n 's/^version = "\([^"]*\)".*/\1/p' "$1" | head -1; }
v=$(cargo_version Cargo.toml)
[ "$(cargo_version python/Cargo.toml)" = "$v" ] || { echo "python/Cargo.toml version differs from $v"; exit 1; }
grep -q "\"netbox-lsp==$v\"" pyproject.toml || { echo "pyproject.toml does not pin netbox-lsp==$v"; exit 1; }

say "build tools from PyPI"
"$PY" -m venv "$WORK/tools"
"$WORK/tools/bin/pip" install -q --disable-pip-version-check "maturin>=1.9,<2" "pre-commit>=4,<5"

say "wheel"
mkdir -p python/data/scripts
cp "$BIN" python/data/scripts/netbox-lsp
strip python/data/scripts/netbox-lsp 2>/dev/null || true
(cd python && "$WORK/tools/bin/maturin" build --release --strip --out "$WORK/dist") 2>&1 | tee "$WORK/maturin.log" | grep -E "Compiling|Built wheel"
ls -l "$WORK"/dist/*.whl
# After `cargo test --release` only pyo3 and the bindings should compile (python/Cargo.toml).
if grep -q "Compiling netbox-lsp v" "$WORK/maturin.log"; then
  echo "WARNING: the wheel build compiled the netbox-lsp crate again: its feature set differs from"
  echo "         cargo test's (see the feature list in python/Cargo.toml), CI pays for a second build"
fi

say "fresh venv: pip install the wheel"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "$WORK"/dist/*.whl "pytest>=8,<10"

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

say "pre-commit try-repo on a sample repository (a right and a wrong skill file)"
# The hook's environment installs the root pyproject.toml, whose dependency is the wheel:
# pip finds the one just built (PIP_FIND_LINKS) instead of PyPI.
sample="$WORK/sample"
mkdir -p "$sample/skills/right" "$sample/skills/wrong"
cat > "$sample/skills/right/SKILL.md" <<'MD'
# Leaf switches
```python
netbox_get_objects("dcim.device", filters={"role_id": 3, "status": "active"})
```
MD
cat > "$sample/skills/wrong/SKILL.md" <<'MD'
# Leaf switches
```python
netbox_get_objects("dcim.device", filters={"device_role_id": 3, "status": "active"})
```
MD
git -C "$sample" init -q
git -C "$sample" add skills/right/SKILL.md
git -C "$sample" -c user.name=ci -c user.email=ci@localhost commit -qm right
export PRE_COMMIT_HOME="$WORK/pre-commit-home" PIP_FIND_LINKS="$WORK/dist"
(cd "$sample" && "$WORK/tools/bin/pre-commit" try-repo "$ROOT" netbox-lsp --all-files) > "$WORK/pc-right.txt" 2>&1 \
  || { cat "$WORK/pc-right.txt"; echo "pre-commit failed on the right skill file"; exit 1; }
grep -q "Passed" "$WORK/pc-right.txt" || { cat "$WORK/pc-right.txt"; exit 1; }
git -C "$sample" add skills/wrong/SKILL.md
if (cd "$sample" && "$WORK/tools/bin/pre-commit" try-repo "$ROOT" netbox-lsp --all-files) > "$WORK/pc-wrong.txt" 2>&1; then
  cat "$WORK/pc-wrong.txt"; echo "pre-commit passed a wrong skill file"; exit 1
fi
grep -q 'skills/wrong/SKILL.md:3:.*error\[unknown-filter\] `device_role_id`' "$WORK/pc-wrong.txt" \
  || { cat "$WORK/pc-wrong.txt"; exit 1; }
if grep -q 'skills/right' "$WORK/pc-wrong.txt"; then cat "$WORK/pc-wrong.txt"; exit 1; fi
echo "pre-commit: right file passed, wrong file failed with unknown-filter"
say "python ci done in $((SECONDS - t0)) s"
