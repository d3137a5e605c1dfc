#!/usr/bin/env bash
# Compile-only check of the benchmarks (for CI): `cargo bench --no-run --bench '*'`.
#
# Cost: the `bench` profile inherits `release`, and cargo shares the compiled dependencies
# between the two (criterion and its dependencies are compiled once), but it builds this crate
# (library and binary) again for the bench profile even right after `cargo build --release`, and
# writes that binary over target/release/netbox-lsp (same optimisation settings). Measured here
# (2 shared cores, busy): about 2-4 minutes for the crate, lib + bin + the three benches.
# `--bench '*'` builds only the bench targets (and what they need), not the lib and bin unit-test
# harnesses that plain `cargo bench --no-run` also compiles.
#
# Usage: scripts/bench-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --no-run --bench '*'
