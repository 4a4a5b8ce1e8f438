"""Citation instructions: exact syntax, every point the guide lists, and agreement with lint."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.lint import lint
from citeview.core.markers import DELIMITER, START, STOP, extract_citations
from citeview.core.prepare import Document, marker, prepare_material
from citeview.core.prompts import example_answer, instructions, policy_for

S, D, E = START, DELIMITER, STOP
DATA = Path(__file__).parent.parent / "data" / "prepare"
DOCS = [Document(p.name, p.read_text(encoding="utf-8"))
        for p in (DATA / "prose.txt", DATA / "guide.md", DATA / "retry.py")]
UNITS = ("line", "block", "context", "document")
# Every setup the switches allow: locators can be required for line units only.
SETUPS = [(u, rl, ms) for u, rl, ms in itertools.product(UNITS, (False, True),
                                                          (None, "one-marker", "per-marker"))
          if u == "line" or not rl]


def case_for(unit: str, answer: str) -> Case:
    text = prepare_material(DOCS, unit).text
    if unit == "context":
        return Case("c", answer, context=text)
    return Case("c", answer, tool_outputs=[text])


def codes(unit: str, answer: str, rl: bool = False, ms: str | None = None) -> list[str]:
    return [d.code for d in lint(case_for(unit, answer), policy_for(unit, rl, ms))]


def example_in(text: str) -> str:
    return text.split("### Example\n\n", 1)[1].split("\n\n", 1)[0].rstrip("\n") + "\n"


# ----------------------------------------------------------------------------- content


@pytest.mark.parametrize(("unit", "rl", "ms"), SETUPS)
def test_instructions_cover_every_point_the_guide_lists(unit, rl, ms):
    text = instructions(unit, rl, ms)
    # The exact marker syntax, with the real characters (with ranges required, with a range).
    assert (f"{S}cite{D}<source id>{D}L<first>-L<last>{E}" if rl
            else f"{S}cite{D}<source id>{E}") in text
    assert ("U+E200" in text) and ("U+E202" in text) and ("U+E201" in text)
    for heading in ("### How a citation is written", "### Where citations go",
                    "### When to cite, and when not", "### Several sources for one statement",
                    "### Forbidden formats", "### When support is missing"):
        assert heading in text
    # Every example marker in the instructions is one the reference parser reads.
    assert all(c.family == "cite" for c in extract_citations(text))
    assert "\\ue200" in text  # escapes are named as forbidden, never used as the marker


def test_line_units_teach_ranges_and_other_units_forbid_them():
    line = instructions("line")
    assert f"{S}cite{D}<source id>{D}L<first>-L<last>{E}" in line
    assert "Add a line range whenever" in line
    assert "MUST carry a line range" in instructions("line", require_locators=True)
    for unit in ("block", "context", "document"):
        text = instructions(unit)
        assert "L<first>" not in text and "never add a line range" in text
    assert "without a `turn` prefix" in instructions("context")


def test_multi_source_switch_changes_the_rule():
    assert "Never put two or more source ids into one marker." in instructions(
        "block", multi_source="per-marker")
    assert "Never write two or more markers next to each other." in instructions(
        "block", multi_source="one-marker")
    both = instructions("block")
    assert "Either write one marker per source" in both
    assert f"{marker('turn0file0')}{marker('turn0file1')}" in both
    assert f"{S}cite{D}turn0file0{D}turn0file1{E}" in both


def test_extra_considerations_are_optional():
    assert "### Grounding quality" not in instructions("line")
    assert "### Grounding quality" in instructions("line", extra_considerations=True)


def test_bad_switches_raise_input_error():
    with pytest.raises(InputError):
        instructions("block", require_locators=True)
    with pytest.raises(InputError):
        policy_for("document", require_locators=True)
    with pytest.raises(InputError):
        instructions("page")
    with pytest.raises(InputError):
        instructions("line", multi_source="both")


# ----------------------------------------------------------------------------- prompt and lint


@pytest.mark.parametrize(("unit", "rl", "ms"), SETUPS)
def test_the_instructions_example_lints_clean_under_the_matching_policy(unit, rl, ms):
    text = instructions(unit, rl, ms)
    answer = example_in(text)
    assert answer == example_answer(unit, rl, ms)
    assert len(extract_citations(answer)) >= 2
    assert codes(unit, answer, rl, ms) == []


def example_groups(text: str) -> list[str]:
    """Every example citation the instructions show: runs of adjacent markers the reference
    parser reads (templates such as `<source id>` are not markers; the `Citation Marker:`
    header of the material description is not a citation)."""
    cits = [c for c in extract_citations(text)
            if not text[:c.start].endswith("Citation Marker: ")]
    groups: list[list] = []
    for c in cits:
        if groups and groups[-1][-1].end == c.start:
            groups[-1].append(c)
        else:
            groups.append([c])
    return ["".join(c.raw for c in g) for g in groups]


@pytest.mark.parametrize(("unit", "rl", "ms"), SETUPS)
def test_every_example_in_the_instructions_lints_clean_under_the_same_switches(unit, rl, ms):
    """Not only the closing example: each marker shown in any section, cited after a sentence
    as the instructions say, obeys the rules the instructions state (lint: no finding)."""
    text = instructions(unit, rl, ms, extra_considerations=True)
    groups = example_groups(text)
    assert len(groups) >= 4
    for group in groups:
        answer = f"Remote work is capped at three days a week.{group}\n"
        assert codes(unit, answer, rl, ms) == [], group


@pytest.mark.parametrize("rl", [False, True])
def test_line_units_cite_one_source_per_marker_unless_asked_otherwise(rl):
    """The guide: for line-level material, one marker per source (a marker's range applies
    to every id in it)."""
    for ms in (None, "per-marker"):
        text = instructions("line", rl, ms)
        assert "Never put two or more source ids into one marker" in text
        assert "Either write one marker per source" not in text
        assert all(len(c.source_ids) == 1 for c in extract_citations(text))
    assert instructions("line", rl) == instructions("line", rl, "per-marker")
    combined = f"Both files cover releases.{S}cite{D}turn0file0{D}turn0file1{D}L1-L2{E}\n"
    assert codes("line", combined, rl) == ["CV307"]
    assert codes("line", combined, rl, "one-marker") == []


def test_require_locators_agrees_with_lint():
    whole = f"Remote work is capped at three days a week.{marker('turn0file0')}\n"
    ranged = f"Remote work is capped at three days a week.{marker('turn0file0', 'L1')}\n"
    assert codes("line", whole, rl=True) == ["CV205"]
    assert codes("line", ranged, rl=True) == []
    assert codes("line", whole) == []  # ranges optional: "a citation without one cites..."


def test_multi_source_style_agrees_with_lint():
    one = f"Both files cover releases.{S}cite{D}turn0file2{D}turn0file3{E}\n"
    per = f"Both files cover releases.{marker('turn0file2')}{marker('turn0file3')}\n"
    assert codes("block", one, ms="per-marker") == ["CV307"]
    assert codes("block", per, ms="per-marker") == []
    assert codes("block", per, ms="one-marker") == ["CV307"]
    assert codes("block", one, ms="one-marker") == []
    assert codes("block", one) == [] and codes("block", per) == []


@pytest.mark.parametrize(("answer", "code", "rule_text"), [
    (f"Remote work is capped at three days{marker('turn0file0')}.\n", "CV304",
     "Never put a marker directly before `.`"),
    (f"Remote work is **capped at three days.{marker('turn0file0')}**\n", "CV301",
     "Never put a citation inside bold or italic text"),
    (f"Remote work is capped at three days, as turn0file0 says.{marker('turn0file0')}\n",
     "CV109", "Never write a source id in the text outside a marker"),
    ("Remote work is capped at three days.【turn0file0】\n", "CV108",
     "bracketed ids such as `【turn0file0】`"),
    (f"Remote work is capped at three days.{marker('turn0file9')}\n", "CV201",
     "Never invent ids"),
    (f"Remote work is capped at three days.\n\n{marker('turn0file0')}\n", "CV305",
     "Never put citations on a line or paragraph of their own."),
    (f"Remote work is capped at three days.{marker('turn0file0', 'L2')}\n", "CV204",
     "never add a line range"),
])
def test_answers_that_break_a_stated_rule_do_not_lint_clean(answer, code, rule_text):
    assert rule_text in instructions("block")
    assert code in codes("block", answer)
