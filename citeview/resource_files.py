"""The files citeview ships (demo dataset, icons, schemas), wherever citeview runs from.

They live in the top-level ``resources/`` folder of the source tree, which an install maps to
the package ``citeview.resources`` (``package-dir`` in ``pyproject.toml``). Every lookup goes
through :func:`resource_path`, which asks the import system for ``citeview.resources`` first
(an installed or editable citeview) and otherwise uses ``resources/`` beside the package
directory: the case of the source tree's ``citeview/`` shadowing an installed copy, as when
tests run from a checkout against ``pip install .``, where ``citeview.resources`` cannot be
imported.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

PACKAGE = "citeview.resources"
# resources/ of a source tree: beside the directory of the citeview package.
SOURCE_TREE_RESOURCES = Path(__file__).resolve().parent.parent / "resources"


@lru_cache(maxsize=1)
def resource_root() -> Path:
    """The folder holding citeview's resources (a real directory: citeview is never run from a
    zip). :class:`FileNotFoundError` when neither place has them (a broken install)."""
    try:
        root = resources.files(PACKAGE)
    except ModuleNotFoundError:
        if (SOURCE_TREE_RESOURCES / "__init__.py").is_file():
            return SOURCE_TREE_RESOURCES
        raise FileNotFoundError(
            f"citeview's resources are missing: {PACKAGE} cannot be imported and "
            f"{SOURCE_TREE_RESOURCES} does not exist (reinstall citeview)") from None
    return root if isinstance(root, Path) else Path(str(root))


def resource_path(*parts: str) -> Path:
    """The path of a shipped file or folder, e.g. ``resource_path("demo", "demo.jsonl")``."""
    return resource_root().joinpath(*parts)


__all__ = ["PACKAGE", "resource_path", "resource_root"]
