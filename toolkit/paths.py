"""Where data, caches and figures live.

With the editable install the README sets up, the project root is the folder holding ``pyproject.toml`` above the
package; otherwise the current directory. ``TOOLKIT_DATA`` and ``TOOLKIT_FIGURES`` override both folders.
"""
from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    here = Path(__file__).resolve().parent.parent
    return here if (here / "pyproject.toml").exists() else Path.cwd()


def data_dir() -> Path:
    return Path(os.environ.get("TOOLKIT_DATA") or project_root() / "data")


def cache_dir() -> Path:
    return data_dir() / "cache"


def figures_dir() -> Path:
    path = Path(os.environ.get("TOOLKIT_FIGURES") or project_root() / "figures")
    path.mkdir(parents=True, exist_ok=True)
    return path
