#!/usr/bin/env bash
# Adds a NetBox release to this checkout and prints its review sheet (CONTRIBUTING.md, "Adding a
# NetBox release"). Two modes:
#
#   LAB_DIR=/work/lab-live scripts/add-release.sh 4.7.4       # the lab: build/start, capture, sweep
#   scripts/add-release.sh --from ../shared/netbox/v4.7.3 4.7.3   # from captured files, no lab
#
# The lab (../shared/lab, never in CI): a release on PyPI (4.7+) is built by build-pypi.sh, an
# older one from its git tag by build.sh, both idempotent (a built, running release takes
# seconds); nothing is stopped or reset. Then, into OUT (default ../shared/netbox/v<version>):
#   openapi.json.gz, graphql-introspection.json.gz, schema.graphql.gz, status.json.gz
#       ../shared/lab/pypi/capture.sh (a git-tag build is captured through a `netbox` shim that
#       runs its manage.py);
#   ground-truth.tsv        ../shared/lab/pypi/groundtruth.py: the previous release's rows replayed
#                           (EXTRA=file.py adds rows, as extra-4.7.py did for 4.7);
#   ground-truth-sweep.tsv  scripts/release/sweep.py: the earlier releases' sweeps replayed, the
#                           trigger values of every rule-table row (`netbox-lsp release probes`),
#                           every parameter the release added probed, wrong forms on its new
#                           endpoints.
# Then, with or without the lab (`netbox-lsp release add`, built here if missing):
#   index/netbox-<v>.index.json.gz (`index build`), index/netbox-<v>.schema.graphql.gz, the row
#   in RELEASES, index/version-differences.tsv, README's release table, the ground-truth
#   fixtures (tests/fixtures/ground-truth/v<v>.tsv and -sweep.tsv, graphql-ground-truth/v<v>.tsv)
#   with the previous release's expected codes where NetBox's verdict did not change; and the
#   review sheet (also in target/review-<v>.md) against the previous shipped release, with the
#   source lines of both releases when their source is at hand (the lab's venv or src folder, a
#   tag of the NetBox mirror, or --source/--previous-source).
#
# Options: --from DIR (no lab) --out DIR --previous VERSION --source DIR --previous-source DIR
# Environment: LAB_DIR (the lab's folder: required for the lab), MIRROR (the fetch tool's bare git
#   mirrors, default /work/.mirror), SERVICES_DIR (the lab whose postgres/redis to use, default
#   LAB_DIR), SHARED (default ../shared), WHEEL, EXTRA, DEMO_EXTRAS=1 (run
#   ../shared/lab/pypi/demo-extras.py first: it changes the lab's demo data; groundtruth.py
#   measures its expected counts on those objects), FRESH=1 (capture again what OUT has: each
#   capture is kept otherwise, so a run that stopped resumes).
# Pre-releases (4.8.0b1): `--from` takes them; the lab recipe builds X.Y.Z releases only.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-$HERE/../shared}
MIRROR=${MIRROR:-/work/.mirror}
FROM= OUT= PREVIOUS= SOURCE= PREVIOUS_SOURCE=
while [ $# -gt 1 ]; do
  case $1 in
    --from) FROM=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --previous) PREVIOUS=$2; shift 2 ;;
    --source) SOURCE=$2; shift 2 ;;
    --previous-source) PREVIOUS_SOURCE=$2; shift 2 ;;
    *) echo "add-release.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
VERSION=${1:?usage: scripts/add-release.sh [--from DIR] VERSION}
say() { echo "add-release: $*" >&2; }
die() { say "error: $*"; exit 2; }

WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
NB=$HERE/target/release/netbox-lsp
if [ ! -x "$NB" ]; then
  say "building netbox-lsp (cargo build --release)"
  (cd "$HERE" && cargo build --release >&2)
fi

# The previous shipped release: the newest row of RELEASES older than VERSION (pre-releases
# before their final release).
order() {
  python3 - "$@" <<'PY'
import re, sys
def key(v):
    m = re.fullmatch(r'v?(\d+)\.(\d+)(?:\.(\d+))?(?:-?(a|alpha|b|beta|rc|c)(\d*))?', v)
    if not m:
        sys.exit(f'not a version: {v}')
    stage = {'a': 0, 'alpha': 0, 'b': 1, 'beta': 1, 'rc': 2, 'c': 2}.get(m.group(4), 3)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), stage, int(m.group(5) or 0))
