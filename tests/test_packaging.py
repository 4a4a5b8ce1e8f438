"""Packaging: what an installed (non-editable) citeview needs is declared in pyproject.toml."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

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


def test_resources_are_found_through_importlib() -> None:
    root = resources.files("citeview.resources")
    assert (root / "demo" / "demo.jsonl").is_file()
    assert (root / "schemas" / "session.schema.json").is_file()
    assert (root / "icons" / "citeview.svg").is_file()
