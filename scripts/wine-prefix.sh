# Sourced by scripts/windows-ci.sh and scripts/wheel-import-check.sh: `wine_prefix DIR` makes DIR
# a scratch wine prefix for Rust programs under Debian 12's wine 8.0 and exports WINEPREFIX,
# WINEDEBUG and WINEDLLOVERRIDES for the wine calls that follow. Needs wine and mingw-w64
# (scripts/platform-tools.sh windows).
wine_prefix() {
  export WINEPREFIX="$1" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
  wineboot -i >/dev/null 2>&1 || true
  # Rust's std (1.78+) draws random bytes with ProcessPrng from bcryptprimitives.dll, which Windows
  # has since 10 but Debian 12's wine 8.0 does not (wine 9 does): without it the program does not
  # start (exit 53, "Library bcryptprimitives.dll not found"). A shim of that one function over
  # RtlGenRandom, in the scratch prefix's system32, stands in; nothing of it ships.
  local dll="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
  [ -e "$dll" ] && return
  cat > "$WINEPREFIX/bcryptprimitives.c" <<'C'
#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n; len -= n;
  }
  return TRUE;
}
C
  x86_64-w64-mingw32-gcc -shared -O2 -s -o "$dll" "$WINEPREFIX/bcryptprimitives.c" -ladvapi32
  echo "wine $(wine --version 2>/dev/null): ProcessPrng shim in the prefix's system32"
}
