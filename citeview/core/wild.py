"""Citation forms seen in real traffic that are not intact markers of an enabled family.

:func:`find_wild` reads an answer for them and returns :class:`WildFinding`s (a diagnostic, and
where the ids are recoverable and the family enabled, the citation to recover);
:func:`describe_family` says what a marker family is (``entity`` is not a citation);
:func:`entity_display` the text a chat UI shows for an entity marker. ``markers.scan`` applies
the findings after its own passes (one finding per span), so this module imports nothing from
``markers`` (it is imported by it).

The forms:

* degraded markers of families that are not enabled (``fileciteturn170file0L2-L2``; CV111) and
  degraded markers of non-citation families (``iturn0image0turn0image1``, an image group;
  CV113);
* ChatGPT's copy placeholder ``:contentReference[oaicite:0]{index=0}`` (CV112; also damaged:
  ``:contentReference[oaicite:5]index=5}``): the source is not in the text;
* ChatGPT's copy form ``[oai_citation:3‡Title](https://...)`` (CV115);
* Codex's ``:codex-file-citation[codex-file-citation]{line_range_start=1 line_range_end=5
  path=src/a.py git_url="..."}`` (or ``{path="..." purpose="output"}``; CV116);
* the ids of a marker cut across stream chunks and written bare (``eturn0search5turn0search15``:
  the family's tail, or two ids glued; CV117);
* the Gemini app's ``[cite_start]`` and ``[cite: 1, 2]`` tags (CV118);
* ``[3†source]`` (the ASCII-bracket twin of ``【3†source】``; CV108);
* the UTF-8 bytes of a marker read as Windows-1252 (``îˆ€citeîˆ‚turn0search3îˆ``; CV114): byte
  0x81 of STOP has no Windows-1252 character, so the end is ``îˆ`` followed by nothing, U+0081
  or U+FFFD.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from citeview.core.locators import LINE_LOCATOR_RE
from citeview.core.nearsearch import finditer_near

START = "\ue200"
DELIMITER = "\ue202"
STOP = "\ue201"

_SOURCE_ID_RE = re.compile(r"[A-Za-z0-9_-]+")
_WORD = r"A-Za-z0-9_-"
_LOST = "\ufffd?"

# Families seen in real traffic: whether each cites, and what it is.
CITATION_FAMILIES: dict[str, str] = {
    "cite": "citation",
    "filecite": "file citation",
}
OTHER_FAMILIES: dict[str, str] = {
    "entity": "entity reference (a chat UI shows its display text)",
    "i": "inline image group",
    "image_group": "image group",
    "navlist": "navigation list of links",
    "genui": "generated UI widget",
    "products": "product carousel",
    "product_entity": "product reference",
    "businesses_map": "map of places",
    "url": "link",
}


def describe_family(family: str) -> str | None:
    """What ``family`` is, when it is one seen in real traffic."""
    if family in CITATION_FAMILIES:
        return CITATION_FAMILIES[family]
    return OTHER_FAMILIES.get(family)


def is_citation_family(family: str) -> bool:
    return family in CITATION_FAMILIES


def entity_display(body: str) -> str | None:
    """The display text of an entity marker's body (``["city","Paris"]`` -> ``Paris``): the
    second string of a JSON array (a chat UI shows it), or None when the body is not one."""
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, list) and len(value) >= 2 and isinstance(value[1], str):
        return value[1]
    return None


@dataclass(slots=True)
class WildFinding:
    """One wild form: its span, a CV1xx code and message, and what it names. ``recover`` says
    the citation (``family``, ``ids``, ``locator``) is to be recovered as ``recovery``."""

    start: int
    end: int
    code: str
    message: str
    family: str
    ids: tuple[str, ...] = ()
    locator: str | None = None
    recovery: str | None = None


_TURN_IDS = r"(?:turn\d+[A-Za-z]+\d+)"
_LOCATOR = r"L\d+(?:-L\d+)?"


@lru_cache(maxsize=16)
def _others(enabled: frozenset[str]) -> tuple[re.Pattern[str] | None, int, frozenset[str]]:
    """For the ``enabled`` families: the pattern of degraded markers of the other known
    families, and how it is searched (:func:`finditer_near`): every match is a lost character,
    a family, a lost character, then "turn"."""
    others = tuple(f for f in (*CITATION_FAMILIES, *OTHER_FAMILIES) if f not in enabled)
    if not others:
        return None, 0, frozenset()
    return (_degraded_re(others), 2 + max(map(len, others)),
            frozenset(_LOST + "".join(others)))


@lru_cache(maxsize=16)
def _degraded_re(families: tuple[str, ...]) -> re.Pattern[str] | None:
    fams = sorted({f for f in families if f}, key=lambda f: (-len(f), f))
    if not fams:
        return None
    alt = "|".join(re.escape(f) for f in fams)
    return re.compile(
        f"(?<![{_WORD}])[{_LOST}]?(?P<family>{alt})"
        f"(?P<ids>(?:[{_LOST}]?{_TURN_IDS})+)"
        f"(?:[{_LOST}]?(?P<loc>{_LOCATOR}))?[{_LOST}]?(?![{_WORD}])"
    )


_ONE_TURN_ID_RE = re.compile(_TURN_IDS)
# Its "{index=N}" tail may have lost a brace (a chat UI's copy damaged it).
_CONTENT_REF_RE = re.compile(
    r":?contentReference\[oaicite:(\d+)\](?:\{index=(\d+)\}?|index=(\d+)\}?)?")
_OAI_CITATION_RE = re.compile(
    r"\[oai_citation(?:_attribution)?(?::(?P<n>\d{1,9}))?[\u2021,](?P<title>[^\]\n]{0,300})\]"
    r"\((?P<url>[^()\s]{0,2000})\)")
_CODEX_RE = re.compile(
    r":codex-(?P<kind>[a-z]{1,20})-citation(?:\[[^\]\n]{0,100}\])?\{(?P<attrs>[^{}\n]{0,2000})\}")
_CODEX_ATTR_RE = re.compile(r'([A-Za-z_]+)=(?:"([^"]*)"|(\S+))')
# A bare run of ids: a word-start tail of a family name (what the previous chunk did not
# write), then ids, maybe a line locator.
_BARE_TAIL = 8  # the longest tail
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_BARE_IDS_RE = re.compile(
    f"(?<![{_WORD}])(?P<tail>[a-z]{{0,{_BARE_TAIL}}})(?P<ids>{_TURN_IDS}+)(?P<loc>{_LOCATOR})?(?![{_WORD}])")
# [cite: 1, 2] or a range [cite: 230-234].
_GEMINI_NUM = r"\d{1,9}(?:-\d{1,9})?"
_GEMINI_TAG_RE = re.compile(r"\[cite_(?:start|end)\]|\[cite:[ \t]?(?P<ids>"
                            f"{_GEMINI_NUM}(?:[ \\t]?,[ \\t]?{_GEMINI_NUM}){{0,100}})\\]")
_ASCII_BRACKET_RE = re.compile(r"\[(\d+)(?::(\d+))?†([^\[\]\n]{0,100})\]")
# Windows-1252 (or Latin-1) of the UTF-8 bytes EE 88 80 / 82 / 81.
_M_HEAD = "\u00ee[\u02c6\x88]"
_M_START = f"{_M_HEAD}[\u20ac\x80]"
_M_DELIM = f"{_M_HEAD}[\u201a\x82]"
_MOJIBAKE_RE = re.compile(
    f"{_M_START}(?P<family>[A-Za-z_]{{1,30}})"
    f"(?P<body>(?:{_M_DELIM}[^\u00ee\n]{{0,200}})+)"
    f"{_M_HEAD}(?![\u20ac\x80\u201a\x82])[\x81\ufffd]?"
)
_M_DELIM_RE = re.compile(_M_DELIM)


def _names(ids: Iterable[str], locator: str | None) -> str:
    shown = ", ".join(ids)
    return f"{shown} ({locator})" if locator else shown


def may_hold_wild(text: str) -> bool:
    """Whether ``text`` holds a literal of a form :func:`find_wild` reads: each form holds one
    ("turn" the degraded markers of other families and the bare ids, "\u00ee" the
    Windows-1252 reading of a marker, "[cite" the Gemini tags, ...). ``markers.scan`` asks it
    of the text outside the spans it has taken: when False, every form there is to find
    overlaps a taken span, and would be dropped."""
    return ("turn" in text or "\u00ee" in text or "contentReference" in text
            or "oai_citation" in text or ":codex-" in text or "[cite" in text or "\u2020" in text)


def find_wild(text: str, families: Iterable[str]) -> list[WildFinding]:
    """Every wild form in ``text`` under the enabled ``families``, sorted by position, none
    overlapping another (the first wins). Degraded markers of enabled families are not wild:
    ``markers.scan`` recovers them itself (CV107).

    Every form holds a literal that :func:`may_hold_wild` looks for (keep the two in step)."""
    enabled = frozenset(families)
    found: list[WildFinding] = []

    if "\u00ee" in text:
        for m in _MOJIBAKE_RE.finditer(text):
            family = m.group("family")
            parts = [p.strip() for p in _M_DELIM_RE.split(m.group("body"))]
            parts = [p for p in parts if p]
            loc = parts.pop() if parts and LINE_LOCATOR_RE.fullmatch(parts[-1]) else None
            ok = bool(parts) and all(_SOURCE_ID_RE.fullmatch(p) for p in parts)
            what = describe_family(family) or "unknown family"
            ids = tuple(parts) if ok else ()
            base = (f"marker read as Windows-1252 (its UTF-8 bytes decoded wrongly): family "
                    f"{family!r} ({what})")
            if ok and family in enabled:
                msg = f"{base} citing {_names(ids, loc)}; recovered. Decode the answer as UTF-8"
                found.append(WildFinding(m.start(), m.end(), "CV114", msg, family, ids, loc,
                                         "mojibake"))
            else:
                tail = (f" naming {_names(ids, loc)}" if ok else "")
                if ok and is_citation_family(family):
                    tail += f"; family {family!r} is not enabled"
                found.append(WildFinding(m.start(), m.end(), "CV114", base + tail, family, ids,
                                         loc))

    degraded, back, lead = _others(enabled)
    if degraded is not None:
        for m in finditer_near(degraded, text, ("turn",), back, lead):
            family = m.group("family")
            ids = tuple(_ONE_TURN_ID_RE.findall(m.group("ids")))
            loc = m.group("loc")
            raw = m.group(0)
            if is_citation_family(family):
                msg = (f"degraded {family} marker {raw!r} (private-use characters lost) naming "
                       f"{_names(ids, loc)}; family {family!r} is not enabled (--families "
                       f"cite,{family} recovers it)")
                found.append(WildFinding(m.start(), m.end(), "CV111", msg, family, ids, loc))
            else:
                msg = (f"degraded {family!r} marker {raw!r}: {describe_family(family)}, not a "
                       f"citation; it names {_names(ids, loc)}")
                found.append(WildFinding(m.start(), m.end(), "CV113", msg, family, ids, loc))

    if "contentReference" in text:
        for m in _CONTENT_REF_RE.finditer(text):
            msg = (f"copy placeholder {m.group(0)!r}: a citation whose source is not in the text "
                   f"(oaicite {m.group(1)}); cite with a marker instead")
            found.append(WildFinding(m.start(), m.end(), "CV112", msg, "oaicite"))

    if "oai_citation" in text:
        for m in _OAI_CITATION_RE.finditer(text):
            n = m.group("n")
            title = m.group("title").strip()
            msg = (f"ChatGPT's copied citation link{f' {n}' if n else ''} "
                   f"({title!r}, {m.group('url') or 'no URL'}): the source is not in the text; "
                   "cite with a marker instead")
            found.append(WildFinding(m.start(), m.end(), "CV115", msg, "oai_citation",
                                     (f"oai_citation:{n}",) if n else ()))

    if ":codex-" in text:
        for m in _CODEX_RE.finditer(text):
            attrs = {k: a or b for k, a, b in _CODEX_ATTR_RE.findall(m.group("attrs"))}
            path = attrs.get("path", "")
            lo, hi = attrs.get("line_range_start"), attrs.get("line_range_end")
            loc = (None if not (lo and lo.isdigit()) else f"L{lo}" if hi in (None, lo)
                   or not (hi and hi.isdigit()) else f"L{lo}-L{hi}")
            what = f"Codex {m.group('kind')} citation"
            names = f" of {path or 'no path'}" + (f" ({loc})" if loc else "")
            msg = (f"{what}{names}: a directive the Codex app shows as a link; the file is not in "
                   "the text")
            found.append(WildFinding(m.start(), m.end(), "CV116", msg, "codex",
                                     (path,) if path else (), loc))

    if "turn" in text:
        for m in finditer_near(_BARE_IDS_RE, text, ("turn",), _BARE_TAIL, _LOWER):
            tail, run = m.group("tail", "ids")
            if not tail and run.count("turn") == 1:
                continue  # one id in prose (each id starts with "turn"): CV109
            ids = tuple(_ONE_TURN_ID_RE.findall(run))
            if tail in CITATION_FAMILIES or tail in OTHER_FAMILIES:
                continue  # a degraded marker (CV107, CV111, CV113)
            if tail:
                cut = [f for f in CITATION_FAMILIES if f.endswith(tail)]
                if not cut:
                    continue
                what = f"the tail {tail!r} of {cut[0]!r} and "
            elif len(ids) > 1:
                what = ""
            else:
                continue  # one id in prose: CV109
            loc = m.group("loc")
            msg = (f"bare source ids {m.group(0)!r} ({what}{_names(ids, loc)}): what is left of "
                   "a marker cut across stream chunks; the client wrote its pieces apart")
            found.append(WildFinding(m.start(), m.end(), "CV117", msg, "", ids, loc))

    if "[cite" in text:
        for m in _GEMINI_TAG_RE.finditer(text):
            listed = m.group("ids")
            if listed is None:
                msg = (f"Gemini app tag {m.group(0)}: where a cited claim starts; the citation "
                       "is not a marker")
                found.append(WildFinding(m.start(), m.end(), "CV118", msg, "gemini_cite"))
            else:
                nums = tuple(x.strip() for x in listed.split(","))
                msg = (f"Gemini app tag {m.group(0)} citing source{'s' if len(nums) > 1 else ''} "
                       f"{', '.join(nums)} of a list that is not in the text")
                found.append(WildFinding(m.start(), m.end(), "CV118", msg, "gemini_cite", nums))

    if "†" in text:
        for m in _ASCII_BRACKET_RE.finditer(text):
            msg = f"bracket reference {m.group(0)} instead of a citation marker"
            found.append(WildFinding(m.start(), m.end(), "CV108", msg, ""))

    found.sort(key=lambda f: (f.start, -f.end))
    out: list[WildFinding] = []
    end = -1
    for f in found:
        if f.start >= end:
            out.append(f)
            end = f.end
    return out


def refine_unknown_family(family: str, body: str = "") -> tuple[str, str] | None:
    """For an intact marker whose family is not enabled: ``(code, message)`` saying what the
    family is, when it is one seen in real traffic (None: keep the generic CV104)."""
    what = describe_family(family)
    if what is None:
        return None
    if is_citation_family(family):
        return ("CV104", f"{family} marker ({what}): family {family!r} is not enabled "
                f"(--families cite,{family}); the marker is ignored")
    shown = entity_display(body) if family == "entity" else None
    if shown is not None:
        return ("CV113", f"entity marker for {shown!r}: {what}, not a citation")
    return ("CV113", f"{family} marker: {what}, not a citation")
