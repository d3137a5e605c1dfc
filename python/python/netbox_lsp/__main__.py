"""``python -m netbox_lsp ARGS``: runs the bundled ``netbox-lsp`` binary with ARGS."""

from __future__ import annotations

import os
import subprocess
import sys

from netbox_lsp._find import find_netbox_lsp_bin


def main() -> int:
    exe = find_netbox_lsp_bin()
    if sys.platform == "win32":
        # No exec on Windows: run it and pass its exit code on.
        return subprocess.run([exe, *sys.argv[1:]]).returncode
    os.execvp(exe, [exe, *sys.argv[1:]])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
