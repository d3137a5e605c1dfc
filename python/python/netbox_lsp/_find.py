"""Finds the ``netbox-lsp`` binary this package installed (as ruff's ``find_ruff_bin``)."""

from __future__ import annotations

import os
import sys
import sysconfig

_EXE = "netbox-lsp" + (sysconfig.get_config_var("EXE") or "")


def find_netbox_lsp_bin() -> str:
    """Return the path of the ``netbox-lsp`` executable installed with this package.

    Looks in the scripts directory of the environment the package was installed into (the
    venv, the system prefix, or the user scheme for ``pip install --user``), then next to the
    package for an install with ``--target``. Raises ``FileNotFoundError`` naming the places
    looked at when none holds it.
    """
    candidates = [os.path.join(sysconfig.get_path("scripts"), _EXE)]
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    elif os.name == "nt":
        user_scheme = "nt_user"
    elif sys.platform == "darwin" and getattr(sys, "_framework", None):
        user_scheme = "osx_framework_user"
    else:
        user_scheme = "posix_user"
    candidates.append(os.path.join(sysconfig.get_path("scripts", scheme=user_scheme), _EXE))
    # `pip install --target <dir>`: <dir>/bin beside <dir>/netbox_lsp.
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates.append(os.path.join(pkg_root, "bin", _EXE))
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        "the netbox-lsp binary of this package was not found; looked at: " + ", ".join(candidates)
    )
