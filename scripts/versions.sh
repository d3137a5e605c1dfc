#!/usr/bin/env bash
# The release version, one number in every manifest (issue 35 §1): Cargo.toml, python/Cargo.toml
# (the wheel's version: pyproject.toml declares `dynamic = ["version"]` and maturin reads it from
# the manifest its `[tool.maturin] manifest-path` names), editors/vscode/package.json and its
# package-lock.json, and both crates' entries in Cargo.lock. Prints the version.
#
# Usage: scripts/versions.sh              the manifests agree (CI, every run)
#        scripts/versions.sh v0.2.0       ... and equal the tag (the release workflow, first job)
# With RELEASE_REPOSITORY=https://github.com/OWNER/REPO (the release workflow sets it) it also
# checks what publishing needs: `repository` in Cargo.toml is that URL (the docs links in the
# server and SARIF are built from it) and every [project.urls] entry of pyproject.toml is an
# absolute https URL (PyPI refuses relative ones).
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "versions: $*" >&2; exit 1; }

toml_version() { sed -n 's/^version = "\([^"]*\)".*/\1/p' "$1" | head -1; }
root=$(toml_version Cargo.toml)
py=$(toml_version python/Cargo.toml)
ext=$(python3 -c 'import json; print(json.load(open("editors/vscode/package.json"))["version"])')
lock=$(python3 -c 'import json; d=json.load(open("editors/vscode/package-lock.json")); print(d["version"], d["packages"][""]["version"])')
cargo_lock=$(awk '/^name = "netbox-lsp(-python)?"$/{getline; sub(/^version = "/,""); sub(/"$/,""); print}' Cargo.lock | sort -u | tr '\n' ' ')

[ -n "$root" ] || fail "no version in Cargo.toml"
[ "$py" = "$root" ] || fail "python/Cargo.toml says $py, Cargo.toml says $root"
[ "$ext" = "$root" ] || fail "editors/vscode/package.json says $ext, Cargo.toml says $root"
[ "$lock" = "$root $root" ] || fail "editors/vscode/package-lock.json says $lock, Cargo.toml says $root"
[ "$cargo_lock" = "$root " ] || fail "Cargo.lock says $cargo_lock for netbox-lsp and netbox-lsp-python, Cargo.toml says $root (run cargo update -w)"
grep -q '^dynamic = \["version"\]' pyproject.toml || fail "pyproject.toml must take its version from python/Cargo.toml (dynamic = [\"version\"])"
grep -q '^manifest-path = "python/Cargo.toml"' pyproject.toml || fail "pyproject.toml's [tool.maturin] manifest-path is not python/Cargo.toml"

if [ $# -gt 0 ]; then
  tag=$1
  [ "$tag" = "v$root" ] || fail "tag $tag does not match the version $root of the manifests (expected v$root)"
fi

if [ -n "${RELEASE_REPOSITORY:-}" ]; then
  repo=$(sed -n 's/^repository = "\([^"]*\)".*/\1/p' Cargo.toml | head -1)
  [ "$repo" = "$RELEASE_REPOSITORY" ] || fail "Cargo.toml's repository is '${repo}', the release is built from $RELEASE_REPOSITORY: set it (it makes the docs links of the diagnostics)"
  python3 - "$RELEASE_REPOSITORY" <<'PY' || exit 1
import sys, tomllib
urls = tomllib.load(open("pyproject.toml", "rb"))["project"].get("urls", {})
bad = {k: v for k, v in urls.items() if not v.startswith(sys.argv[1] + "/")}
if bad:
    sys.exit(f"versions: pyproject.toml [project.urls] must be absolute URLs under {sys.argv[1]}/ for PyPI: {bad}")
PY
fi
echo "$root"
