"""The raw-view lexer: markers made visible keep every offset, and the lexer colours exactly the
parts the core parser reads (family, source ids, locator), loses no text, and flags strays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Error, Keyword, Name, Number, String, Text

from citeview.core.markers import DELIMITER, START, STOP, extract_citations
from citeview.lexers import CitationMarkerLexer, visible_markers

SAMPLES = Path(__file__).parent / "data" / "samples"


def tokens(text: str) -> list[tuple[int, object, str]]:
    return list(CitationMarkerLexer().get_tokens_unprocessed(text))


def of_type(text: str, ttype: object) -> list[str]:
    return [v for _, t, v in tokens(text) if t in ttype]  # type: ignore[operator]


def test_registered_under_the_pygments_entry_point() -> None:
    lexer = get_lexer_by_name("citeview-markers")
    assert isinstance(lexer, CitationMarkerLexer)


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.case.json")))
def test_samples_visible_markers_keep_offsets_and_parts(name: str) -> None:
    answer = json.loads((SAMPLES / name).read_text(encoding="utf-8"))["answer"]
    visible, offsets = visible_markers(answer)
    assert len(visible) == len(answer)
    assert not set(visible) & {START, DELIMITER, STOP}
    citations = extract_citations(answer)
    for c in citations:
        a, b = offsets.to_visible(c.start), offsets.to_visible(c.end)
        assert visible[a] == "⟦" and visible[b - 1] == "⟧"
        assert visible[a:b] == "⟦" + "|".join([c.family, *c.source_ids,
                                                *([c.locator] if c.locator else [])]) + "⟧"
        assert offsets.to_original(a) == c.start
    # The lexer's ids and locators are the parser's, in order.
    ids = of_type(visible, Name.Label)
    locators = of_type(visible, Number)
    assert [i for c in citations for i in c.source_ids] == ids
    assert [c.locator for c in citations if c.locator] == locators
    assert of_type(visible, Keyword) == ["cite"] * len(citations)


def test_transit_answer_shows_markers_as_written_in_the_issue() -> None:
    text = f"Fares rise.{START}cite{DELIMITER}turn0file0{DELIMITER}L8-L13{STOP} Next."
    visible, _ = visible_markers(text)
    assert visible == "Fares rise.⟦cite|turn0file0|L8-L13⟧ Next."
    assert of_type(visible, Name.Label) == ["turn0file0"]
    assert of_type(visible, Number) == ["L8-L13"]
    assert of_type(visible, Text)[0] == "Fares rise."


def test_raw_marker_characters_are_lexed_too() -> None:
    text = f"a{START}cite{DELIMITER}x1{DELIMITER}L2{STOP}b"
    assert of_type(text, Name.Label) == ["x1"]
    assert of_type(text, Number) == ["L2"]


def test_problems_are_flagged() -> None:
    # A stray STOP, an ASCII-escaped marker, a bracket reference, a bad character in an id.
    text = "stray ⟧ here \\ue200cite\\ue202turn0file0\\ue201 and 【turn0file1】 ⟦cite|a:b⟧"
    assert "⟧" in of_type(text, Error)
    assert ":" in of_type(text, Error)
    assert of_type(text, String.Escape)[:1] == ["\\ue200"]
    assert of_type(text, Comment.Special) == ["【turn0file1】"]


def test_unterminated_marker_ends_where_prose_starts() -> None:
    text = "Claim.⟦cite|turn0file0 and the answer goes on.\nNext ⟦cite|b⟧"
    assert of_type(text, Name.Label) == ["turn0file0", "b"]
    assert "and the answer goes on." in "".join(of_type(text, Text))


def test_locator_only_in_last_place() -> None:
    # As the parser reads it: a locator before another part is an id.
    assert of_type("⟦cite|L8|turn0file0⟧", Number) == []
    assert of_type("⟦cite|L8|turn0file0⟧", Name.Label) == ["L8", "turn0file0"]
    assert of_type("⟦cite|turn0file0| L8 ⟧", Number) == ["L8"]


ALPHABET = ["a", " ", "\n", "cite", "turn0file0", "L8", "L8-L13", "|", ":", "⟦", "⟧", START,
            DELIMITER, STOP, "\\ue200", "【", "】", "😀"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=30).map("".join))
def test_lexing_loses_no_text_and_keeps_offsets(text: str) -> None:
    pos = 0
    for index, _, value in tokens(text):
        assert index == pos
        pos += len(value)
    assert pos == len(text)
    visible, offsets = visible_markers(text)
    assert len(visible) == len(text)
    assert all(offsets.to_original(offsets.to_visible(i)) == i for i in range(len(text) + 1))


def test_pygments_guesses_this_lexer_for_an_answer_with_markers() -> None:
    from pygments.lexers import guess_lexer

    raw = f"Claim.{START}cite{DELIMITER}turn0file0{DELIMITER}L1{STOP} More."
    assert isinstance(guess_lexer(raw), CitationMarkerLexer)
    assert isinstance(guess_lexer(visible_markers(raw)[0]), CitationMarkerLexer)
    assert CitationMarkerLexer.analyse_text("Plain prose without citations.") == 0.0
