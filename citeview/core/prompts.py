"""Citation instructions for a model, written for the material :mod:`prepare` produces.

:func:`instructions` covers every point the guide says a citation prompt must define: the
exact marker syntax (with the real U+E200/U+E202/U+E201 characters), where citations go, when
to cite and when not, how to cite several supports, which formats are forbidden, and what to do
when support is missing. Its switches are the lint policy's: :func:`policy_for` builds the
:class:`~citeview.core.policy.Policy` under which an answer that follows the instructions lints
clean, and every example the instructions show (the markers of each section and the example
answer, :func:`example_answer`) obeys the rules they state.

Line units cite one source per marker, as the guide asks for line-level material (a marker's
line range applies to every id in it): without ``multi_source`` they default to
``"per-marker"``; ``"one-marker"`` must be asked for.
"""

from __future__ import annotations

from citeview.core.errors import InputError
from citeview.core.markers import DELIMITER, START, STOP
from citeview.core.policy import MultiSource, Policy, parse_multi_source
from citeview.core.prepare import Unit, marker

# Ids used in the example answer; with line units it cites L1-L2 of the first source and L5 of
# the second (tests check it against material prepared from their own three documents).
_EXAMPLE_IDS: dict[Unit, tuple[str, str]] = {
    Unit.LINE: ("turn0file0", "turn0file1"),
    Unit.BLOCK: ("turn0file0", "turn0file1"),
    Unit.DOCUMENT: ("turn0file0", "turn0file1"),
    Unit.CONTEXT: ("block1", "block2"),
}
_EXAMPLE_LOCATORS = ("L1-L2", "L5")


def _check(unit: Unit | str, require_locators: bool,
           multi_source: MultiSource | str | None) -> tuple[Unit, MultiSource | None]:
    try:
        u = Unit(unit)
    except ValueError:
        raise InputError(f"unknown unit {unit!r} (line, block, context or document)") from None
    ms = parse_multi_source(multi_source, "multi-source")
    if require_locators and u is not Unit.LINE:
        raise InputError("line ranges can be required for line units only: block, context "
                         "and document sources are cited whole")
    if ms is None and u is Unit.LINE:
        ms = "per-marker"  # the guide: one marker per source for line-level material
    return u, ms


def policy_for(unit: Unit | str, require_locators: bool = False,
               multi_source: MultiSource | str | None = None) -> Policy:
    """The lint policy that judges answers the way :func:`instructions` asks for them."""
    _u, ms = _check(unit, require_locators, multi_source)
    return Policy(require_locators=require_locators, multi_source=ms)


def _several(unit: Unit, ids: tuple[str, str], locators: tuple[str, str] | None,
             multi_source: MultiSource | None) -> str:
    """Markers citing two supports for one statement, in the requested style. In one marker
    the first locator is the range shared by both sources (None: both cited whole, only
    allowed when locators are optional)."""
    if multi_source == "one-marker":
        loc = f"{DELIMITER}{locators[0]}" if locators else ""
        return f"{START}cite{DELIMITER}{ids[0]}{DELIMITER}{ids[1]}{loc}{STOP}"
    a = marker(ids[0], locators[0] if locators else None)
    b = marker(ids[1], locators[1] if locators else None)
    return a + b


def example_answer(unit: Unit | str, require_locators: bool = False,
                   multi_source: MultiSource | str | None = None) -> str:
    """A short answer that follows the instructions for this setup exactly."""
    u, ms = _check(unit, require_locators, multi_source)
    ids = _EXAMPLE_IDS[u]
    lined = u is Unit.LINE
    first = marker(ids[0], _EXAMPLE_LOCATORS[0] if lined else None)
    if lined and ms == "one-marker" and require_locators:
        # A marker's range applies to all its ids: sources needing different ranges are cited
        # each after the clause it supports.
        both = ("The second note agrees, in its own words, on that point."
                f"{marker(ids[1], _EXAMPLE_LOCATORS[1])}")
    else:
        locs = _EXAMPLE_LOCATORS if lined and ms != "one-marker" else None
        both = f"Both notes say the same about that point.{_several(u, ids, locs, ms)}"
    return f"The first note sets out the rule in its opening lines.{first} {both}\n"


