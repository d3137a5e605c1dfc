#!/usr/bin/env bash
# The tools of the platform builds (issue 22 §3), each installed only when missing:
#   pypi     zig, cargo-zigbuild and maturin from PyPI, in a venv kept at $NETBOX_LSP_DIST_TOOLS
#            (default ~/.cache/netbox-lsp-dist-tools; ~470 MB, ~30 s): the Linux builds and
#            wheels of scripts/dist.sh. Prints the venv's bin folder.
#   windows  Debian's mingw-w64 (linker and C compiler of x86_64-pc-windows-gnu) and wine
#            (178 MB download, 1.1 GB installed, ~75 s): scripts/dist.sh win32-x64, windows-ci.sh.
#   qemu     Debian's qemu-user: PLATFORM=linux-arm64 scripts/static-ci.sh.
# The apt installs use --no-install-recommends. .ci/run starts `pypi windows` in the background
# at its start, so the downloads overlap the host build.
# Usage: scripts/platform-tools.sh pypi|windows|qemu ...
set -euo pipefail
TOOLS=${NETBOX_LSP_DIST_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/netbox-lsp-dist-tools}
say() { printf -- '--- platform tools: %s\n' "$*" >&2; }

apt_install() {
  say "apt-get install --no-install-recommends $*"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

for what in "$@"; do
  case "$what" in
    pypi)
      if [ ! -x "$TOOLS/bin/cargo-zigbuild" ] || [ ! -x "$TOOLS/bin/maturin" ] || [ ! -x "$TOOLS/bin/python-zig" ]; then
        say "zig, cargo-zigbuild, maturin from PyPI into $TOOLS"
        python3 -m venv "$TOOLS"
        "$TOOLS/bin/pip" install -q --disable-pip-version-check \
          "ziglang>=0.13,<0.18" "cargo-zigbuild>=0.19,<0.25" "maturin>=1.9,<2" >&2
      fi
      echo "$TOOLS/bin" ;;
    windows)
      command -v x86_64-w64-mingw32-gcc >/dev/null && command -v wine >/dev/null \
        || apt_install gcc-mingw-w64-x86-64 wine wine64 ;;
    qemu)
      command -v qemu-aarch64 >/dev/null || apt_install qemu-user ;;
    *) echo "platform-tools: unknown tool set $what (pypi, windows, qemu)" >&2; exit 2 ;;
  esac
done
