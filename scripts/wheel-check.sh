#!/usr/bin/env bash
# Checks a Linux release wheel from scripts/dist.sh (issue 22 §3): its tag is manylinux2014 /
# manylinux_2_17, which pip accepts where glibc is 2.17 or newer (RHEL/Rocky 8: 2.28, Ubuntu
# 20.04: 2.31) and refuses below (pip's own tag matching, glibc version simulated); the Python
# module's highest GLIBC_ symbol version is at most 2.17 (objdump -T); the binary in its scripts
# is the given static one; a fresh venv installs it, `python -c` uses the API and the
# installed `netbox-lsp --version` runs. Not in CI: the wheel's module is built for
# x86_64-unknown-linux-gnu through zig, a third compile of the crate (scripts/dist.sh linux-x64).
# Usage: scripts/wheel-check.sh WHEEL STATIC-BINARY
set -euo pipefail
WHEEL=$(realpath "${1:?usage: scripts/wheel-check.sh WHEEL STATIC-BINARY}")
BIN=$(realpath "${2:?usage: scripts/wheel-check.sh WHEEL STATIC-BINARY}")
PY=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say() { printf -- '--- %s\n' "$*"; }

say "tag: $(basename "$WHEEL")"
unzip -q "$WHEEL" -d "$WORK/wheel"
grep '^Tag:' "$WORK"/wheel/*.dist-info/WHEEL
case "$(basename "$WHEEL")" in
  *manylinux2014_x86_64.manylinux_2_17_x86_64.whl) arch=x86_64 ;;
  *manylinux2014_aarch64.manylinux_2_17_aarch64.whl) arch=aarch64 ;;
  *) echo "not tagged manylinux2014 / manylinux_2_17"; exit 1 ;;
esac
"$PY" -m venv "$WORK/pip"
"$WORK/pip/bin/pip" install -q --disable-pip-version-check --upgrade "pip>=24" >/dev/null
# pip's own tag matching (the tags it generates for CPython 3.10 on a machine of that glibc;
# `pip --platform` would take only the one tag named).
"$WORK/pip/bin/python" - "$WHEEL" <<'PY'
import sys
from pip._vendor.packaging import _manylinux
from pip._internal.models.wheel import Wheel
from pip._internal.utils.compatibility_tags import get_supported
wheel = Wheel(sys.argv[1].rsplit("/", 1)[-1])
for glibc, want, seen in [((2, 17), True, "CentOS 7"), ((2, 28), True, "RHEL/Rocky 8"),
                          ((2, 31), True, "Ubuntu 20.04"), ((2, 12), False, "CentOS 6")]:
    _manylinux._get_glibc_version = lambda g=glibc: g
    got = wheel.supported(get_supported(version="310"))
    print(f"glibc {glibc[0]}.{glibc[1]} ({seen}): pip {'takes' if got else 'refuses'} it")
    assert got == want, glibc
PY

say "the module's glibc symbol versions"
so=$(ls "$WORK"/wheel/netbox_lsp/_native*.so)
max=$(objdump -T "$so" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1)
echo "$(basename "$so"): highest $max"
[ "$(printf '%s\nGLIBC_2.17\n' "$max" | sort -V | tail -1)" = GLIBC_2.17 ] || { echo "$max is newer than 2.17"; exit 1; }

say "the binary in the wheel is the static one"
script=$(ls "$WORK"/wheel/*.data/scripts/netbox-lsp)
cmp "$script" "$BIN"
file "$script" | grep -Eq 'statically linked|static-pie linked' || { file "$script"; exit 1; }
echo "$(file -b "$script" | cut -d, -f1-5)"

say "fresh venv: pip install, the API, the command"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "$WHEEL"
"$WORK/venv/bin/python" -c '
import netbox_lsp
r = netbox_lsp.Checker().check_call("dcim.device", {"device_role_id": 3})
assert r.corrected == {"role_id": 3}, r
print("API:", netbox_lsp.__version__, "check_call corrected", r.corrected)'
"$WORK/venv/bin/netbox-lsp" --version
cmp "$WORK/venv/bin/netbox-lsp" "$BIN"
echo "wheel-check: OK"
