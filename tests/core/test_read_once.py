"""A provider's response is read once from file to analysis (issue 26: a 300,000-citation
Chat Completions response was read twice, a recorded stream's response three times, ~11 s a
read): the case made from it keeps the reading for the analysis."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import citeview.core.providers as providers
from citeview.core.analysis import analyse
from citeview.core.inputs import load_input

DATA = Path(__file__).parent.parent / "data"


@pytest.mark.parametrize("name", ["providers/chat-completion.json",
                                  "providers/openai-responses.web-search.json",
                                  "streams/openai-responses.sse"])
def test_the_response_is_read_once_and_the_citations_are_the_same(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = analyse(replace(next(load_input(str(DATA / name)).iter_cases())))  # read twice
    calls = []
    real = providers.read_payload

    def counted(*args: object, **kwargs: object) -> providers.ProviderReading:
        calls.append(kwargs.get("read_pdf", True))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(providers, "read_payload", counted)
    case = next(load_input(str(DATA / name)).iter_cases())
    once = analyse(case)
    assert len(calls) == 1
    assert [(c.number, c.anchor, c.claim, [t.to_dict() for t in c.targets])
            for c in once.citations] == [
        (c.number, c.anchor, c.claim, [t.to_dict() for t in c.targets])
        for c in fresh.citations]
    assert [d.code for d in once.lint.all] == [d.code for d in fresh.lint.all]
    assert once.citations, "the fixture has provider citations"


def test_a_case_whose_response_changed_is_read_again(monkeypatch: pytest.MonkeyPatch) -> None:
    case = next(load_input(str(DATA / "providers/chat-completion.json")).iter_cases())
    case.extra["response"] = {**case.extra["response"], "id": "other"}  # another object
    calls = []
    real = providers.read_payload
    monkeypatch.setattr(providers, "read_payload",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    assert analyse(case).citations and calls == [1]
