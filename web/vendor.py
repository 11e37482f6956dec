"""The dashboard's front-end files from npm (htmx and its SSE extension): where they come from, where they go.

``npm install`` (run by ``scripts/bootstrap``) puts them under ``web/node_modules``; ``copy_vendor``
copies the few files the pages load into ``web/static/vendor``, which the wheel build (``setup.py``)
does as well, so an installed package serves them without npm. Standard library only: the build
imports this module before the project's dependencies exist.
"""

from __future__ import annotations

import shutil
from pathlib import Path

WEB = Path(__file__).resolve().parent
NODE_MODULES = WEB / "node_modules"
VENDOR_DIR = WEB / "static" / "vendor"
# served name -> (npm package directory, files in it that the pages load)
FILES = {"htmx": ("htmx.org/dist", ("htmx.min.js",)), "htmx-ext-sse": ("htmx-ext-sse/dist", ("sse.min.js",))}


class VendorMissing(FileNotFoundError):
    """The npm packages are not installed: run scripts/bootstrap (it runs npm install in web/)."""


def sources(node_modules: Path = NODE_MODULES) -> dict[Path, Path]:
    """Each front-end file in ``node_modules`` and its path relative to the vendor directory."""
    return {node_modules / package / name: Path(served) / name
            for served, (package, names) in FILES.items() for name in names}


def copy_vendor(dest: Path = VENDOR_DIR, node_modules: Path = NODE_MODULES) -> list[Path]:
    """Copy the front-end files into ``dest``; raises VendorMissing naming what is absent."""
    found = sources(node_modules)
    missing = [str(src) for src in found if not src.is_file()]
    if missing:
        raise VendorMissing(f"front-end files missing (run scripts/bootstrap, which runs npm install in web/): "
                            f"{', '.join(missing)}")
    out = []
    for src, rel in found.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        out.append(target)
    return out


def served_dirs() -> dict[str, Path]:
    """Where each served name's files are: the copied vendor directory, else ``node_modules`` (a checkout)."""
    out = {}
    for served, (package, names) in FILES.items():
        copied = VENDOR_DIR / served
        out[served] = copied if all((copied / n).is_file() for n in names) else NODE_MODULES / package
    return out


if __name__ == "__main__":
    for path in copy_vendor():
        print(path)
