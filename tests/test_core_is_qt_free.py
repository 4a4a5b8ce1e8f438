"""The core is a Qt-free library: importing it must not load any Qt module."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_core_loads_no_qt() -> None:
    code = (
        "import sys, pkgutil, importlib, citeview.core\n"
        "for m in pkgutil.iter_modules(citeview.core.__path__):\n"
        "    importlib.import_module('citeview.core.' + m.name)\n"
        "import citeview.cli, citeview.commands.parse, citeview.commands.strip\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "('PySide6', 'shiboken6', 'PyQt5', 'PyQt6', 'PySide2'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"Qt modules imported by the core: {out.stdout}"