def _id_description(unit: Unit) -> str:
    if unit is Unit.CONTEXT:
        return (
            "The context below holds citable units, each wrapped in a tag such as "
            '`<block id="block3" title="...">...</block>`. The value of the `id` attribute '
            "(here `block3`) is the unit's source id; write it exactly as given, without a "
            "`turn` prefix. Text outside such tags is not citable. Inside a unit, `&lt;` and "
            "`&amp;` stand for `<` and `&`."
        )
    head = (
        "The tool results contain sources. Each source begins with a line "
        f"`Citation Marker: {marker('turn0file0')}`; the id inside that marker (of the form "
        "`turn<number>file<number>`, here `turn0file0`) is the source id. Lines such as "
        "`Title:` or `URL:` under it describe the source."
    )
    if unit is Unit.LINE:
        return head + (
            " The source's text follows, one line per label: `[L1]`, `[L2]`, ... are line "
            "labels, not part of the text, and may skip numbers."
        )
    if unit is Unit.BLOCK:
        return head + (
            " Each source is one block of text under a label such as `[Block3]`. A block is "
            "cited whole by its source id; the `[Block3]` label is not an id."
        )
    return head + " Each source is a whole document, cited whole by its source id."


def _syntax(unit: Unit, require_locators: bool) -> list[str]:
    s, d, e = START, DELIMITER, STOP
    ident = "block3" if unit is Unit.CONTEXT else "turn0file2"
    if unit is Unit.LINE and require_locators:
        # No marker without a range is shown, not even as the first example.
        return [
            "### How a citation is written",
            "",
            "A citation is a single marker made of three special characters (U+E200 opens it, "
            "U+E202 separates its fields, U+E201 closes it) around the word `cite`, the source "
            "id and a line range, with no spaces:",
            "",
            f"{s}cite{d}<source id>{d}L<first>-L<last>{e}",
            "",
            "The line range is written with the labels shown in that source: "
            "`L<first>-L<last>`, or `L<n>` for a single line. For example: "
            f"{s}cite{d}{ident}{d}L8-L13{e} or {s}cite{d}{ident}{d}L4{e}",
            "",
            "Every citation MUST carry a line range. The range must name labels that exist in "
            "that source, with the first not after the last.",
        ]
    lines = [
        "### How a citation is written",
        "",
        "A citation is a single marker made of three special characters (U+E200 opens it, "
        "U+E202 separates its fields, U+E201 closes it) around the word `cite` and the source "
        "id, with no spaces:",
        "",
        f"{s}cite{d}<source id>{e}",
        "",
        f"For example: {s}cite{d}{ident}{e}",
    ]
    if unit is Unit.LINE:
        lines += [
            "",
            "To point at lines, add the line range as a last field, written with the labels "
            "shown in that source: `L<first>-L<last>`, or `L<n>` for a single line:",
            "",
            f"{s}cite{d}<source id>{d}L<first>-L<last>{e}",
            "",
            f"For example: {s}cite{d}turn0file2{d}L8-L13{e} or {s}cite{d}turn0file2{d}L4{e}",
            "",
        ]
        lines.append("Add a line range whenever you can point at the exact lines; a "
                     "citation without one cites the whole source. A range must name "
                     "labels that exist in that source, with the first not after the last.")
    else:
        lines += ["", "These sources are cited whole: never add a line range or any other "
                  "field after the id."]
    return lines


def _several_supports(unit: Unit, require_locators: bool,
                      multi_source: MultiSource | None) -> list[str]:
    ids = _EXAMPLE_IDS[unit]
    lined = unit is Unit.LINE
    per = _several(unit, ids, _EXAMPLE_LOCATORS if lined else None, "per-marker")
    # Combined, the ids share one range; with ranges required the example carries one.
    one = _several(unit, ids, _EXAMPLE_LOCATORS if lined and require_locators else None,
                   "one-marker")
    out = ["### Several sources for one statement", ""]
    if multi_source == "per-marker":
        if lined:
            own = ("each with its own line range" if require_locators
                   else "each with its own line range if it has one")
            out += [f"Write one marker per source, {own}, directly one after the other:", "",
                    per, "",
                    "Never put two or more source ids into one marker: its line range would "
                    "apply to all of them."]
        else:
            out += ["Write one marker per source, directly one after the other:", "", per, "",
                    "Never put two or more source ids into one marker."]
    elif multi_source == "one-marker":
        out += ["Put all the supporting ids into one marker, separated by the U+E202 "
                "character:", "", one, "",
                "Never write two or more markers next to each other."]
        if lined:
            tail = ("A line range at the end of such a marker applies to every id in it, so "
                    "combine sources only when the same range is right for all of them; "
                    "otherwise cite each source after the part of the sentence it supports.")
            if require_locators:
                tail = ("A line range at the end of such a marker applies to every id in it. "
                        "When the sources need different ranges, cite each source after the "
                        "part of the sentence it supports, each with its own range.")
            out += ["", tail]
    else:  # either style (never for line units: see _check)
        out += ["Either write one marker per source, directly one after the other:", "", per,
                "", "or put the ids into one marker, separated by the U+E202 character:", "",
                one]
    out += ["", "When the sources disagree, say so and cite each side."]
    return out


