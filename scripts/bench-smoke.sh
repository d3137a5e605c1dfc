#!/usr/bin/env bash
# Compile-only check of every benchmark (for CI): `cargo bench --no-run`.
#
# `cargo bench` builds with the `bench` profile, which inherits `release`; its artifacts go to
# target/release like `cargo build --release`, so after a release build only the bench targets
# (and their dev-dependencies such as criterion, once) are compiled. On a cold target directory
# it costs a full optimised build of the dependencies.
#
# Usage: scripts/bench-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --no-run --benches
