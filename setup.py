"""Build step of the wheel: copy the dashboard's templates (top-level ``templates/``) and its npm front-end files
(see web/vendor.py) into the ``web`` package.

Everything else is declared in pyproject.toml.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web.vendor import VENDOR_DIR, copy_vendor  # noqa: E402


class BuildWithVendor(build_py):
    """build_py, plus templates/ copied into web/templates, and htmx and its SSE extension from web/node_modules
    into web/static/vendor."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install serves web/ and templates/ in place
        shutil.copytree("templates", Path(self.build_lib) / "web" / "templates", dirs_exist_ok=True)
        target = Path(self.build_lib) / "web" / "static" / "vendor"
        if (VENDOR_DIR / "htmx" / "htmx.min.js").is_file() and not (Path("web") / "node_modules").is_dir():
            return  # already copied into the source tree (by scripts/bootstrap) and picked up as package data
        copy_vendor(target)


setup(cmdclass={"build_py": BuildWithVendor})
