"""Chips tell the verdict given, by glyph and colour, and keep the problem mark."""

from __future__ import annotations

from citeview.gui.answer_render import (
    MIXED,
    Chip,
    ChipState,
    chip_colours,
    chip_html,
    verdict_marks,
)

LABELS = ("supported", "partially supported", "unsupported", "cannot tell")


def test_each_default_verdict_has_its_own_glyph_and_colour() -> None:
    seen = {}
    for label in LABELS:
        marks, tone = verdict_marks([label], LABELS)
        chip = Chip(1, ChipState.ANNOTATED, marks=marks, tone=tone)
        seen[label] = (chip.text, chip_colours(tone))
    assert [t for t, _ in seen.values()] == ["1\u2713", "1\u25d0", "1\u2717", "1?"]
    assert len({c for _, c in seen.values()}) == 4  # four colours too


def test_a_custom_rubric_shows_the_key_number_and_mixed_sources_show_both() -> None:
    rubric = ("yes", "no", "unclear")
    assert verdict_marks(["no"], rubric) == ("2", "custom")
    assert verdict_marks(["supported", "unsupported"], LABELS) == ("\u2713/\u2717", MIXED)
    assert verdict_marks(["supported", None], LABELS) == ("", "")  # not all judged yet
    two = Chip(5, ChipState.ANNOTATED, n_sources=2, marks="\u2713/\u2717", tone=MIXED)
    assert two.text == "5+1\u2713/\u2717"


def test_a_judged_problem_chip_keeps_its_red_mark() -> None:
    chip = Chip(3, ChipState.ANNOTATED, problem=True, recovered=True, marks="\u2717",
                tone="bad")
    assert chip.text == "~3!\u2717"
    runs = chip.parts()
    assert [r[0] for r in runs] == ["~3", "!", "\u2717"]
    assert runs[1][2] != runs[0][2]  # the "!" has its own (red) colour
    assert 'class="bx"' in chip_html(chip)  # its tone's look, and the red mark
