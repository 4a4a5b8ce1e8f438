"""Packaging: what an installed (non-editable) citeview needs is declared in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from citeview import resource_files
from citeview.resource_files import resource_path

ROOT = Path(__file__).resolve().parents[1]


def test_every_resources_folder_is_packaged() -> None:
    """A folder under resources/ missing from [tool.setuptools] packages is silently left out of
    the wheel, and an installed citeview would not find its demo, icons or schemas."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    packages = set(config["setuptools"]["packages"])
    package_data = config["setuptools"]["package-data"]
    folders = [p for p in (ROOT / "resources").rglob("*")
               if p.is_dir() and p.name != "__pycache__"]
    for folder in [ROOT / "resources", *folders]:
        name = ".".join(["citeview", *folder.relative_to(ROOT).parts])
        assert name in packages, f"{name} is not in [tool.setuptools] packages"
        assert package_data.get(name) == ["*"], f"{name} has no package-data entry"


def test_every_python_package_is_packaged() -> None:
    """A subpackage missing from [tool.setuptools] packages is left out of the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    packages = set(config["setuptools"]["packages"])
    for init in (ROOT / "citeview").rglob("__init__.py"):
        name = ".".join(init.parent.relative_to(ROOT).parts)
        assert name in packages, f"{name} is not in [tool.setuptools] packages"


def test_resources_are_found_through_importlib() -> None:
    try:
        root = resources.files("citeview.resources")
    except ModuleNotFoundError:  # the source tree shadows a non-editable install
        pytest.skip("citeview.resources is not importable here (see the fallback tests)")
    assert (root / "demo" / "demo.jsonl").is_file()
    assert (root / "schemas" / "session.schema.json").is_file()
    assert (root / "icons" / "citeview.svg").is_file()


SHIPPED = [("demo", "demo.jsonl"), ("schemas", "session.schema.json"), ("icons", "citeview.svg")]


def test_resource_path_finds_every_shipped_file() -> None:
    for parts in SHIPPED:
        assert resource_path(*parts).is_file(), parts


def test_resource_path_falls_back_to_the_source_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without an importable citeview.resources, the resources/ folder beside the package."""
    def missing(anchor: object) -> object:
        raise ModuleNotFoundError(f"No module named {anchor!r}")

    monkeypatch.setattr(resource_files.resources, "files", missing)
    resource_files.resource_root.cache_clear()
    try:
        assert resource_files.resource_root() == ROOT / "resources"
        for parts in SHIPPED:
            assert resource_path(*parts).is_file(), parts
        # Nothing in either place: a clear error, not an import error deep in a caller.
        monkeypatch.setattr(resource_files, "SOURCE_TREE_RESOURCES", ROOT / "no-such-folder")
        resource_files.resource_root.cache_clear()
        with pytest.raises(FileNotFoundError, match="resources are missing"):
            resource_path("demo", "demo.jsonl")
    finally:
        resource_files.resource_root.cache_clear()


def test_no_resource_lookup_bypasses_resource_path() -> None:
    """Every lookup goes through citeview.resource_files, or a non-editable install run from
    the source tree (tox, packagers) would fail to find the file."""
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "citeview").rglob("*.py")
                 if p.name != "resource_files.py"
                 and "citeview.resources" in p.read_text(encoding="utf-8")]
    assert offenders == []


# The import system of a checkout whose citeview is shadowing a non-editable install: the
# source tree first on sys.path, no editable finder (so citeview.resources cannot be imported),
# then the site-packages folders of this interpreter without their .pth files.
_SHADOWED = """
import importlib.util, sys
sys.path[:0] = [sys.argv[1]]
sys.path.extend(sys.argv[2:])
assert importlib.util.find_spec("citeview.resources") is None, "citeview.resources importable"
from citeview.gui.app import demo_path
from citeview.session.interchange import schema
from citeview.resource_files import resource_path
from citeview.core.formats import load_input
assert demo_path().is_file() and len(load_input(str(demo_path()))) > 0
assert schema()["title"]
assert resource_path("icons", "citeview.svg").is_file()
print("ok")
"""


def test_resources_are_found_when_the_source_tree_shadows_an_install(tmp_path: Path) -> None:
    site_dirs = [p for p in sys.path if p.endswith("site-packages")]
    proc = subprocess.run([sys.executable, "-S", "-c", _SHADOWED, str(ROOT), *site_dirs],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert (proc.returncode, proc.stdout.strip()) == (0, "ok"), proc.stderr
