"""Review results as rows: one per citation and source id (and annotator), for spreadsheets,
scripts and the report.

A row says where the citation points (source id, locator, resolution status, source kind), what
lint found on it, the claim and the cited text, the lexical support score (a triage hint, see
:mod:`citeview.core.support`) and the judgement (verdict, note, annotator, timestamp). Citations
nobody judged get one row with an empty verdict; several annotators' judgements of the same
source get one row each. Annotations left orphaned by a changed answer get a row with status
``orphaned`` (never dropped); so do evidence and corrections whose citation (or, for an added
citation, whose claim) is not in the answer any more (the ``correction`` column holds such a
correction, as ``citeview export --format json`` writes it; empty on every other row).

Rows are produced case by case (:func:`iter_case_rows`), so memory stays bounded by the largest
case, whatever the session's size; a large session is worked out in several processes
(:func:`default_jobs`), in order. Writers: :func:`write_jsonl` and :func:`write_csv` (UTF-8
with a byte-order mark and a header; text cells starting with ``= + - @``, tab or carriage return
get a leading ``'`` so a spreadsheet never runs them as formulas).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import hashlib
import io
import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from json.encoder import encode_basestring
from typing import IO, Any, NamedTuple, TypeVar

from citeview.core.analysis import AnalysedCase, Analyser, numbering_policy, policy_key
from citeview.core.batchgc import collect_less
from citeview.core.cases import Case
from citeview.core.corrections import Correction, fits
from citeview.core.errors import InputError
from citeview.core.markers import Recovery
from citeview.core.material import SourceKind
from citeview.core.metrics import answer_sentences
from citeview.core.numbering import number_at
from citeview.core.policy import Policy
from citeview.core.pool import ordered_map, usable_cpus
from citeview.core.resolution import Status, Target
from citeview.core.text import scrub_surrogates
from citeview.session.errors import SessionError, read_errors
from citeview.session.files import connect
from citeview.session.jsonio import dumps_json, json_lines
from citeview.session.migrations import SCHEMA_VERSION, user_version
from citeview.session.model import Annotation, CaseReview, Evidence
from citeview.session.protocol import ReviewStore
from citeview.session.store import Session

ORPHANED = "orphaned"  # status of a row whose annotation lost its citation

# Column names, in file order: the list, then source kind, recovered flag, and the
# citation's anchor (named "raw" in every export version).
COLUMNS: tuple[str, ...] = (
    "case_id", "citation", "source_id", "locator", "status", "lint_codes", "claim", "cited_text",
    "support", "verdict", "note", "annotator", "timestamp", "source_kind", "recovered", "raw",
    "reasons", "evidence", "correction",
)
_RESOLUTION_CODES = frozenset({"CV201", "CV202", "CV203", "CV204", "CV205"})


@dataclass(slots=True)
class Row:
    case_id: str
    number: int
    source_id: str
    locator: str | None
    status: str
    lint_codes: tuple[str, ...]
    claim: str
    cited_text: str
    support: float | None
    verdict: str | None = None
    note: str = ""
    annotator: str = ""
    timestamp: str = ""
    source_kind: str | None = None
    recovered: str | None = None
    anchor: str = ""  # the citation's anchor: the ``raw`` column of export files
    reasons: tuple[str, ...] = ()  # why the verdict fails (issue 30)
    evidence: tuple[Evidence, ...] = ()  # the annotator's evidence spans of this source
    correction: Correction | None = None  # an orphaned correction's own row

    def to_dict(self) -> dict[str, Any]:
        """The row under :data:`COLUMNS` names (``lint_codes`` a list, ``support`` rounded)."""
        return {
            "case_id": self.case_id, "citation": self.number, "source_id": self.source_id,
            "locator": self.locator, "status": self.status, "lint_codes": list(self.lint_codes),
            "claim": self.claim, "cited_text": self.cited_text,
            "support": None if self.support is None else round(self.support, 4),
            "verdict": self.verdict, "note": self.note, "annotator": self.annotator,
            "timestamp": self.timestamp, "source_kind": self.source_kind,
            "recovered": self.recovered, "raw": self.anchor, "reasons": list(self.reasons),
            "evidence": [{"start": e.start, "end": e.end, "lines": e.lines, "text": e.text}
                         for e in self.evidence],
            "correction": None if self.correction is None else self.correction.to_dict(),
        }


@dataclass(slots=True)
class CaseRows:
    """One case's rows and what the report needs besides: the code of every lint diagnostic of
    the case (answer and material), its review rows, and (when asked) its sentences as tuples
    of citation numbers."""

    case_id: str
    rows: list[Row]
    lint_codes: list[str]
    reviews: list[CaseReview]
    citations: int
    sentences: list[tuple[int, ...]] | None = None
    orphans: int = 0
    annotated: bool = field(default=False)


def _target_codes(codes: list[str], target: Target) -> tuple[str, ...]:
    """The citation's codes that concern this source: resolution codes only for its status."""
    keep = []
    for code in codes:
        if code in _RESOLUTION_CODES:
            if code == "CV205":
                if target.status is not Status.WHOLE_SOURCE:
                    continue
            elif code != target.status.code:
                continue
        keep.append(code)
    return tuple(sorted(keep))


def analysed_once(session: ReviewStore, case_id: str, policy: Policy | None,
                  stored: str | None = None, analyser: Analyser | None = None
                  ) -> AnalysedCase:
    """The case analysed as the session numbers it, neither kept nor counted: a pass over every
    case (export, report) must not grow the session's memory with a million item counts, nor
    push out of its cache the cases being shown. ``stored``: its stored JSON, read already
    (:func:`stored_cases`); ``analyser``: ``session.analyser``, looked up already (a chunk's
    cases share it)."""
    data: object
    try:  # parsed here, not kept by the session: 256 cases of 17 MB sources are no bound
        if stored is None:
            data = session.case_data(case_id)
        else:
            data = _object_of(stored)
            if data is None:
                try:  # (entering read_errors cost a case a third of what its parse costs)
                    data = json.loads(stored)
                except (ValueError, TypeError, RecursionError):
                    with read_errors(session.path):  # raised again as case_data raises it
                        data = json.loads(stored)
        case = Case.from_dict(data, case_id)
    except InputError as err:
        raise SessionError(f"{session.path}: case {case_id!r}: {err}") from None
    return (session.analyser if analyser is None else analyser).analysed_once(case, policy)


# json's C scanner, called as json.loads calls it (through two Python frames and two
# whitespace matches) for a text that is one object with nothing around it.
_SCAN_ONCE: Callable[[str, int], tuple[object, int]] = (
    json.JSONDecoder().scan_once)  # type: ignore[attr-defined]


