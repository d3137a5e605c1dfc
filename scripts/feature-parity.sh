#!/usr/bin/env bash
# The three release builds of the library share one feature set: `cargo build --release` (the
# binary; the wheel's backend and the pre-commit hook run it), `cargo test --release` (where the
# dev-dependencies turn features on too) and the Python module's (python/Cargo.toml, built by
# maturin). When a dependency's features differ between them, cargo compiles it, and everything
# above it up to the netbox-lsp library, once more: about 400 s of CPU a CI run. Cargo.toml's
# [dependencies] turn on what the dev-dependencies do; this says which package drifted, and how.
# Reads Cargo.lock only (`cargo tree --locked`), builds nothing; about 2 s.
# Usage: scripts/feature-parity.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tree() { cargo tree --locked --prefix none -f '{p}|{f}' "$@"; }
build=$(tree -p netbox-lsp -e features,normal,build)
test=$(tree -p netbox-lsp -e features,normal,build,dev)
module=$(tree -p netbox-lsp-python -e features,normal,build)
python3 - "$build" "$test" "$module" <<'PY'
import sys

def features(text):
    """`name version` -> its enabled features, from `cargo tree -f '{p}|{f}'` lines."""
    out = {}
    for line in text.splitlines():
        if "|" not in line:
            continue  # a feature node of `-e features` (`serde feature "std"`)
        package, feats = line.split("|", 1)
        package = " ".join(package.split()[:2])  # `name vX.Y.Z`, without `(path)` or `(*)`
        feats = feats.replace("(*)", "").strip()
        out.setdefault(package, set()).update(f for f in feats.split(",") if f)
    return out

build, test, module = (features(t) for t in sys.argv[1:4])
drift = []
for name, other in (("cargo test --release", test), ("the Python module", module)):
    for package in sorted(build.keys() & other.keys()):
        if package.startswith(("netbox-lsp ", "netbox-lsp-python ")):
            continue
        if build[package] != other[package]:
            more = sorted(other[package] - build[package])
            less = sorted(build[package] - other[package])
            drift.append(f"  {package}: {name} adds {more or 'nothing'}, lacks {less or 'nothing'}")
if drift:
    print("feature sets differ from `cargo build --release` (turn these on in Cargo.toml's [dependencies]):")
    print("\n".join(drift))
    sys.exit(1)
shared = len(build.keys() & test.keys() & module.keys())
print(f"one feature set: {shared} packages built by all three builds have the same features")
PY