def instructions(unit: Unit | str, require_locators: bool = False,
                 multi_source: MultiSource | str | None = None,
                 extra_considerations: bool = False) -> str:
    """Citation instructions for a system prompt, for material in ``unit`` units."""
    u, ms = _check(unit, require_locators, multi_source)
    what = "unit" if u is Unit.CONTEXT else "source"
    label_misuse = {
        Unit.LINE: "a line label such as `[L3]` in place of an id",
        Unit.BLOCK: "a block label such as `[Block3]` or a line range",
        Unit.DOCUMENT: "a line range",
        Unit.CONTEXT: "a tag name, a title or a line range",
    }[u]
    sid = _EXAMPLE_IDS[u][0]
    parts = [
        "## Citations",
        "",
        _id_description(u),
        "",
        *_syntax(u, require_locators),
        "",
        "### Where citations go",
        "",
        "- Put the citation right after the sentence or clause it supports, after the "
        "punctuation that ends it: `... per week.` then the marker. Never put a marker "
        "directly before `.`, `,`, `;`, `:`, `!` or `?`.",
        "- Cite inside each paragraph or list item, next to the claims it supports; do not "
        "collect the citations at the end of the answer.",
        "- Never put citations on a line or paragraph of their own.",
        "- Never put a citation inside bold or italic text, inline code or a code block. "
        "After a code block, cite in the text that follows it, never on the line of the "
        "closing fence.",
        "",
        "### When to cite, and when not",
        "",
        f"- Cite every statement that rests on the {what}s: facts, figures, rules, quotations "
        "and paraphrases. Cite the source that actually says it.",
        f"- Cite only {what}s that have an id in the material; the question, the conversation "
        "and text without an id are not citable.",
        "- Do not cite greetings, questions back to the user, transitions or your own "
        "reasoning, and do not cite a source just to have a citation.",
        "",
        *_several_supports(u, require_locators, ms),
        "",
        "### Forbidden formats",
        "",
        "- Only the marker above counts as a citation. Do not use numbered references "
        f"(`[1]`), footnotes, `(Source: ...)`, links, bracketed ids such as `【{sid}】`, "
        "or the marker written with escape sequences such as `\\ue200` instead of the "
        "characters themselves.",
        f"- Never write a source id in the text outside a marker (not \"as {sid} says\"); "
        f"refer to a {what} by its title instead.",
        f"- Never invent ids, labels or line numbers, and never put {label_misuse} into a "
        "marker.",
        "- Keep each marker whole: the opening character, `cite`, the ids"
        + (", the range" if require_locators else ", the optional range"
           if u is Unit.LINE else "")
        + " and the closing character, with nothing else inside and nothing left out.",
        "",
        "### When support is missing",
        "",
        f"- If no {what} supports a statement, either leave the statement out or say plainly "
        "that the provided material does not cover it, without a citation.",
        "- Never attach a citation to a source that does not say what you wrote, and never "
        "cite outside knowledge.",
        "",
        "### Example",
        "",
        example_answer(u, require_locators, ms).rstrip("\n"),
    ]
    if extra_considerations:
        parts += [
            "",
            "### Grounding quality",
            "",
            "- Relevance: cite only sources that bear on the statement they follow.",
            "- Faithfulness: state what the source says, with its conditions and limits; do "
            "not stretch a source to cover more than it says.",
            "- Balance: where sources hold different views, present each major view and cite "
            "a source for each.",
            "- Reliability: prefer authoritative, first-hand sources; use weaker ones only when "
            "nothing better covers the point, and say so.",
            "- Breadth: when several independent sources support a point, prefer citing them "
            "over repeating one source.",
        ]
    return "\n".join(parts) + "\n"
