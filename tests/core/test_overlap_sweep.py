"""CV607 (claims that cross) is an O(n log n) sweep (issue 31, item 4): the same findings as
the pairwise check it replaced, on any small input; 300,000 overlapping annotations are
checked (with a count of the work done, not a clock)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.providers.model import ProviderCitation, check_overlaps, crossings


def reference(citations: list[ProviderCitation]) -> list[list[str]]:
    """The quadratic check as it was (every pair after a span, until one starts past its end),
    kept here as the specification: each citation's CV607 crossing messages."""
    out: list[list[str]] = [[] for _ in citations]
    spans = sorted((c.claim, i) for i, c in enumerate(citations) if c.claim[1] > c.claim[0])
    reported: set[int] = set()
    for k, ((s, e), _) in enumerate(spans):
        for (s2, e2), j in spans[k + 1:]:
            if s2 >= e:
                break
            if s < s2 < e < e2 and j not in reported:
                reported.add(j)
                out[j].append(f"the claim ({s2}-{e2}) crosses the claim of another citation "
                              f"({s}-{e})")
    return out


def make(claims: list[tuple[int, int]]) -> list[ProviderCitation]:
    return [ProviderCitation("char_location", c, ()) for c in claims]


claims = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=40)


@settings(max_examples=500, deadline=None)
@given(claims)
def test_the_sweep_finds_what_the_pairwise_check_found(spans: list[tuple[int, int]]) -> None:
    citations = make(spans)
    check_overlaps(citations)
    got = [[p.message for p in c.problems if "crosses" in p.message] for c in citations]
    assert got == reference(make(spans))


def test_a_crossing_names_the_first_span_it_crosses() -> None:
    citations = make([(5, 20), (0, 10), (2, 12), (8, 30)])
    check_overlaps(citations)
    assert [p.message for p in citations[3].problems] == [
        "the claim (8-30) crosses the claim of another citation (0-10)"]
    assert [p.message for p in citations[2].problems] == [
        "the claim (2-12) crosses the claim of another citation (0-10)"]
    assert citations[0].problems[0].message.endswith("(0-10)")
    assert not citations[1].problems


@pytest.mark.slow
def test_300k_overlapping_claims_are_checked() -> None:
    """A staircase where every claim crosses the one before (the worst case of the pairwise
    check: ~n^2/2 pairs, hours in Python), and 300,000 claims that all cover the same text;
    the sweep ends (a few seconds) with every finding."""
    n = 300_000
    stairs = [(i, i + 1000) for i in range(n)]
    found = crossings(stairs)
    assert len(found) == n - 1 and found[n - 1] == n - 1000 and found[1] == 0
    citations = make([(10, 50)] * n + [(20, 60)])
    check_overlaps(citations)
    assert [len(c.problems) for c in citations[:3]] == [0, 1, 1]  # the same claim: repeats
    assert citations[-1].problems[0].message.endswith("(10-50)")


def test_lint_reports_every_crossing_of_a_big_response(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Through the CLI: a Chat Completions response with 5,000 crossing annotations."""
    import json

    from citeview.cli import main

    n = 5_000
    anns = [{"type": "url_citation", "url_citation": {
        "start_index": i, "end_index": i + 50, "title": "t", "url": f"https://e.com/{i % 7}"}}
        for i in range(n)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"id": "big", "object": "chat.completion", "choices": [{
        "index": 0, "message": {"role": "assistant", "content": "w " * (n + 100),
                                "annotations": anns}}]}), encoding="utf-8")
    assert main(["lint", "--format", "json", "--select", "CV607", str(path)]) == 0
    (case,) = json.loads(capsys.readouterr().out)["cases"]
    codes = [d["code"] for d in case["diagnostics"]]
    assert codes == ["CV607"] * (n - 1)