def _object_of(stored: str) -> object | None:
    """``json.loads(stored)`` of a stored case's JSON as the session writes it (an object,
    nothing before or after it), or None for any other text (json.loads decides then, and
    says what is wrong)."""
    if stored[:1] != "{":
        return None
    try:
        data, end = _SCAN_ONCE(stored, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    return data if end == len(stored) else None


def base_rows(analysed: AnalysedCase, case_id: str) -> list[Row]:
    """The case's rows before any judgement: one per citation and source id, in numbering
    order (what :func:`case_rows` gives a case nobody judged)."""
    rows: list[Row] = []
    # (str() of a StrEnum member is its value, without the .value property's Python call)
    for c, diags, scores in zip(analysed.citations, analysed.citation_diagnostics(),
                                analysed.support, strict=True):
        codes = list(dict.fromkeys(d.code for d in diags)) if diags else []
        recovered = str(c.recovered) if c.recovered is not None else None
        claim = c.claim_text
        for target, score in zip(c.targets, scores, strict=True):
            kind = str(target.source.kind) if target.source is not None else None
            rows.append(Row(case_id, c.number, target.source_id, c.citation.locator,
                            str(target.status), _target_codes(codes, target) if codes else (),
                            claim, target.text, score, None, "", "", "", kind, recovered,
                            c.anchor))
    return rows


def case_rows(session: ReviewStore, case_id: str, policy: Policy | None = None, *,
              annotator: str | None = None, sentences: bool = False) -> CaseRows:
    """The rows of one case (all annotators, or only ``annotator``'s), from its analysed case
    (the session's numbering; ``policy`` re-grades lint but never renumbers)."""
    analysed = analysed_once(session, case_id, policy)
    rows, orphans, anns = _judged_rows(session, case_id, base_rows(analysed, case_id),
                                       annotator, lambda corr: fits(analysed, corr))
    sents = None
    if sentences:
        cits = [c.citation for c in analysed.citations]
        sents = [tuple(number_at(i) for i in s.citations)
                 for s in answer_sentences(analysed.answer, cits)]
    return CaseRows(case_id, rows, [d.code for d in analysed.lint.all], session.reviews(case_id),
                    len(analysed.citations), sents, orphans, anns)


def _judged_rows(session: ReviewStore, case_id: str, base: list[Row], annotator: str | None,
                 fitting: Callable[[Correction], bool]) -> tuple[list[Row], int, bool]:
    """``base`` (the case's unjudged rows) with the judgements and evidence of the session put
    on them, then the orphaned rows; ``fitting(correction)``: whether a correction still has
    its place. Returns the rows, how many are orphaned, and whether any verdict was read."""
    anns = session.annotations(case_id, annotator=annotator)
    placed: dict[tuple[int, str, str], list[Annotation]] = {}
    loose: list[Annotation] = []
    for a in anns:
        if a.orphaned:
            loose.append(a)
        else:
            placed.setdefault((a.key.number, a.key.anchor, a.key.source_id), []).append(a)
    marked: dict[tuple[int, str, str, str], list[Evidence]] = {}
    for ev in session.evidence(case_id, annotator=annotator):
        k = ev.key
        marked.setdefault((k.number, k.anchor, k.source_id, ev.annotator), []).append(ev)
    rows: list[Row] = []
    for base_row in base:
        key = (base_row.number, base_row.anchor, base_row.source_id)
        judged = placed.pop(key, None) or []
        # Evidence marked by an annotator who gave no verdict yet: a row of its own.
        who_judged = {a.annotator for a in judged}
        unjudged = sorted(w for (n, an, sid, w) in marked
                          if (n, an, sid) == key and w not in who_judged)
        if not judged and not unjudged:
            rows.append(base_row)
            continue
        for a in judged:
            spans = marked.get((*key, a.annotator), [])
            rows.append(replace(base_row, verdict=a.verdict, note=a.note, annotator=a.annotator,
                                timestamp=a.timestamp, reasons=a.reasons,
                                evidence=tuple(spans)))
        for who in unjudged:
            spans = marked[(*key, who)]
            rows.append(replace(base_row, annotator=who, evidence=tuple(spans)))
    # Annotations whose citation is gone (orphaned, or keys the answer no longer has), with
    # their evidence; then evidence and corrections whose citation is gone without one.
    for group in placed.values():
        loose.extend(group)
    loose.sort(key=lambda a: (a.key.number, a.key.source_id, a.annotator))
    placed_keys = {(r.number, r.anchor, r.source_id) for r in base}
    for a in loose:
        k = a.key
        spans = marked.pop((k.number, k.anchor, k.source_id, a.annotator), [])
        rows.append(Row(case_id, k.number, k.source_id, None, ORPHANED, (), a.claim, "",
                        None, a.verdict, a.note, a.annotator, a.timestamp, None,
                        "recovered" if a.recovered else None, k.anchor, a.reasons,
                        tuple(spans)))
    lost = sorted(((n, sid, who, an), spans) for (n, an, sid, who), spans in marked.items()
                  if (n, an, sid) not in placed_keys)
    for (n, sid, who, an), spans in lost:
        rows.append(Row(case_id, n, sid, None, ORPHANED, (), "", "", None, annotator=who,
                        timestamp=max(e.timestamp for e in spans), anchor=an,
                        evidence=tuple(spans)))
    orphans = len(loose) + len(lost)
    for corr in session.corrections(case_id, annotator=annotator):
        if fitting(corr):
            continue
        orphans += 1
        claim = str(corr.extra.get("claim_text", "")) if corr.claim is not None else ""
        rows.append(Row(case_id, corr.number, corr.source_id or corr.old_source_id,
                        corr.locator, ORPHANED, (), claim, "", None, annotator=corr.annotator,
                        timestamp=corr.timestamp, anchor=corr.anchor, correction=corr))
    return rows, orphans, bool(anns)


# --------------------------------------------------------------------------- stored rows

# The version of what an analysis gives a row: bump it whenever analysis, lint or a row's
# fields change, so that rows stored by an older citeview are made again (as is every row
# stored under another policy: see rows_key).
ROWS_FORMAT = 1


def rows_key(session: ReviewStore, policy: Policy | None) -> str:
    """The digest that stored rows of ``session`` must carry to be current under ``policy``:
    the rows' format, citeview's version and the lint policy read with the session's families
    (its numbering)."""
    from citeview import __version__

    full = numbering_policy(session.families, policy)
    text = f"{ROWS_FORMAT}\x00{__version__}\x00{policy_key(full)}"
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def rows_text(rows: list[Row]) -> str:
    """Rows as JSON lines (lone surrogates escaped): the ``--format jsonl`` export."""
    lines = []
    for row in rows:
        line = _row_line(row)
        if line is None:
            return json_lines([row.to_dict() for row in rows])
        lines.append(line)
    text = "".join(lines)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escaped as json_lines escapes them
        return json_lines([row.to_dict() for row in rows])
    return text


_STR = encode_basestring  # json's own string encoder (ensure_ascii=False): the same escapes


def _opt(value: str | None) -> str:
    return "null" if value is None else _STR(value)


def _strs(values: tuple[str, ...]) -> str:
    return "[" + ",".join(map(_STR, values)) + "]" if values else "[]"


def _row_line(row: Row) -> str | None:
    """``row.to_dict()`` as :func:`~citeview.session.jsonio.json_lines` writes it, composed
    here (a million-case export spent a tenth of its time in json's general encoder), or None
    for a row this does not compose (evidence, a correction, a field of another type): the
    caller encodes those with json."""
    support = row.support
    if row.evidence or row.correction is not None or type(row.number) is not int:
        return None
    if support is None:
        score = "null"
    elif type(support) is float and support - support == 0.0:  # finite (json's NaN/Infinity)
        score = repr(round(support, 4))
    else:
        return None
    try:
        return "".join((
            '{"case_id":', _STR(row.case_id), ',"citation":', repr(row.number),
            ',"source_id":', _STR(row.source_id),
            ',"locator":', "null" if row.locator is None else _STR(row.locator),
            ',"status":', _STR(row.status),
            ',"lint_codes":', _strs(row.lint_codes),
            ',"claim":', _STR(row.claim), ',"cited_text":', _STR(row.cited_text),
            ',"support":', score, ',"verdict":', _opt(row.verdict), ',"note":', _STR(row.note),
            ',"annotator":', _STR(row.annotator), ',"timestamp":', _STR(row.timestamp),
            ',"source_kind":', _opt(row.source_kind),
            ',"recovered":', "null" if row.recovered is None else _STR(row.recovered),
            ',"raw":', _STR(row.anchor), ',"reasons":', _strs(row.reasons),
            ',"evidence":[],"correction":null}\n'))
    except TypeError:  # a field of another type than the row's (json decides how it goes)
        return None


def parsed_rows(text: str) -> list[Row]:
    """The rows :func:`rows_text` wrote (unjudged rows: the fields of a judgement empty). The
    support comes back rounded as the export writes it, which it rounds again the same."""
    rows = []
    for line in text.split("\n"):  # (a JSON line holds no raw newline; str.splitlines
        if not line:                #  would also cut at U+2028 and the like)
            continue
        d = json.loads(line)
        rows.append(Row(d["case_id"], d["citation"], d["source_id"], d["locator"], d["status"],
                        tuple(d["lint_codes"]), d["claim"], d["cited_text"], d["support"],
                        source_kind=d["source_kind"], recovered=d["recovered"], anchor=d["raw"]))
    return rows


def stored_rows(session: ReviewStore, ids: Sequence[str], key: str) -> dict[str, str]:
    """The stored unjudged rows (:func:`rows_text`) of those of ``ids`` that have them under
    ``key`` (rows stored under another key are stale: left out); none for a session that is
    no file, or one of a version before stored rows."""
    if not isinstance(session, Session) or not ids:
        return {}
    marks = ",".join("?" * len(ids))
    with read_errors(session.path):
        try:
            got = session.conn.execute(
                f"SELECT case_id, rows FROM case_rows WHERE policy = ? AND case_id IN ({marks})",
                (key, *ids)).fetchall()
        except sqlite3.OperationalError:  # (no such table: a newer session opened read-only)
            return {}
    found: dict[str, str] = {}
    for cid, text in got:
        # Rows name their case: a case renamed since keeps none of its old rows.
        if isinstance(text, str) and (not text or text.startswith(
                '{"case_id":' + dumps_json(cid) + ",")):
            found[str(cid)] = text
    return found


def stored_cases(session: ReviewStore, ids: Sequence[str]) -> dict[str, str]:
    """The stored JSON of those of ``ids`` a session file holds, read in one query (a query a
    case was a tenth of a cold export's time); none for a session that is no file (each case
    is read as it is worked out)."""
    if not isinstance(session, Session) or not ids:
        return {}
    marks = ",".join("?" * len(ids))
    found: dict[str, str] = {}
    budget = _READ_AHEAD_CHARS  # cases of 17 MB sources are read when worked out, one at a time
    try:
        for cid, data in session.conn.execute(
                f"SELECT id, data FROM cases WHERE id IN ({marks})", tuple(ids)):
            if isinstance(cid, str) and isinstance(data, str) and len(data) <= budget:
                found[cid] = data
                budget -= len(data)
    except (sqlite3.Error, ValueError):  # each case read alone then, saying what is wrong
        return {}
    return found


# Characters of cases' JSON that stored_cases reads ahead of their analysis, at most.
_READ_AHEAD_CHARS = 1 << 20


def case_mark(data: object) -> int:
    """A case's JSON in a few bytes (-1: none): rows worked out from it are stored only while
    the case is still this (:func:`unchanged`)."""
    return zlib.crc32(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else -1


def marks_of(session: ReviewStore, ids: Sequence[str], datas: dict[str, str]) -> dict[str, int]:
    """:func:`case_mark` of each case of ``ids`` as read now: from ``datas`` (read ahead), the
    rest (too big to be read ahead) read for it."""
    marks = {cid: case_mark(data) for cid, data in datas.items()}
    if isinstance(session, Session):
        for cid in ids:
            if cid not in marks:
                with contextlib.suppress(sqlite3.Error):
                    got = session.conn.execute("SELECT data FROM cases WHERE id = ?",
                                               (cid,)).fetchone()
                    marks[cid] = case_mark(got[0] if got else None)
    return marks


def unchanged(conn: sqlite3.Connection, marks: dict[str, int]) -> set[str]:
    """Those cases of ``marks`` whose JSON is still what was marked, read through ``conn`` in
    the transaction that stores their rows: a case the window replaced meanwhile (an edited
    input taken in, its rows dropped) must not get its old rows back."""
    ids = list(marks)
    now: dict[str, int] = {}
    # Text as stored: case_mark's bytes where the file stores UTF-8 (not decoded and encoded
    # again here); a UTF-16 file's text (made outside citeview) is read as text.
    utf8 = conn.execute("PRAGMA encoding").fetchone()[0] == "UTF-8"
    data_sql = "CASE typeof(data) WHEN 'text' THEN CAST(data AS BLOB) END" if utf8 else "data"
    for k in range(0, len(ids), 500):
        part = ids[k : k + 500]
        now.update((cid, zlib.crc32(data) if utf8 and isinstance(data, bytes)
                    else -1 if utf8 else case_mark(data))
                   for cid, data in conn.execute(
            f"SELECT id, {data_sql} FROM cases WHERE id IN ({','.join('?' * len(part))})",
            part))
    return {cid for cid, mark in marks.items() if now.get(cid) == mark}


def judged_cases(session: ReviewStore, ids: Sequence[str],
                 used: tuple[bool, bool, bool, bool] | None = None) -> set[str] | None:
    """Which of ``ids`` have a verdict, evidence or a correction (by anyone); None when that
    is not known (a session that is no file: every case is worked out in full). ``used``:
    :func:`_used` of the session, read already (only the tables holding something are
    asked)."""
    if not isinstance(session, Session):
        return None
    if not ids:
        return set()
    marks = ",".join("?" * len(ids))
    with read_errors(session.path):
        if used is None:
            used = _used(session) or (True, True, True, True)
        tables = [t for t, has in zip(_JUDGEMENT_TABLES, used, strict=False) if has]
        if not tables:  # (most sessions of a cold export hold no judgement: one look)
            return set()
        sql = " UNION ".join(f"SELECT case_id FROM {t} WHERE case_id IN ({marks})"
                             for t in tables)
        return {str(r[0]) for r in session.conn.execute(sql, tuple(ids) * len(tables))}


def unjudged_text(session: ReviewStore, case_id: str, policy: Policy | None,
                  stored: str | None = None) -> str:
    """The case's unjudged rows as JSON lines, worked out from its analysis (what is stored;
    ``stored``: the case's JSON, read already)."""
    return unjudged_rows_text(analysed_once(session, case_id, policy, stored), case_id)


def unjudged_rows_text(analysed: AnalysedCase, case_id: str) -> str:
    """``rows_text(base_rows(analysed, case_id))``: composed by :func:`unjudged_lines`
    where it can be, else from the rows."""
    text = unjudged_lines(analysed, case_id)
    return rows_text(base_rows(analysed, case_id)) if text is None else text


def unjudged_lines(analysed: AnalysedCase, case_id: str) -> str | None:
    """``rows_text(base_rows(analysed, case_id))`` composed straight from the analysis (no
    :class:`Row` made; what a citation's rows share, and the empty judgement, encoded once),
    or None where it might not be the same (a support json writes its own way, a field of
    another type, lone surrogates): then the caller makes the rows."""
    text = _unjudged_json(analysed, case_id)
    if text is None or text.isascii():  # (a flag of the string: no pass over it)
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escaped as json_lines escapes them
        return None
    return text


def unjudged_bytes(analysed: AnalysedCase, case_id: str) -> bytes | None:
    """:func:`unjudged_lines` encoded in UTF-8 (the encoding that checks it for lone
    surrogates is the one kept: an export writes these bytes as they are)."""
    text = _unjudged_json(analysed, case_id)
    if text is None:
        return None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escaped as json_lines escapes them
        return None


def _unjudged_json(analysed: AnalysedCase, case_id: str) -> str | None:
    """:func:`unjudged_lines` before its check for lone surrogates."""
    lines: list[str] = []
    # (names looked up once a case, not once a row)
    js, scores_json, statuses, kinds, status_type, kind_type = (
        _STR, _SCORES, _STATUSES, _KINDS, Status, SourceKind)
    try:
        head = '{"case_id":' + js(case_id) + ',"citation":'
        for c, diags, scores in zip(analysed.citations, analysed.citation_diagnostics(),
                                    analysed.support, strict=True):
            cit = c.citation
            number = c.number
            if type(number) is not int:
                return None
            locator = cit.locator
            start, end = c.claim
            recovered = cit.recovered
            # What the citation's rows share, around what each source gives them.
            first = f'{head}{number},"source_id":'
            where = (',"locator":null,"status":' if locator is None
                     else f',"locator":{js(locator)},"status":')
            claim = f',"claim":{js(c.answer[start:end])},"cited_text":'
            last = (',"recovered":' + (
                "null" if recovered is None else
                _RECOVERED[recovered] if type(recovered) is Recovery else js(str(recovered)))
                + ',"raw":' + js(c.anchor) + _NO_JUDGEMENT_END)
            if diags:
                codes = list(dict.fromkeys(d.code for d in diags))
            else:
                codes = None
                no_codes = ',"lint_codes":[]' + claim  # (most citations: lint touched none)
            for target, score in zip(c.resolution.targets, scores, strict=True):
                if score is None:
                    support = "null"
                elif type(score) is float and score - score == 0.0:  # finite (json's NaN)
                    if score > 0.0:  # (-0.0 is equal to 0.0 as a key: never looked up)
                        support = scores_json.get(score) or _score_json(score)
                    else:
                        support = repr(round(score, 4))
                else:
                    return None
                source = target.source
                status = target.status
                if source is None:
                    cited = '""'
                    kind = "null"
                else:
                    span = target.span
                    cited = '""' if span is None else js(source.text[span[0] : span[1]])
                    kind = source.kind
                    kind = kinds[kind] if type(kind) is kind_type else js(str(kind))
                lines += (
                    first, js(target.source_id), where,
                    statuses[status] if type(status) is status_type else js(str(status)),
                    no_codes if codes is None else (
                        ',"lint_codes":' + _strs(_target_codes(codes, target)) + claim),
                    cited, ',"support":', support, _UNJUDGED, kind, last)
    except TypeError:  # a field of another type than a row's (json decides how it goes)
        return None
    return "".join(lines)


# The JSON of each member of the enums a row holds (str() of a member is its value).
_STATUSES: dict[Status, str] = {m: _STR(str(m)) for m in Status}
_KINDS: dict[SourceKind, str] = {m: _STR(str(m)) for m in SourceKind}
_RECOVERED: dict[Recovery, str] = {m: _STR(str(m)) for m in Recovery}
# A row's end after its anchor, before anyone judged it.
_NO_JUDGEMENT_END = ',"reasons":[],"evidence":[],"correction":null}\n'


# A positive support score -> its JSON as a row holds it (rounded to 4 places): scores are
# ratios of small counts, a few hundred of them recur over a million cases.
_SCORES: dict[float, str] = {}
_SCORES_MAX = 1 << 12


def _score_json(score: float) -> str:
    if len(_SCORES) >= _SCORES_MAX:
        _SCORES.clear()
    text = _SCORES[score] = repr(round(score, 4))
    return text


# A row's judgement before anyone judged it, and the key after it.
_UNJUDGED = ',"verdict":null,"note":"","annotator":"","timestamp":"","source_kind":'


def export_rows(session: ReviewStore, case_id: str, policy: Policy | None,
                annotator: str | None, stored: str | None, data: str | None = None
                ) -> tuple[list[Row], str | None, bool]:
    """The rows of one case, as :func:`case_rows` gives them, and its unjudged rows as JSON
    lines when they were worked out here (None when read from ``stored``), and whether the
    rows are those unjudged rows as they are (nothing put on them): from ``stored``
    (its current unjudged rows, or None) when the case has no correction (whose place needs
    the analysis), else from its analysis (``data``: the case's JSON, read already)."""
    if stored is not None and not session.corrections(case_id, annotator=annotator):
        return _judged_rows(session, case_id, parsed_rows(stored), annotator,
                            lambda corr: True)[0], None, False
    analysed = analysed_once(session, case_id, policy, data)
    base = base_rows(analysed, case_id)
    rows = _judged_rows(session, case_id, base, annotator, lambda corr: fits(analysed, corr))[0]
    same = len(rows) == len(base) and all(a is b for a, b in zip(rows, base, strict=True))
    return rows, rows_text(base) if stored is None else None, same


# Below this many cases a worker pool costs more than it saves.
PARALLEL_MIN_CASES = 2000
_CHUNK = 64  # cases per task sent to a worker
_IN_FLIGHT_PER_JOB = 4  # tasks queued per worker: bounds what waits in memory
# Chunks a task of an export (iter_kept) carries: each still read as one chunk, their outputs
# sent back as one message (a task costs the pool's threads a few hundred microseconds here).
_KEPT_BATCH = 4
_KEPT_IN_FLIGHT_PER_JOB = 4
_ID_PAGE = 4096  # case ids read from a session file at a time
_MAX_JOBS = 4


def default_jobs(n_cases: int) -> int:
    """Worker processes for ``n_cases``: 1 for small sessions, else up to 4 (the CPUs this
    process may run on: :func:`~citeview.core.pool.usable_cpus`)."""
    if n_cases < PARALLEL_MIN_CASES:
        return 1
    return max(1, min(_MAX_JOBS, usable_cpus()))


def iter_case_rows(session: ReviewStore, policy: Policy | None = None, *,
                   annotator: str | None = None, sentences: bool = False,
                   jobs: int | None = 1) -> Iterator[CaseRows]:
    """:func:`case_rows` for every case, in session order, a bounded number of cases in memory
    at a time. With ``jobs`` > 1 (``None``: :func:`default_jobs`) cases are worked out in that
    many processes, each reading the session file itself; the order stays the same."""
    return iter_cases(session, case_rows, policy, annotator=annotator, sentences=sentences,
                      jobs=jobs)


_T = TypeVar("_T")
CaseWork = Callable[..., _T]  # (session, case id, policy, *, annotator=, sentences=) -> result


def case_count(session: ReviewStore) -> int:
    """How many cases ``session`` holds (a session file counts them: its ids are not listed)."""
    if isinstance(session, Session):
        with read_errors(session.path):
            return int(session.conn.execute("SELECT COUNT(*) FROM cases").fetchone()[0])
    return len(session)


def iter_case_ids(session: ReviewStore, page: int | None = None, *,
                  after: int | None = None) -> Iterator[list[str]]:
    """The case ids in session order, ``page`` (default :data:`_ID_PAGE`) at a time: a session
    file is read a page per query, so a million ids are never held at once. ``after``: only
    the cases of a session file at positions after it."""
    page = page or _ID_PAGE
    if not isinstance(session, Session):
        ids = session.case_ids()
        for k in range(0, len(ids), page):
            yield ids[k : k + page]
        return
    last = after
    while True:
        with read_errors(session.path):
            got = session.conn.execute(
                "SELECT pos, id FROM cases WHERE pos > ? ORDER BY pos LIMIT ?"
                if last is not None else "SELECT pos, id FROM cases ORDER BY pos LIMIT ?",
                (last, page) if last is not None else (page,)).fetchall()
        if not got:
            return
        last = int(got[-1][0])
        yield [str(cid) for _, cid in got]


def iter_cases(session: ReviewStore, work: CaseWork[_T], policy: Policy | None = None, *,
               annotator: str | None = None, sentences: bool = False,
               jobs: int | None = 1) -> Iterator[_T]:
    """``work(session, case_id, policy, annotator=, sentences=)`` for every case, in session
    order, as :func:`iter_case_rows` does it (``work`` a module-level function: processes
    are handed it by name). Memory holds a page of ids and the results in flight, whatever
    the session's size."""
    n_jobs, n_cases = _parallel(session, jobs)
    if n_jobs <= 1:
        for page in iter_case_ids(session):
            for cid in page:
                yield work(session, cid, policy, annotator=annotator, sentences=sentences)
        return
    # Each worker reads the session file itself (a session that is no file is worked out here).
    args = (session.path, policy, annotator, sentences, work)
    yield from ordered_map(_rows_chunks, _chunks(session, n_cases), n_jobs, batch=1,
                           in_flight_per_job=_IN_FLIGHT_PER_JOB, initializer=_init_worker,
                           initargs=args)


class Positions(NamedTuple):
    """The cases of a session file at positions ``first`` to ``last`` (both included), in
    order: a chunk that names no case (its worker reads their ids, with their JSON)."""

    first: int
    last: int


# A chunk of cases: their ids, or their positions in a session file.
Chunk = list[str] | Positions

# (session, a chunk of cases, policy, annotator) -> the chunk's output (text, or UTF-8 bytes)
# and the rows its cases gave to keep (RowsKeeper's)
ChunkWork = Callable[[ReviewStore, Chunk, Policy | None, str | None], "_Packed"]


def _chunks(session: ReviewStore, n_cases: int | None = None) -> Iterator[Chunk]:
    """The cases in session order, :data:`_CHUNK` at a time (a task of a worker). A session
    file whose positions run (nearly) from one to its count, as citeview makes them, is cut
    by position: no id is read here, and a worker reads its cases' ids with their JSON, in one
    query (a million ids read here, then each case looked up by its id again, were a tenth
    of a cold export's work). Others (positions changed by hand) go by pages of ids."""
    size = min(_CHUNK, _ID_PAGE)
    if isinstance(session, Session):
        with read_errors(session.path):
            # (apart: together, min and max were a scan of every case's row)
            low = session.conn.execute("SELECT min(pos) FROM cases").fetchone()[0]
            high = session.conn.execute("SELECT max(pos) FROM cases").fetchone()[0]
        n = case_count(session) if n_cases is None else n_cases
        # A chunk then holds more than half of _CHUNK cases on average, never more.
        if type(low) is int and type(high) is int and high - low < 2 * n:
            return _by_position(session, low, high, size)
    return _id_chunks(session, size)


def _by_position(session: ReviewStore, low: int, high: int, size: int) -> Iterator[Chunk]:
    for first in range(low, high + 1, size):
        yield Positions(first, min(first + size - 1, high))
    yield from _id_chunks(session, size, after=high)  # cases added since (none, mostly)


def _id_chunks(session: ReviewStore, size: int, after: int | None = None
               ) -> Iterator[list[str]]:
    return (page[k : k + size] for page in iter_case_ids(session, after=after)
            for k in range(0, len(page), size))


_IDS_AT = "SELECT id FROM cases WHERE pos BETWEEN ? AND ? ORDER BY pos"
_CASES_AT = "SELECT id, data FROM cases WHERE pos BETWEEN ? AND ? ORDER BY pos"


def chunk_ids(session: ReviewStore, chunk: Chunk) -> list[str]:
    """The ids of ``chunk``'s cases, in session order."""
    if not isinstance(chunk, Positions):
        return chunk
    if not isinstance(session, Session):
        raise TypeError("positions name cases of a session file")
    with read_errors(session.path):
        return [str(r[0]) for r in session.conn.execute(_IDS_AT, chunk)]


def chunk_cases(session: ReviewStore, chunk: Chunk) -> tuple[list[str], dict[str, str]]:
    """The ids of ``chunk``'s cases, in order, and their stored JSON as :func:`stored_cases`
    reads it ahead: for positions, both in one query."""
    if not isinstance(chunk, Positions) or not isinstance(session, Session):
        listed = chunk_ids(session, chunk)
        return listed, stored_cases(session, listed)
    ids: list[str] = []
    found: dict[str, str] = {}
    budget = _READ_AHEAD_CHARS  # cases of 17 MB sources are read when worked out, one at a time
    try:
        add = ids.append
        for cid, data in session.conn.execute(_CASES_AT, chunk):
            if type(cid) is str:  # (as sqlite gives it: no str() call)
                add(cid)
            else:
                add(str(cid))
                if not isinstance(cid, str):
                    continue
            if isinstance(data, str) and len(data) <= budget:
                found[cid] = data
                budget -= len(data)
    except (sqlite3.Error, ValueError):  # the ids alone: each case read alone, saying what is
        return chunk_ids(session, chunk), {}  # wrong
    return ids, found


def _parallel(session: ReviewStore, jobs: int | None) -> tuple[int, int]:
    """How many processes work ``session`` out (1: this one, for a small session or one that
    is no file), and how many cases it holds."""
    n_cases = case_count(session)
    n_jobs = default_jobs(n_cases) if jobs is None else jobs
    if n_jobs <= 1 or n_cases <= _CHUNK or not isinstance(session, Session):
        return 1, n_cases
    return n_jobs, n_cases


def iter_kept(session: ReviewStore, work: ChunkWork, policy: Policy | None = None,
              *, annotator: str | None = None, jobs: int | None = 1
              ) -> Iterator[tuple[str | bytes, int]]:
    """Per chunk of cases, in session order, the output ``work`` gives it (text, or UTF-8
    bytes), and how many cases' rows it gave to keep: those are stored here
    (:class:`RowsKeeper`), where waiting on the disk keeps no worker from its cases. A worker
    sends a chunk as one message."""
    keeper = RowsKeeper(session, policy)
    try:
        n_jobs, n_cases = _parallel(session, jobs)
        chunks = _chunks(session, n_cases)
        if n_jobs <= 1:
            got: Iterator[_Packed] = (work(session, chunk, policy, annotator)
                                      for chunk in chunks)
        else:
            got = ordered_map(_rows_chunks, chunks, n_jobs, batch=_KEPT_BATCH,
                              in_flight_per_job=_KEPT_IN_FLIGHT_PER_JOB,
                              initializer=_init_worker,
                              initargs=(session.path, policy, annotator, False, work, "packed"))
        for text, made in got:
            for kept in made:
                keeper.add(kept)
            yield text, len(made)
        keeper.flush()
    finally:
        keeper.close()


# A chunk's output (text, or UTF-8 bytes), and the rows its cases gave to keep.
_Packed = tuple[str | bytes, list["Made"]]

_WORKER: dict[str, Any] = {}


def _init_worker(path: str, policy: Policy | None, annotator: str | None,
                 sentences: bool, work: Callable[..., Any], mode: str = "case") -> None:
    """A worker's session (read-only) and what it is to do with it: ``mode`` "case" (``work``
    a case at a time) or "packed" (a :data:`ChunkWork`, a chunk at a time, sent as one
    message)."""
    collect_less()
    _WORKER.update(session=Session.open(path, readonly=True), policy=policy,
                   annotator=annotator, sentences=sentences, work=work, mode=mode)


def _rows_chunks(chunks: list[Chunk]) -> list[Any]:
    """A task of a worker: one result a case ("case"), or one a chunk ("packed")."""
    w = _WORKER
    work, session, policy, annotator = w["work"], w["session"], w["policy"], w["annotator"]
    if w["mode"] == "packed":
        return [work(session, chunk, policy, annotator) for chunk in chunks]
    return [work(session, cid, policy, annotator=annotator, sentences=w["sentences"])
            for chunk in chunks for cid in chunk_ids(session, chunk)]


def iter_rows(session: ReviewStore, policy: Policy | None = None, *,
              annotator: str | None = None, jobs: int | None = 1) -> Iterator[Row]:
    """Every row of the session, streaming."""
    for cr in iter_case_rows(session, policy, annotator=annotator, jobs=jobs):
        yield from cr.rows


# --------------------------------------------------------------------------- writers

# Excel refuses cells longer than 32,767 characters; a whole cited source can be longer.
CSV_CELL_LIMIT = 32_000
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """A CSV cell a spreadsheet shows as text: formula triggers neutralised with a leading
    ``'``, lone surrogates replaced, very long text cut (saying how long it was)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    text = value if isinstance(value, str) else str(value)
    if not text.isascii():  # a quick scan first: most cells are plain text
        text = str(scrub_surrogates(text))
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    if len(text) > CSV_CELL_LIMIT:
        text = text[:CSV_CELL_LIMIT] + f" [... cut: {len(text)} characters in all]"
    if text.startswith(_FORMULA_START):
        text = "'" + text
    return text


def _csv_values(row: Row) -> list[str]:
    d = row.to_dict()
    d["lint_codes"] = " ".join(row.lint_codes)
    d["reasons"] = "; ".join(row.reasons)
    d["evidence"] = "; ".join(f"{e.lines or f'{e.start}-{e.end}'}: {e.text}"
                              for e in row.evidence)
    d["correction"] = "" if row.correction is None else dumps_json(d["correction"])
    return [csv_cell(d[c]) for c in COLUMNS]


# What a chunk work gives per case: its output text (an export's), and (case id, unjudged rows
# as JSON lines, the case's mark) when those are to be stored (fill_rows's), else None.
Made = tuple[str, str, int]
Exported = tuple[str, Made | None]


def _chunk_rows(session: ReviewStore, chunk: Chunk, policy: Policy | None,
                annotator: str | None, encoded: bool = False
                ) -> Iterable[tuple[Any, list[Row] | None]]:
    """Per case of ``chunk``: (its rows as JSON lines, None) when nobody judged it (its stored
    rows, or its unjudged rows worked out here), or when its rows worked out here are its
    unjudged ones; else (None, its rows). The JSON lines are UTF-8 bytes with ``encoded``,
    else text. Nothing is marked for storing: an export stores nothing."""
    used = _used(session) if isinstance(session, Session) else None
    datas: dict[str, str] | None = None
    if isinstance(chunk, Positions) and isinstance(session, Session) and (
            used is not None and not used[3]):
        # No stored rows (a cold export): the chunk's ids and JSON in one query.
        ids, datas = chunk_cases(session, chunk)
    else:
        ids = chunk_ids(session, chunk)
    analyser = session.analyser if isinstance(session, Session) else None  # (once a chunk)
    if used is not None and not any(used):
        # No judgement and no stored rows in the session (a cold export's usual case): every
        # case's rows are its unjudged rows, worked out from its JSON.
        if datas is None:
            datas = stored_cases(session, ids)
        return _unjudged_outs(session, ids, policy, datas, encoded, analyser)
    return _judged_chunk(session, ids, policy, annotator, encoded, used, datas, analyser)


def _judged_chunk(session: ReviewStore, ids: list[str], policy: Policy | None,
                  annotator: str | None, encoded: bool,
                  used: tuple[bool, bool, bool, bool] | None, datas: dict[str, str] | None,
                  analyser: Analyser | None) -> Iterator[tuple[Any, list[Row] | None]]:
    """:func:`_chunk_rows` of a chunk of a session that holds judgements or stored rows (or
    is no file), a case at a time."""
    judged = judged_cases(session, ids, used)
    stored = (stored_rows(session, ids, rows_key(session, policy))
              if judged is not None and (used is None or used[3]) else {})
    if datas is None:
        datas = stored_cases(session, [cid for cid in ids if cid not in stored])
    for cid in ids:
        text = stored.get(cid)
        if judged is not None and cid not in judged:
            if text is None:  # nobody judged it: its rows are its unjudged rows, no query
                yield _unjudged_out(session, cid, policy, datas.get(cid), encoded,
                                    analyser), None
            else:
                yield text.encode("utf-8") if encoded else text, None
        else:
            rows, made, same = export_rows(session, cid, policy, annotator, text,
                                           datas.get(cid))
            if same and made is not None:
                yield made.encode("utf-8") if encoded else made, None
            else:
                yield None, rows


def _unjudged_out(session: ReviewStore, case_id: str, policy: Policy | None,
                  stored: str | None, encoded: bool, analyser: Analyser | None = None
                  ) -> str | bytes:
    """:func:`unjudged_text`, in UTF-8 bytes with ``encoded``."""
    analysed = analysed_once(session, case_id, policy, stored, analyser)
    if not encoded:
        return unjudged_rows_text(analysed, case_id)
    got = unjudged_bytes(analysed, case_id)
    return rows_text(base_rows(analysed, case_id)).encode("utf-8") if got is None else got


def _unjudged_outs(session: ReviewStore, ids: list[str], policy: Policy | None,
                   datas: dict[str, str], encoded: bool, analyser: Analyser | None
                   ) -> list[tuple[Any, list[Row] | None]]:
    """(:func:`_unjudged_out`, None) of each case of ``ids`` (a cold export's chunk, in one
    list: no generator layer a case)."""
    get = datas.get
    return [(_unjudged_out(session, cid, policy, get(cid), encoded, analyser), None)
            for cid in ids]


# Which of a session's judgement tables (annotations, evidence, corrections) and its stored
# rows hold anything now: a look at each table's first row, once a chunk. A chunk asks only the
# tables that hold something (most sessions have verdicts and no evidence nor correction; a
# cold export has no stored rows).
_USED = ("SELECT EXISTS (SELECT 1 FROM annotations), EXISTS (SELECT 1 FROM evidence), "
         "EXISTS (SELECT 1 FROM corrections), EXISTS (SELECT 1 FROM case_rows)")
_JUDGEMENT_TABLES = ("annotations", "evidence", "corrections")


def _used(session: Session) -> tuple[bool, bool, bool, bool] | None:
    """Whether annotations, evidence, corrections and case_rows hold a row now; None when
    that cannot be read (a newer session opened read-only: then every table is asked)."""
    with read_errors(session.path):
        try:
            row = session.conn.execute(_USED).fetchone()
        except sqlite3.OperationalError:  # (no such table)
            return None
    return (bool(row[0]), bool(row[1]), bool(row[2]), bool(row[3]))


def _jsonl_parts(session: ReviewStore, chunk: Chunk, policy: Policy | None,
                 annotator: str | None, encoded: bool) -> list[Any]:
    """The rows of each case of ``chunk`` as JSON lines (lone surrogates escaped), in UTF-8
    bytes with ``encoded``: a case nobody judged whose rows are stored is copied out as it
    is."""
    return [text if text is not None
            else rows_text(rows or []).encode("utf-8") if encoded else rows_text(rows or [])
            for text, rows in _chunk_rows(session, chunk, policy, annotator, encoded)]


def _csv_parts(session: ReviewStore, chunk: Chunk, policy: Policy | None,
               annotator: str | None) -> list[str]:
    """The rows of each case of ``chunk`` as CSV lines (RFC 4180, CRLF)."""
    out: list[str] = []
    for text, rows in _chunk_rows(session, chunk, policy, annotator):
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\r\n")
        for row in parsed_rows(text) if text is not None else rows or ():
            writer.writerow(_csv_values(row))
        out.append(buf.getvalue())
    return out


def chunk_csv(session: ReviewStore, ids: Chunk, policy: Policy | None,
              annotator: str | None) -> list[Exported]:
    """The rows of each case of ``ids`` (a chunk: ids or positions) as CSV lines (RFC 4180,
    CRLF), a text a case, worked out in this process (:func:`case_csv`'s; an export's workers
    send a chunk's bytes at once)."""
    return [(text, None) for text in _csv_parts(session, ids, policy, annotator)]


def chunk_jsonl(session: ReviewStore, ids: Chunk, policy: Policy | None,
                annotator: str | None) -> list[Exported]:
    """The rows of each case of ``ids`` (a chunk: ids or positions) as JSON lines (lone
    surrogates escaped), a text a case, worked out in this process (:func:`case_jsonl`'s): a
    case nobody judged whose rows are stored is copied out as it is."""
    return [(text, None) for text in _jsonl_parts(session, ids, policy, annotator, False)]


# The chunk works of the exports (ChunkWork): a chunk's output as one message, text or bytes.

def _pack_jsonl(session: ReviewStore, chunk: Chunk, policy: Policy | None,
                annotator: str | None) -> _Packed:
    return "".join(_jsonl_parts(session, chunk, policy, annotator, False)), []


def _pack_jsonl_bytes(session: ReviewStore, chunk: Chunk, policy: Policy | None,
                      annotator: str | None) -> _Packed:
    return b"".join(_jsonl_parts(session, chunk, policy, annotator, True)), []


def _pack_csv(session: ReviewStore, chunk: Chunk, policy: Policy | None,
              annotator: str | None) -> _Packed:
    return "".join(_csv_parts(session, chunk, policy, annotator)), []


def _pack_csv_bytes(session: ReviewStore, chunk: Chunk, policy: Policy | None,
                    annotator: str | None) -> _Packed:
    # (csv_cell scrubbed lone surrogates from every cell: this encodes)
    return "".join(_csv_parts(session, chunk, policy, annotator)).encode("utf-8"), []


def case_csv(session: ReviewStore, case_id: str, policy: Policy | None = None, *,
             annotator: str | None = None, sentences: bool = False) -> str:
    """One case's rows as CSV lines (:func:`chunk_csv` of one case)."""
    return chunk_csv(session, [case_id], policy, annotator)[0][0]


def case_jsonl(session: ReviewStore, case_id: str, policy: Policy | None = None, *,
               annotator: str | None = None, sentences: bool = False) -> str:
    """One case's rows as JSON lines (:func:`chunk_jsonl` of one case)."""
    return chunk_jsonl(session, [case_id], policy, annotator)[0][0]


class RowsKeeper:
    """Stores the unjudged rows :func:`fill_rows` worked out (so exports read them), a batch a
    transaction, through a connection of its own (opened when there are rows to store). Rows
    are a cache: when the session cannot take them (read-only, of another version, busy, a
    full disk) they are not kept, and the work goes on as before."""

    # Characters of rows held before they are written: what fill_rows holds stays that of a
    # few cases, whatever the session's size (a commit costs no sync: synchronous=NORMAL; a
    # bigger batch measured no cheaper a case).
    BATCH_CHARS = 16_000

    def __init__(self, session: ReviewStore, policy: Policy | None) -> None:
        self.path = session.path if isinstance(session, Session) else None
        self.key = rows_key(session, policy) if self.path is not None else ""
        self.pending: list[tuple[str, str, str]] = []
        self.marks: dict[str, int] = {}
        self.chars = 0
        self.conn: sqlite3.Connection | None = None

    def add(self, got: Made | None) -> None:
        if got is None or self.path is None:
            return
        self.pending.append((got[0], self.key, got[1]))
        self.marks[got[0]] = got[2]
        self.chars += len(got[1])
        if self.chars >= self.BATCH_CHARS:
            self.flush()

    def flush(self) -> None:
        rows, self.pending, self.chars = self.pending, [], 0
        marks, self.marks = self.marks, {}
        if not rows or self.path is None:
            return
        try:
            if self.conn is None:
                self.conn = connect(self.path, readonly=False)
                self.conn.execute("PRAGMA busy_timeout = 100")  # never wait on a writer
                # A cache: a power cut may lose the last rows written, never the file (WAL).
                self.conn.execute("PRAGMA synchronous = NORMAL")
                if user_version(self.conn) != SCHEMA_VERSION:
                    raise sqlite3.OperationalError("not this citeview's version")
                # Rows go in only for cases unchanged() finds, in the same transaction: the
                # foreign key's look-up of each case would be a second one.
                self.conn.execute("PRAGMA foreign_keys = OFF")
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                kept = unchanged(self.conn, marks)
                self.conn.executemany("INSERT OR REPLACE INTO case_rows VALUES (?, ?, ?)",
                                      [r for r in rows if r[0] in kept])
                self.conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.conn.execute("ROLLBACK")
                raise
        except (sqlite3.Error, SessionError, OSError):
            self.close()
            self.path = None  # not kept: worked out again next time

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()
            self.conn = None


def _write_rows(session: ReviewStore, out: IO[Any], work: ChunkWork, policy: Policy | None,
                annotator: str | None, jobs: int | None) -> None:
    # The rows an export works out are not stored: storing them cost a cold export of a
    # million cases about a quarter of its time on two CPUs, and the background pass that
    # follows a big session's making (the window's, `citeview import`'s) stores them anyway.
    # So an export only reads the session.
    # (Its works give no rows to keep: iter_kept stores nothing for it.)
    if isinstance(out, io.RawIOBase):  # (a raw write may take a part: the buffer writes all)
        buffered = io.BufferedWriter(out)
        _write_rows(session, buffered, work, policy, annotator, jobs)
        buffered.flush()
        buffered.detach()  # (the caller's stream stays open)
        return
    for text, _made in iter_kept(session, work, policy, annotator=annotator, jobs=jobs):
        if text:
            out.write(text)


def chunk_unjudged(session: ReviewStore, ids: Chunk, policy: Policy | None,
                   annotator: str | None) -> list[Exported]:
    """Per case of ``ids``: ("", (its id, its unjudged rows worked out, its mark)) when it has
    no current stored rows, else ("", None)."""
    ids = chunk_ids(session, ids)
    have = stored_rows(session, ids, rows_key(session, policy))
    todo = [cid for cid in ids if cid not in have]
    datas = stored_cases(session, todo)
    marks = marks_of(session, todo, datas)
    out: list[Exported] = []
    for cid in ids:
        if cid in have:
            out.append(("", None))
            continue
        try:
            out.append(("", (cid, unjudged_text(session, cid, policy, datas.get(cid)),
                             marks.get(cid, -1))))
        except SessionError:
            out.append(("", None))  # an unreadable case: said as it is by the export itself
    return out


def _pack_unjudged(session: ReviewStore, chunk: Chunk, policy: Policy | None,
                   annotator: str | None) -> _Packed:
    return "", [made for _text, made in chunk_unjudged(session, chunk, policy, annotator)
                if made]


def fill_rows(session: Session, policy: Policy | None = None, *,
              jobs: int | None = None) -> int:
    """Work out and store the unjudged rows of every case that has no current ones (in
    ``jobs`` processes, stored by :class:`RowsKeeper`), so that exports
    under ``policy`` read them instead of analysing every case. Returns how many were worked
    out."""
    return sum(made for _text, made in iter_kept(session, _pack_unjudged, policy, jobs=jobs))


def takes_bytes(out: IO[Any]) -> bool:
    """Whether ``out`` is a binary stream (a file opened ``"wb"``, standard output's
    ``buffer``): the row writers give it UTF-8 bytes, any other stream text."""
    if isinstance(out, io.TextIOBase | codecs.StreamWriter | codecs.StreamReaderWriter):
        return False  # (a codecs writer passes on its binary file's "wb" mode, yet takes text)
    return isinstance(out, io.BufferedIOBase | io.RawIOBase) or "b" in str(
        getattr(out, "mode", ""))


def write_csv(session: ReviewStore, out: IO[Any], policy: Policy | None = None, *,
              annotator: str | None = None, jobs: int | None = None) -> None:
    """Write every row as CSV (UTF-8 with BOM, header first, RFC 4180 CRLF rows), as text, or
    as its UTF-8 bytes to a binary stream (:func:`takes_bytes`)."""
    head = io.StringIO()
    head.write("\ufeff")
    csv.writer(head, lineterminator="\r\n").writerow(COLUMNS)
    if takes_bytes(out):
        out.write(head.getvalue().encode("utf-8"))
        _write_rows(session, out, _pack_csv_bytes, policy, annotator, jobs)
    else:
        out.write(head.getvalue())
        _write_rows(session, out, _pack_csv, policy, annotator, jobs)


def write_jsonl(session: ReviewStore, out: IO[Any], policy: Policy | None = None, *,
                annotator: str | None = None, jobs: int | None = None) -> None:
    """Write every row as one JSON object a line, as text, or as its UTF-8 bytes to a binary
    stream (:func:`takes_bytes`: encoded where the rows are made, in the workers)."""
    work = _pack_jsonl_bytes if takes_bytes(out) else _pack_jsonl
    _write_rows(session, out, work, policy, annotator, jobs)
