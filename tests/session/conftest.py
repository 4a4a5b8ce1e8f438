"""Shared helpers for session tests: small datasets built from the sample cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def sample_cases() -> list[Case]:
    lines = (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines()
    return [Case.from_dict(json.loads(line)) for line in lines if line.strip()]


@pytest.fixture
def cases() -> list[Case]:
    return sample_cases()


@pytest.fixture
def dataset(cases: list[Case]) -> ListDataset:
    return ListDataset(cases, None, "jsonl")


@pytest.fixture(autouse=True)
def _data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Sessions for read-only folders go here, never into the real user data folder.
    monkeypatch.setenv("CITEVIEW_DATA_DIR", str(tmp_path / "userdata"))
