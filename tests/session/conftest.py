"""Shared helpers for session tests: small datasets built from the sample cases, a citation's
annotation key, a case marked done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.session.model import AnnotationKey, CaseReview, ReviewState, citation_slots
from citeview.session.protocol import ReviewStore

SAMPLES = Path(__file__).parent.parent / "data" / "samples"


def sample_cases() -> list[Case]:
    lines = (SAMPLES / "policies.dataset.jsonl").read_text(encoding="utf-8").splitlines()
    return [Case.from_dict(json.loads(line)) for line in lines if line.strip()]


def key_of(store: ReviewStore, case_id: str, n: int = 0, src: int = 0) -> AnnotationKey:
    """The key of source ``src`` of citation ``n`` (0-based) of a case, as the window makes
    it."""
    return citation_slots(store.analysed(case_id))[n].keys(case_id)[src]


def mark_done(store: ReviewStore, case_id: str) -> None:
    """The store's annotator has case ``case_id`` done."""
    store.put_review(CaseReview(case_id, store.annotator, ReviewState.DONE))


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
