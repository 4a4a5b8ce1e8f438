"""Test configuration shared by the whole suite.

Qt runs offscreen (set before any Qt import); pytest-qt's qt_api and failing on Qt log warnings
are set in pyproject.toml.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Tests never read or write the user's own settings, sessions or caches: QSettings and
# QStandardPaths follow the XDG variables, citeview's data folder follows CITEVIEW_DATA_DIR.
_HOME = Path(tempfile.mkdtemp(prefix="citeview-tests-"))
atexit.register(shutil.rmtree, _HOME, True)
for _var, _sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
                   ("XDG_CACHE_HOME", "cache"), ("CITEVIEW_DATA_DIR", "citeview-data")):
    os.environ[_var] = str(_HOME / _sub)

DATA = Path(__file__).parent / "data"
SAMPLES = DATA / "samples"


@pytest.fixture
def samples_dir() -> Path:
    return SAMPLES


def load_sample(name: str) -> dict:
    """The JSON of ``tests/data/samples/<name>`` (a copy of the shared samples)."""
    return json.loads((SAMPLES / name).read_text(encoding="utf-8"))
