"""The analysed case: one case read once under one policy, the single owner of its numbering.

Everything that shows, stores or reports a case's citations reads an :class:`AnalysedCase`: the
window's view-model, the session (annotation keys, progress counts, rows, report, export, agree,
merge) and ``citeview lint``. The numbering is therefore the same everywhere by construction.

Computed at once (what the first paint needs): the material (parsed once), the scan of the answer
(the policy's families, with the material's ids known, so a degraded marker naming a known id is
recovered), the numbering, the resolution of every citation and its claim span. Computed lazily,
once each, when first asked for: the lint diagnostics and the lexical support hints.

Identity of a citation (the annotation key, documented in ``docs/ARCHITECTURE.md``):
``(case id, number, anchor, source id)``. ``number`` is the 1-based reading-order number shown on
the chip; ``anchor`` is the citation's own text: its raw marker text, or, for a citation that has
no marker text (a provider's annotation), ``@START-END`` (its span in code points) after an
optional type tag, see :func:`citation_anchor`. The anchor lets a verdict follow its citation
when the answer changes and numbers move (:func:`citeview.session.model.reattach`).

Pure: no I/O, no global state. :class:`AnalysisCache` is an explicit, caller-owned memo keyed
by content, so a worker of a distributed lint run can keep one or none.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace

from citeview.core.cases import Case
from citeview.core.claims import claim_spans
from citeview.core.diagnostics import RULES, CitationDiagnostic, Diagnostic, Severity, make
from citeview.core.markers import DEFAULT_FAMILIES, Citation, Recovery, ScanResult, scan
from citeview.core.material import Material, about_material, case_material
from citeview.core.numbering import FIRST_NUMBER, index_of, number_at
from citeview.core.placement import ChipPlaces, inline_spans
from citeview.core.policy import Policy
from citeview.core.providers import PAYLOAD_KEYS, case_reading, payload_key
from citeview.core.providers.model import Problem
from citeview.core.resolution import Resolution, Status, Target, resolve

DEFAULT_POLICY = Policy()


def citation_anchor(citation: Citation, kind: str = "") -> str:
    """The anchor of a citation: its raw marker text; for one without marker text,
    ``KIND@START-END`` (code points in the answer), e.g. ``url_citation@120-145``."""
    if citation.raw:
        return citation.raw
    return f"{kind}@{citation.start}-{citation.end}"


_SPAN_ANCHOR = re.compile(r"([^@]*)@[0-9]+-[0-9]+")


def span_anchor_kind(anchor: str) -> str | None:
    """The KIND of a ``KIND@START-END`` anchor (a citation without marker text: its span moves
    when text is added before it), or None for marker text."""
    found = _SPAN_ANCHOR.fullmatch(anchor)
    return found.group(1) if found is not None else None


@dataclass(slots=True, frozen=True)
class AnalysedCitation:
    """One citation as numbered for everybody: its marker, resolution and claim."""

    number: int  # from 1, in reading order (recovered citations included)
    citation: Citation
    resolution: Resolution
    claim: tuple[int, int]  # code points in the answer
    # The whole answer (shared, not copied): ``claim_text`` is cut from it when asked for, so
    # 250,000 citations do not hold a second copy of a 20 MB answer.
    answer: str = field(repr=False, compare=False)
    anchor: str = ""

    @property
    def claim_text(self) -> str:
        return self.answer[self.claim[0]:self.claim[1]]

    @property
    def index(self) -> int:
        """Its 0-based position in reading order (:func:`index_of`)."""
        return index_of(self.number)

    @property
    def source_ids(self) -> tuple[str, ...]:
        return self.citation.source_ids

    @property
    def targets(self) -> tuple[Target, ...]:
        return self.resolution.targets

    @property
    def recovered(self) -> Recovery | None:
        return self.citation.recovered

    @property
    def items(self) -> int:
        """How many judgements this citation takes: one per source id."""
        return len(self.citation.source_ids)

    @property
    def has_marker(self) -> bool:
        """Whether it is a marker in the answer (a provider's citation has no marker text)."""
        return bool(self.citation.raw)

    @property
    def resolved(self) -> bool:
        """Every source id it names points at text that exists, as written."""
        if not self.resolution.targets:
            return not self.citation.source_ids
        return all(t.status.resolved for t in self.resolution.targets)

    def problem(self, diagnostics: Sequence[Diagnostic]) -> bool:
        """Whether it needs a look, given the answer diagnostics touching it: recovered,
        unresolved, or an error among them (the one definition of a problem citation)."""
        return (self.citation.recovered is not None or not self.resolved
                or any(d.severity is Severity.ERROR for d in diagnostics))


# An AnalysedCitation made by its slots' own setters, not by the frozen dataclass's __init__
# (which sets each field through object.__setattr__: a third of its cost).
_ANALYSED_FIELDS = ("number", "citation", "resolution", "claim", "answer", "anchor")
if tuple(f.name for f in fields(AnalysedCitation)) != _ANALYSED_FIELDS:  # pragma: no cover
    raise AssertionError("AnalysedCitation's fields changed: update _analyse")
(_set_number, _set_citation, _set_resolution, _set_claim, _set_answer, _set_anchor) = (
    AnalysedCitation.__dict__[name].__set__ for name in _ANALYSED_FIELDS)
_new = object.__new__


@dataclass(slots=True, frozen=True)
class LintResult:
    """The linter's findings for one case: about the answer (policy applied, sorted by
    position, then code) and about the material (in material order)."""

    diagnostics: tuple[Diagnostic, ...]
    material_diagnostics: tuple[Diagnostic, ...]

    @property
    def all(self) -> list[Diagnostic]:
        """Answer diagnostics, then material diagnostics (what :func:`lint` returns)."""
        return [*self.diagnostics, *self.material_diagnostics]


# citeview.core.rules's run_rules, imported when first asked for (by _load_rules): one
# import statement a lint costs as much as a few rules.
_RUN_RULES: Callable[[AnalysedCase], tuple[list[Diagnostic], list[Diagnostic]]] | None = None


def _load_rules() -> Callable[[AnalysedCase], tuple[list[Diagnostic], list[Diagnostic]]]:
    global _RUN_RULES
    from citeview.core.rules import run_rules

    _RUN_RULES = run_rules
    return run_rules


# citeview.core.support's citation_scores, imported as run_rules is (by _load_support).
_CITATION_SCORES: Callable[[Sequence[AnalysedCitation]],
                           tuple[tuple[float | None, ...], ...]] | None = None


def _load_support() -> Callable[[Sequence[AnalysedCitation]],
                                tuple[tuple[float | None, ...], ...]]:
    global _CITATION_SCORES
    from citeview.core.support import citation_scores

    _CITATION_SCORES = citation_scores
    return citation_scores


class AnalysedCase:
    """A case as analysed under ``policy`` (see the module docstring). Build with
    :func:`analyse`. Lint and support are computed on first use and kept."""

    __slots__ = ("case", "policy", "material", "scan_result", "citations", "provider_diagnostics",
                 "_lint", "_support", "_lint_by_citation", "_spans", "_item_counts")

    def __init__(self, case: Case, policy: Policy, material: Material, scan_result: ScanResult,
                 citations: tuple[AnalysedCitation, ...],
                 provider_diagnostics: tuple[Diagnostic, ...] = ()) -> None:
        self.case = case
        self.policy = policy
        self.material = material
        self.scan_result = scan_result
        self.citations = citations
        # What reading a provider's citations found (CV6xx): CitationDiagnostics naming their
        # citation's number, or about the whole response. Lint reports them.
        self.provider_diagnostics = provider_diagnostics
        self._lint: LintResult | None = None
        self._support: tuple[tuple[float | None, ...], ...] | None = None
        self._lint_by_citation: tuple[tuple[Diagnostic, ...], ...] | None = None
        self._spans: _Spans | None = None
        self._item_counts: tuple[int, ...] | None = None

    # -- what everybody needs ---------------------------------------------------------------

    @property
    def answer(self) -> str:
        return self.case.answer

    @property
    def resolutions(self) -> tuple[Resolution, ...]:
        return tuple(c.resolution for c in self.citations)

    @property
    def scan_diagnostics(self) -> tuple[Diagnostic, ...]:
        """The marker scan's findings (CV1xx), before the policy: shown before lint is done."""
        return tuple(self.scan_result.diagnostics)

    @property
    def item_counts(self) -> tuple[int, ...]:
        """Judgements each citation takes (one per source id), in numbering order (kept: every
        verdict asks)."""
        if self._item_counts is None:
            self._item_counts = tuple(c.items for c in self.citations)
        return self._item_counts

    @property
    def items(self) -> int:
        return sum(c.items for c in self.citations)

    def citation(self, number: int) -> AnalysedCitation | None:
        """Citation ``number`` (from 1), or None."""
        index = index_of(number)
        return self.citations[index] if 0 <= index < len(self.citations) else None

    # -- computed on first use --------------------------------------------------------------

    @property
    def lint(self) -> LintResult:
        """The linter's findings under this analysis's policy (computed once)."""
        if self._lint is None:
            answer, material = (_RUN_RULES or _load_rules())(self)
            self._lint = LintResult(tuple(answer), tuple(material))
        return self._lint

    @property
    def linted(self) -> bool:
        return self._lint is not None

    @property
    def support(self) -> tuple[tuple[float | None, ...], ...]:
        """Per citation, per source id: the lexical support score of a resolved source (a
        triage hint, never a verdict), None where it cannot be computed."""
        if self._support is None:
            self._support = (_CITATION_SCORES or _load_support())(self.citations)
        return self._support

    def citation_diagnostics(self, diagnostics: Sequence[Diagnostic] | None = None
                             ) -> tuple[tuple[Diagnostic, ...], ...]:
        """For each citation, the answer diagnostics touching its marker (default: lint's)."""
        if diagnostics is None:
            if self._lint_by_citation is None:
                self._lint_by_citation = touching(self.citations, self.lint.diagnostics)
            return self._lint_by_citation
        return touching(self.citations, diagnostics)

    def citation_number(self, d: Diagnostic) -> int | None:
        """The number of the first citation a diagnostic about the answer touches, or None."""
        if isinstance(d, CitationDiagnostic):
            return d.number
        if self._spans is None:
            self._spans = _Spans(self.citations)
        found = [i for i in self._spans.touched(d) if self.citations[i].has_marker]
        return self.citations[found[0]].number if found else None

    def problem(self, number: int) -> bool:
        """Whether citation ``number`` needs a look (:meth:`AnalysedCitation.problem`), with
        lint's findings once linted, the scan's before."""
        c = self.citations[index_of(number)]
        diags = (self.citation_diagnostics() if self.linted
                 else self.citation_diagnostics(self.scan_diagnostics))[c.index]
        return c.problem(diags)


def analyse(case: Case, policy: Policy | None = None, *,
            cache: AnalysisCache | None = None,
            material: Material | None = None,
            scanned: ScanResult | None = None) -> AnalysedCase:
    """Analyse ``case`` under ``policy`` (default policy when None), through ``cache`` when
    given (the same content and policy give the same object back). ``material``: the case's
    material already parsed (``case_material(case)``), not parsed again. ``scanned``: the
    answer's scan already made (a streamed answer's, from
    :class:`~citeview.core.streaming.IncrementalScanner`), used as it is (never cached)."""
    pol = DEFAULT_POLICY if policy is None else policy
    if cache is not None and scanned is None:
        return cache.get(case, pol, material)
    return _analyse(case, pol, material, scanned)


def _analyse(case: Case, policy: Policy, material: Material | None = None,
             scanned: ScanResult | None = None) -> AnalysedCase:
    if material is None:
        material = case_material(case)
    answer = case.answer
    reading = case_reading(case)  # a provider's citations (core.providers), or None
    result = scanned if scanned is not None else scan(answer, policy.families, material.ids())
    cits = result.citations
    if reading is not None:  # a new Material: one passed in (parsed once) is never changed
        material = Material([*material.sources, *reading.sources], list(material.diagnostics),
                            list(material.outside))
    resolutions = resolve(cits, material)
    spans = _explicit_claims(case, cits) or claim_spans(answer, cits)
    if reading is None:
        # Each claim is the span tuple claim_spans made (a group of markers shares one), not a
        # copy of it: 250,000 citations hold no second set of tuples. Each citation is made
        # by its slots' setters (_ANALYSED_FIELDS): every citation of every case of an export.
        made: list[AnalysedCitation] = []
        append = made.append
        n = FIRST_NUMBER
        for c, r, span in zip(cits, resolutions, spans, strict=True):
            item = _new(AnalysedCitation)  # AnalysedCitation(n, c, r, span, answer, anchor)
            _set_number(item, n)
            _set_citation(item, c)
            _set_resolution(item, r)
            _set_claim(item, span)
            _set_answer(item, answer)
            raw = c.raw  # (citation_anchor(c))
            _set_anchor(item, raw if raw else f"@{c.start}-{c.end}")
            append(item)
            n += 1
        return AnalysedCase(case, policy, material, result, tuple(made))
    # Markers and provider citations in one numbering: reading order, a provider citation at
    # its claim's end (where its chip goes), a marker at its start.
    rows: list[tuple[int, int, Citation, tuple[Target, ...], tuple[int, int], str,
                     Sequence[Problem]]] = []
    for c, r, span in zip(cits, resolutions, spans, strict=True):
        rows.append((c.start, len(rows), c, r.targets, span, citation_anchor(c), ()))
    places = ChipPlaces(inline_spans(answer)) if reading.citations else None
    for pc in reading.citations:
        pos = places.place(pc.position) if places is not None else pc.position
        c = Citation("", pc.type, tuple(t.source_id for t in pc.targets), None, pos, pos)
        rows.append((pos, len(rows), c, pc.targets, pc.claim, citation_anchor(c, pc.type),
                     pc.problems))
    rows.sort(key=lambda row: (row[0], row[1]))
    items_list: list[AnalysedCitation] = []
    found: list[Diagnostic] = [make(p.code, p.message, 0, 0) for p in reading.problems]
    for n, (_, _, c, targets, (s, e), anchor, problems) in enumerate(rows, FIRST_NUMBER):
        items_list.append(AnalysedCitation(n, c, Resolution(index_of(n), c, targets), (s, e),
                                           answer, anchor))
        found.extend(CitationDiagnostic(p.code, RULES[p.code].severity, p.message, s, e, n)
                     for p in problems)
    return AnalysedCase(case, policy, material, result, tuple(items_list), tuple(found))


def _explicit_claims(case: Case, cits: Sequence[Citation]) -> list[tuple[int, int]] | None:
    """Claim spans a case gives for its markers (``"claims"``: per marker in reading order,
    ``[start, end]`` in code points or null; what ``citeview convert`` writes so a provider's
    claims survive as markers). A missing or unusable entry takes the guide's claim."""
    given = case.extra.get("claims")
    if not isinstance(given, list) or not cits:
        return None
    size = len(case.answer)
    guide = claim_spans(case.answer, cits)
    out = []
    for i, span in enumerate(guide):
        x = given[i] if i < len(given) else None
        if (isinstance(x, list) and len(x) == 2 and all(type(v) is int for v in x)
                and 0 <= x[0] <= x[1] <= size):
            out.append((x[0], x[1]))
        else:
            out.append(span)
    return out


def touching(citations: Sequence[AnalysedCitation], diagnostics: Sequence[Diagnostic]
             ) -> tuple[tuple[Diagnostic, ...], ...]:
    """For each citation, the diagnostics whose span overlaps its marker (a zero-width one
    touches the marker it sits in or at the start of). O((d + c) log c) for markers in order,
    as scanned; recovered markers may nest, and then each one is looked at."""
    if not diagnostics:  # (most cases)
        return ((),) * len(citations)
    out: list[list[Diagnostic]] = [[] for _ in citations]
    spans = _Spans(citations)
    for d in diagnostics:
        if about_material(d):
            continue  # offsets in the material, not in the answer
        if isinstance(d, CitationDiagnostic):  # about one (provider) citation, by number
            if 0 <= index_of(d.number) < len(out):
                out[index_of(d.number)].append(d)
            continue
        for i in spans.touched(d):
            if citations[i].has_marker:  # a provider's citation has no marker to touch
                out[i].append(d)
    return tuple(tuple(x) for x in out)


class _Spans:
    """The citations' marker spans, computed once for many look-ups."""

    __slots__ = ("ends", "ordered", "starts")

    def __init__(self, citations: Sequence[AnalysedCitation]) -> None:
        self.starts = [c.citation.start for c in citations]
        self.ends = [c.citation.end for c in citations]
        self.ordered = all(map(int.__le__, self.ends[:-1], self.starts[1:]))

    def touched(self, d: Diagnostic) -> list[int]:
        starts, ends = self.starts, self.ends
        if not self.ordered:
            return [i for i, (s, e) in enumerate(zip(starts, ends, strict=True))
                    if (s <= d.start < e if d.start == d.end else d.start < e and s < d.end)]
        lo = bisect_right(ends, d.start)
        hi = bisect_right(starts, d.start) if d.start == d.end else bisect_left(starts, d.end)
        return list(range(lo, hi))


# --------------------------------------------------------------------------- memo


def content_key(case: Case, policy: Policy) -> str:
    """A digest of everything an analysis depends on: the case's answer and material, a
    provider's response and request and explicit claims, and the policy (the case id too, since
    diagnostics and rows name it)."""
    h = hashlib.blake2b(digest_size=16)
    for part in (case.id, case.answer, case.context or "", *case.tool_outputs):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00\x01")
    for k, v in sorted(case.documents.items()):
        h.update(k.encode("utf-8", "surrogatepass") + b"\x00" + v.encode("utf-8", "surrogatepass"))
        h.update(b"\x00\x02")
    h.update(policy_key(policy).encode("utf-8", "surrogatepass"))
    payload = payload_key(case)  # a provider's response and request, explicit claims
    if payload:
        h.update(b"\x00\x03" + payload.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _parts(case: Case) -> tuple[object, ...]:
    """The objects a case's content key reads (compared by identity: strings are immutable)."""
    extra = case.extra
    return (case.id, case.answer, case.context, *case.tool_outputs,
            *(x for kv in case.documents.items() for x in kv),
            *(extra.get(k) for k in PAYLOAD_KEYS))


def policy_key(policy: Policy) -> str:
    """A canonical text of a policy (Policy holds a mapping, so it is not hashable)."""
    return json.dumps([
        list(policy.families), policy.require_locators,
        None if policy.multi_source is None else str(policy.multi_source),
        None if policy.select is None else sorted(policy.select), sorted(policy.extend_select),
        sorted(policy.ignore), sorted((k, v.value) for k, v in policy.severities.items()),
        policy.fail_on.value, policy.weak_support_threshold,
    ])


def answer_key(case: Case, families: Sequence[str]) -> str:
    """A digest of what the numbering depends on (answer, material ids, families): stored with
    a case's item counts so they are recomputed only when it changes."""
    return content_key(case, Policy(families=tuple(families)))


class AnalysisCache:
    """A caller-owned LRU memo of analyses, keyed by :func:`content_key`."""

    __slots__ = ("_items", "_keys", "_lock", "maxsize", "misses")

    def __init__(self, maxsize: int = 32) -> None:
        self._items: OrderedDict[str, AnalysedCase] = OrderedDict()
        # id(case) -> (case, its parts, policy key, content key): the same Case object asked
        # again (a verdict on a case with a 17 MB source) is not hashed again.
        self._keys: OrderedDict[int, tuple[Case, tuple[object, ...], str, str]] = OrderedDict()
        self._lock = threading.Lock()  # the window's worker and GUI thread share one
        self.maxsize = maxsize
        self.misses = 0

    def _key(self, case: Case, policy: Policy) -> str:
        parts = _parts(case)
        pkey = policy_key(policy)
        with self._lock:
            memo = self._keys.get(id(case))
        if (memo is not None and memo[0] is case and memo[2] == pkey
                and len(memo[1]) == len(parts)
                and all(a is b for a, b in zip(memo[1], parts, strict=True))):
            return memo[3]
        key = content_key(case, policy)
        with self._lock:
            self._keys[id(case)] = (case, parts, pkey, key)
            self._keys.move_to_end(id(case))
            while len(self._keys) > self.maxsize:
                self._keys.popitem(last=False)
        return key

    def peek(self, case: Case, policy: Policy) -> AnalysedCase | None:
        """The analysis kept for ``case`` under ``policy``, or None (nothing computed)."""
        key = self._key(case, policy)
        with self._lock:
            return self._items.get(key)

    def get(self, case: Case, policy: Policy, material: Material | None = None
            ) -> AnalysedCase:
        key = self._key(case, policy)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found
            self.misses += 1
        made = _analyse(case, policy, material)
        with self._lock:
            made = self._items.setdefault(key, made)  # a racing thread's copy wins: one object
            self._items.move_to_end(key)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)
        return made

    def adopt(self, analysed: AnalysedCase) -> None:
        """Keep ``analysed`` (made elsewhere, e.g. before this cache's owner existed) for its
        case and policy, unless an analysis of them is kept already."""
        key = self._key(analysed.case, analysed.policy)
        with self._lock:
            self._items.setdefault(key, analysed)
            self._items.move_to_end(key)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._keys.clear()

    def __len__(self) -> int:
        return len(self._items)


def numbering_policy(families: Sequence[str] = DEFAULT_FAMILIES,
                     policy: Policy | None = None) -> Policy:
    """``policy`` (default rules when None) reading ``families``: the one place a family set
    (a session's) is put into a policy, so the numbering follows it whatever rules grade lint."""
    fams = tuple(families)
    if policy is None:
        return Policy(families=fams)
    return policy if policy.families == fams else replace(policy, families=fams)


class Analyser:
    """The one owner of a set of analyses: cases numbered under one family set (a session's,
    or the window's own without a session), through its own cache. Whoever shows, stores or
    counts a case asks its analyser; nobody else writes its cache."""

    __slots__ = ("_last", "cache", "families", "policy")

    def __init__(self, families: Sequence[str] = DEFAULT_FAMILIES, maxsize: int = 32) -> None:
        self.families = tuple(families)
        self.policy = numbering_policy(self.families)
        self.cache = AnalysisCache(maxsize)
        # The last policy asked for and its numbering policy (replaced whole): a pass over
        # every case asks under one policy, and a Policy costs more to make than to use.
        self._last: tuple[Policy | None, Policy] = (None, self.policy)

    def numbering(self, policy: Policy | None = None) -> Policy:
        """``numbering_policy(self.families, policy)``, made once for the same policy object
        asked again (:attr:`policy` for None)."""
        last = self._last
        if last[0] is policy:
            return last[1]
        made = numbering_policy(self.families, policy)
        self._last = (policy, made)
        return made

    def analysed(self, case: Case, policy: Policy | None = None,
                 material: Material | None = None) -> AnalysedCase:
        """``case`` analysed under ``policy`` read with this analyser's families (kept)."""
        return analyse(case, self.numbering(policy), cache=self.cache, material=material)

    def analysed_once(self, case: Case, policy: Policy | None = None) -> AnalysedCase:
        """``case`` analysed as :meth:`analysed` does, not kept (a scan of every case must not
        push out the cases being shown)."""
        return _analyse(case, self.numbering(policy))

    def peek(self, case: Case, policy: Policy | None = None) -> AnalysedCase | None:
        """The analysis kept for ``case``, or None (nothing computed)."""
        return self.cache.peek(case, self.numbering(policy))

    def adopt(self, analysed: AnalysedCase) -> bool:
        """Keep an analysis made elsewhere when it numbers as this analyser does (the window's
        first case, shown before its session existed). Returns whether it was kept."""
        if analysed.policy.families != self.families:
            return False
        self.cache.adopt(analysed)
        return True


__all__ = ["DEFAULT_POLICY", "FIRST_NUMBER", "AnalysedCase", "AnalysedCitation", "Analyser",
           "AnalysisCache", "LintResult", "Status", "analyse", "answer_key", "citation_anchor",
           "content_key", "index_of", "number_at", "numbering_policy", "policy_key",
           "span_anchor_kind", "touching"]
