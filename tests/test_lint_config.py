"""The project's own static checks: ruff's blind-except rule (BLE) is on, with no file exempt
(the one catch-all, at the top of background work in gui/ops.py, says so with a noqa)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]


def test_blind_except_rule_is_selected_and_exempt_nowhere() -> None:
    assert "BLE" in RUFF["lint"]["select"]
    exempt = [path for path, codes in RUFF["lint"].get("per-file-ignores", {}).items()
              if any(c.startswith("BLE") for c in codes)]
    assert exempt == []


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is not installed")
def test_no_blind_except_outside_the_exemptions() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--select", "BLE",
                           "--output-format", "concise", "citeview", "benchmarks", "tests"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