want, rows = sys.argv[1], sys.argv[2:]
older = [r for r in rows if key(r) < key(want)]
print(max(older, key=key) if older else '')
PY
}
mapfile -t ROWS < <(sed -n 's/^ *release!("\(.*\)"),$/\1/p' "$HERE/src/index/embedded.rs")
if [ -z "$PREVIOUS" ]; then
  PREVIOUS=$(order "$VERSION" "${ROWS[@]}")
  [ -n "$PREVIOUS" ] || die "no shipped release older than $VERSION: give --previous"
fi
PREV_DIR=$SHARED/netbox/v$PREVIOUS
say "NetBox $VERSION, reviewed against $PREVIOUS"

pypi() { # 4.7 and later are on PyPI
  [[ $1 =~ ^([0-9]+)\.([0-9]+) ]] && { [ "${BASH_REMATCH[1]}" -gt 4 ] || { [ "${BASH_REMATCH[1]}" -eq 4 ] && [ "${BASH_REMATCH[2]}" -ge 7 ]; }; }
}

if [ -z "$FROM" ]; then
  LAB_DIR=${LAB_DIR:?set LAB_DIR to the lab folder (or give --from DIR)}
  [[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "the lab recipe builds X.Y.Z releases only: capture $VERSION by hand and give --from DIR"
  OUT=${OUT:-$SHARED/netbox/v$VERSION}
  mkdir -p "$OUT"
  export LAB_DIR MIRROR
  if pypi "$VERSION"; then
    say "lab: build-pypi.sh $VERSION (idempotent)"
    SERVICES_DIR=${SERVICES_DIR:-$LAB_DIR} bash "$SHARED/lab/build-pypi.sh" "$VERSION" >&2
    CAPTURE_LAB=$LAB_DIR
  else
    say "lab: build.sh $VERSION (idempotent)"
    bash "$SHARED/lab/build.sh" "$VERSION" >&2
    # pypi/capture.sh runs `$LAB_DIR/venv-<v>/bin/netbox`: a shim lab folder whose `netbox` is
    # this build's manage.py (the lab itself is not touched).
    CAPTURE_LAB=$WORK/shim
    mkdir -p "$CAPTURE_LAB/venv-$VERSION/bin" "$CAPTURE_LAB/root-$VERSION"
    ln -s "$LAB_DIR/tokens.txt" "$CAPTURE_LAB/tokens.txt"
    ln -s "$LAB_DIR/venv-$VERSION/bin/python" "$CAPTURE_LAB/venv-$VERSION/bin/python"
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$LAB_DIR/venv-$VERSION/bin/python" \
      "$LAB_DIR/src-$VERSION/netbox/manage.py" >"$CAPTURE_LAB/venv-$VERSION/bin/netbox"
    chmod +x "$CAPTURE_LAB/venv-$VERSION/bin/netbox"
  fi
  if [ "${DEMO_EXTRAS:-}" = 1 ]; then
    say "lab: demo-extras.py (changes the lab's demo data)"
    LAB_DIR=$LAB_DIR python3 "$SHARED/lab/pypi/demo-extras.py" "$VERSION" >&2
  fi
  # Each capture is kept when OUT has it (a run that stopped resumes); FRESH=1 redoes them.
  have() { [ -z "${FRESH:-}" ] && [ -s "$OUT/$1" ]; }
  if have openapi.json.gz && have schema.graphql.gz && have graphql-introspection.json.gz && have status.json.gz; then
    say "capture: kept the four documents in $OUT (FRESH=1 captures again)"
  else
    say "capture: OpenAPI, GraphQL introspection and SDL, status -> $OUT"
    LAB_DIR=$CAPTURE_LAB OUT=$OUT bash "$SHARED/lab/pypi/capture.sh" "$VERSION" >&2
  fi
  if have ground-truth.tsv; then
    say "ground truth: kept $OUT/ground-truth.tsv"
  else
    say "ground truth: the rows of $PREVIOUS replayed"
    # groundtruth.py measures its expected counts on the objects demo-extras.py adds (the kvm
    # cluster, serials, primary IPs): without them it stops, and the release gets no
    # ground-truth fixtures until it is run (DEMO_EXTRAS=1).
    if ! LAB_DIR=$LAB_DIR python3 "$SHARED/lab/pypi/groundtruth.py" "$VERSION" "$PREV_DIR/ground-truth.tsv" \
        "$WORK/ground-truth.tsv" ${EXTRA:+"$EXTRA"} >"$WORK/groundtruth.log" 2>&1; then
      say "ground truth: groundtruth.py stopped (last lines below); the lab may lack demo-extras.py's objects (DEMO_EXTRAS=1)"
      tail -3 "$WORK/groundtruth.log" >&2
    else
      mv "$WORK/ground-truth.tsv" "$OUT/ground-truth.tsv"
    fi
  fi
  if have ground-truth-sweep.tsv; then
    say "sweep: kept $OUT/ground-truth-sweep.tsv"
  else
    # Every shipped release's sweep before VERSION (the previous one first), and the trigger
    # values of the rule tables.
    SWEEPS=$PREV_DIR/ground-truth-sweep.tsv
    for r in $(printf '%s\n' "${ROWS[@]:-}" | tac); do
      f=$SHARED/netbox/v$r/ground-truth-sweep.tsv
      [ "$r" != "$PREVIOUS" ] && [ -f "$f" ] && [ "$(order "$VERSION" "$r")" = "$r" ] && SWEEPS+=:$f
    done
    "$NB" release probes >"$WORK/rule-probes.tsv"
    say "sweep: the sweeps of ${SWEEPS//:/, } replayed, $(($(wc -l <"$WORK/rule-probes.tsv") - 1)) rule probes, the new parameters probed"
    LAB_DIR=$LAB_DIR python3 "$HERE/scripts/release/sweep.py" "$VERSION" "$OUT/openapi.json.gz" \
      "$SWEEPS" "$PREV_DIR/openapi.json.gz" "$WORK/ground-truth-sweep.tsv" "$WORK/rule-probes.tsv"
    mv "$WORK/ground-truth-sweep.tsv" "$OUT/ground-truth-sweep.tsv"
  fi
  FROM=$OUT
fi
[ -f "$FROM/openapi.json.gz" ] || [ -f "$FROM/openapi.json" ] || die "$FROM has no openapi.json.gz"

# Sources: the lab's install, else a tag of the NetBox mirror.
source_of() {
  local v=$1 sp
  if [ -n "${LAB_DIR:-}" ]; then
    for sp in "$LAB_DIR"/venv-"$v"/lib/python3*/site-packages; do
      [ -d "$sp/dcim" ] && { echo "$sp"; return; }
    done
    [ -d "$LAB_DIR/src-$v/netbox/dcim" ] && { echo "$LAB_DIR/src-$v"; return; }
  fi
  local git=$MIRROR/netbox-community+netbox/repo tag=v$v
  if git --git-dir="$git" rev-parse -q --verify "$tag^{commit}" >/dev/null 2>&1; then
    mkdir -p "$WORK/src-$v"
    # The mirror lacks its largest blobs (git archive names them on stderr); the .py files and
    # the release notes are there.
    git --git-dir="$git" archive "$tag" -- netbox docs/release-notes \
      ':(exclude)netbox/extras/data/un_locode.py' ':(exclude)netbox/project-static' \
      2>"$WORK/archive-$v.log" >"$WORK/src-$v.tar" || true
    tar -xf "$WORK/src-$v.tar" -C "$WORK/src-$v" 2>/dev/null || true
    rm -f "$WORK/src-$v.tar"
    [ -d "$WORK/src-$v/netbox/dcim" ] && { echo "$WORK/src-$v"; return; }
  fi
}
SOURCE=${SOURCE:-$(source_of "$VERSION")}
PREVIOUS_SOURCE=${PREVIOUS_SOURCE:-$(source_of "$PREVIOUS")}
[ -n "$SOURCE" ] || say "no source of $VERSION at hand: the sheet lists the rules without their source lines"
[ -n "$PREVIOUS_SOURCE" ] || say "no source of $PREVIOUS at hand: cited lines are looked up by name only"

ARGS=(release add "$VERSION" --from "$FROM" --root "$HERE" --sheet "$HERE/target/review-$VERSION.md")
[ -d "$PREV_DIR" ] && ARGS+=(--previous-from "$PREV_DIR")
ARGS+=(--previous "$PREVIOUS")
[ -n "$SOURCE" ] && ARGS+=(--source "$SOURCE")
[ -n "$PREVIOUS_SOURCE" ] && ARGS+=(--previous-source "$PREVIOUS_SOURCE")
"$NB" "${ARGS[@]}"

if [ -f "$FROM/ground-truth-sweep.tsv" ]; then
  python3 "$HERE/tests/fixtures/ground-truth/derive-expected.py" "$FROM/ground-truth-sweep.tsv" \
    "$HERE/tests/fixtures/ground-truth/v$VERSION-sweep.tsv"
  say "wrote tests/fixtures/ground-truth/v$VERSION-sweep.tsv (derive-expected.py)"
else
  say "no sweep in $FROM: list $VERSION in UNSWEPT (tests/ground_truth.rs)"
fi
say "next: read target/review-$VERSION.md, write the decisions into the rule tables, then"
say "      cargo build --release && cargo test --release (the review test fails until each row has a $VERSION entry)"
