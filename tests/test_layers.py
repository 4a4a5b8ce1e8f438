"""The layers hold: import-linter's contracts (``[tool.importlinter]`` in pyproject.toml) pass on
the package, and a forbidden import in a copy of it breaks the contract that forbids it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
# lint-imports puts its working directory first on sys.path, so it analyses the package there.
LINT = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"


def lint_imports(cwd: Path) -> tuple[int, str]:
    """Exit status and output (one line per contract) of ``lint-imports`` run in ``cwd``."""
    env = {**os.environ, "COLUMNS": "400", "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-c", LINT, "--no-cache", "--no-logo"], cwd=cwd,
                         env=env, capture_output=True, text=True, timeout=60)
    return out.returncode, re.sub(r"[ \t]*\n(?=\S)", " ", out.stdout + out.stderr)


def test_the_package_keeps_every_contract() -> None:
    status, output = lint_imports(ROOT)
    assert status == 0, output
    assert re.search(r"Contracts: \d+ kept, 0 broken", output), output


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package and its contracts in a folder of their own."""
    root = tmp_path_factory.mktemp("layers")
    shutil.copytree(ROOT / "citeview", root / "citeview",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("core/cases.py", "import citeview.gui", "citeview.core is the bottom layer"),
    ("session/model.py", "from citeview.commands import lint", "citeview.session builds on"),
    ("commands/parse.py", "from citeview.gui import state",
     "The command line reaches the GUI (and Qt) only through citeview.gui.launch"),
    ("core/text.py", "import PySide6", "never import Qt"),
    # A part that names the window, even for a type only, breaks the window-parts contract.
    ("gui/navigation.py",
     "if TYPE_CHECKING:\n    from citeview.gui.main_window import MainWindow",
     "The window's parts never import the window"),
    ("gui/launch.py", "from citeview.gui import main_window",
     "launch.py makes the window through app.py"),
    ("gui/state.py", "from PySide6.QtWidgets import QWidget",
     "Modules run in worker threads import no QtWidgets"),
    ("gui/answer_document.py", "from PySide6 import QtWidgets",
     "Modules run in worker threads import no QtWidgets"),
    ("gui/lexing.py", "from PySide6.QtCore import (\n    Qt,\n    QTimer,\n)",
     "make no QObject with thread affinity"),
    # Indirectly too: a module the worker's modules import takes in QtWidgets.
    ("gui/answer_render.py", "from citeview.gui import answer_view",
     "Modules run in worker threads import no QtWidgets"),
    # Inside core (issue 23): the readers below the analysis, what reads an analysis above it.
    ("core/markers.py", "import citeview.core.analysis", "Inside citeview.core"),
    ("core/material.py", "import citeview.core.page", "Inside citeview.core"),
    ("core/providers/openai.py", "import citeview.core.providers.convert",
     "Inside citeview.core"),
    ("core/providers/cohere.py", "import citeview.core.analysis", "Inside citeview.core"),
    ("core/text.py", "import citeview.core.lint_output", "Inside citeview.core"),
    ("core/analysis.py", "import citeview.core.lint", "Inside citeview.core"),  # the old circle
    ("core/analysis.py", "import citeview.core.copyout", "Inside citeview.core"),
    ("core/rules.py", "import citeview.core.analysis", "Inside citeview.core"),
    # Commands share helpers through private modules only.
    ("commands/agree.py", "from citeview.commands.export import run",
     "The commands are independent of each other"),
    ("commands/report.py", "import citeview.commands.lint",
     "The commands are independent of each other"),
])
def test_a_forbidden_import_breaks_its_contract(copy: Path, module: str, line: str,
                                                contract: str) -> None:
    path = copy / "citeview" / module
    original = path.read_text(encoding="utf-8")
    path.write_text(original + f"\n{line}  # injected by tests/test_layers.py\n",
                    encoding="utf-8")
    try:
        status, output = lint_imports(copy)
    finally:
        path.write_text(original, encoding="utf-8")
    assert status != 0, output
    assert f"{contract}" in output and "BROKEN" in output, output
    broken = output.split("Broken contracts", 1)[1]
    assert f"citeview.{module[:-3].replace('/', '.')} ->" in broken, output


def test_every_provider_reader_is_below_the_analysis() -> None:
    """A new reader in core/providers is put in the core-layers contract's lowest layer (only
    convert.py, which reads an analysis, sits above it)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = [c["layers"] for c in config["tool"]["importlinter"]["contracts"]
                 if c["id"] == "core-layers"]
    lowest = {m.strip() for m in layers[-1].split(":")}
    readers = {f"citeview.core.providers.{p.stem}"
               for p in (ROOT / "citeview" / "core" / "providers").glob("*.py")
               if p.stem not in ("__init__", "convert")}
    assert readers and readers <= lowest, readers - lowest
    assert "citeview.core.providers.convert" in layers[0]
