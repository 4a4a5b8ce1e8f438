"""The parser returns exactly what the guide's reference Python helper returns.

tests/data/extract-vectors.jsonl holds 620 facts taken from the reference parser: an input
text, the citations it yields and the stripped text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.core.markers import extract_citations, scan, strip_citations

DATA = Path(__file__).parent.parent / "data"
VECTORS = [
    json.loads(line)
    for line in (DATA / "extract-vectors.jsonl").read_text(encoding="utf-8").splitlines()
]


def test_all_620_vectors_are_present() -> None:
    assert len(VECTORS) == 620


@pytest.mark.parametrize("vector", VECTORS, ids=[f"v{i}" for i in range(len(VECTORS))])
def test_vector(vector: dict) -> None:
    found = extract_citations(vector["text"])
    assert [c.to_dict() for c in found] == vector["citations"]
    assert strip_citations(vector["text"], found) == vector["stripped"]
    # strip also accepts the reference's own dict shape
    assert strip_citations(vector["text"], vector["citations"]) == vector["stripped"]
    # scan returns the same conformant citations, untouched
    conformant = [c.to_dict() for c in scan(vector["text"]).citations if c.conformant]
    assert conformant == vector["citations"]
