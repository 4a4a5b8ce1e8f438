"""The review report: progress, verdicts, precision, recall, unsupported rates and lint counts of
a session, as a summary dict rendered as text, JSON or one self-contained HTML file.

Definitions are those of :mod:`citeview.core.metrics`. One verdict counts per (citation, source
id): with ``annotator`` given, that annotator's; otherwise an adjudicated verdict
(:data:`~citeview.session.merge.ADJUDICATED`) when there is one, else the most recent verdict.
Recall is computed over the cases reviewed so far (a verdict on any citation, or marked done):
cases nobody opened would only say "not yet". Annotations whose citation is gone (orphaned)
are counted, not judged; so are evidence spans and corrections whose citation (an added
citation's claim) is gone, in the same ``orphaned_annotations`` count. The summary is built
case by case, and each case's annotations are read from a live cursor keeping one row per
citation source: memory grows with neither the session nor a case's annotations.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any

from citeview import __version__
from citeview.core.corrections import fits
from citeview.core.diagnostics import RULES
from citeview.core.metrics import (
    UNSUPPORTED,
    Recall,
    answer_sentences,
    citation_recall,
    is_decided,
    precision_from_counts,
    unsupported_rates,
)
from citeview.core.numbering import number_at
from citeview.core.policy import Policy
from citeview.session.jsonio import dumps_json
from citeview.session.merge import ADJUDICATED
from citeview.session.model import Annotation, ReviewState
from citeview.session.protocol import ReviewStore
from citeview.session.rows import Row, analysed_once, iter_cases

NO_VERDICT = "(no verdict)"
UNRESOLVED = "unresolved"  # source kind of a citation whose source is not in the material
EXAMPLES = 100  # unsupported citations listed in the report, at most

DEFINITIONS = {
    "decided": "has a verdict other than \"cannot tell\" (progress counts any verdict)",
    "precision": "(supported + 0.5 x partially supported) / decided, per citation and source",
    "supported_share": "supported / decided",
    "unsupported_rate": "unsupported / decided, per kind of cited source",
    "recall": "sentences (headings and code excluded) with a citation judged supported / "
              "all sentences, uncited ones included, over reviewed cases",
}


@dataclass(slots=True)
class _Pick:
    """The verdict that counts for one citation source, found while its annotations stream by
    (the rows of one source are never all held): an adjudicated verdict, else the most recent
    one, else the first annotation (a note without a verdict), else the unjudged row."""

    base: Row
    first: Annotation | None = None
    adjudicated: Annotation | None = None
    latest: Annotation | None = None

    def add(self, a: Annotation) -> None:
        if self.first is None:
            self.first = a
        if a.verdict is None:
            return
        if self.adjudicated is None and a.annotator == ADJUDICATED:
            self.adjudicated = a
        if self.latest is None or a.timestamp > self.latest.timestamp:
            self.latest = a

    def picked(self) -> Annotation | None:
        return self.adjudicated or self.latest or self.first

    def row(self) -> Row:
        a = self.adjudicated or self.latest or self.first
        if a is None:
            return self.base
        return replace(self.base, verdict=a.verdict, note=a.note, annotator=a.annotator,
                       timestamp=a.timestamp)


@dataclass(slots=True)
class CaseTally:
    """What one case adds to the report: its size does not grow with its annotations (a
    picked row per citation source, the annotators' names)."""

    state: ReviewState
    markers: int
    lint_codes: list[str]
    picks: list[Row]
    annotators: set[str]
    orphaned: int
    sentences: list[tuple[int, ...]]
    # Per picked verdict with reasons: (reasons, lint codes on its citation, source kind).
    reasons: list[tuple[tuple[str, ...], tuple[str, ...], str]] = field(default_factory=list)


def case_tally(session: ReviewStore, case_id: str, policy: Policy | None = None, *,
               annotator: str | None = None, sentences: bool = True) -> CaseTally:
    """One case's part of the report, reading its annotations from a live cursor (a case with
    2,000,000 annotations is never held in memory). The same rows as
    :func:`~citeview.session.rows.case_rows`, grouped by (citation, anchor, source id)."""
    analysed = analysed_once(session, case_id, policy)
    picks: dict[tuple[int, str, str], _Pick] = {}
    codes = {c.number: tuple(dict.fromkeys(d.code for d in diags))
             for c, diags in zip(analysed.citations, analysed.citation_diagnostics(),
                                 strict=True)}
    for c, scores in zip(analysed.citations, analysed.support, strict=True):
        recovered = c.recovered.value if c.recovered is not None else None
        for target, score in zip(c.targets, scores, strict=True):
            key = (c.number, c.anchor, target.source_id)
            if key not in picks:
                kind = target.source.kind.value if target.source is not None else None
                picks[key] = _Pick(Row(case_id, c.number, target.source_id, c.citation.locator,
                                       target.status.value, (), c.claim_text, "", score,
                                       source_kind=kind, recovered=recovered, anchor=c.anchor))
    annotators: set[str] = set()
    orphaned = 0
    annotated = False
    for a in session.iter_annotations(case_id, annotator=annotator):
        annotated = True
        if a.annotator:
            annotators.add(a.annotator)
        pick = None if a.orphaned else picks.get((a.key.number, a.key.anchor, a.key.source_id))
        if pick is None:
            orphaned += 1
        else:
            pick.add(a)
    # Evidence and corrections whose citation (an added one's claim) is gone count as orphans
    # too: they are the orphaned rows of the exports (:func:`~citeview.session.rows.case_rows`).
    for ev in session.evidence(case_id, annotator=annotator):
        k = ev.key
        if (k.number, k.anchor, k.source_id) not in picks:
            orphaned += 1
    orphaned += sum(1 for corr in session.corrections(case_id, annotator=annotator)
                    if not fits(analysed, corr))
    states = [r.state for r in session.reviews(case_id)
              if annotator is None or r.annotator == annotator]
    state = (ReviewState.DONE if ReviewState.DONE in states else ReviewState.IN_PROGRESS
             if ReviewState.IN_PROGRESS in states or annotated else ReviewState.NOT_STARTED)
    cits = [c.citation for c in analysed.citations]
    sents = [tuple(number_at(i) for i in s.citations)
             for s in answer_sentences(analysed.answer, cits)] if sentences else []
    reasons = []
    for (number, _anchor, _sid), pick in picks.items():
        chosen = pick.picked()
        if chosen is not None and chosen.reasons:
            reasons.append((chosen.reasons, codes.get(number, ()),
                            pick.base.source_kind or UNRESOLVED))
    return CaseTally(state, len(analysed.citations), [d.code for d in analysed.lint.all],
                     [p.row() for p in picks.values()], annotators, orphaned, sents, reasons)


def summarize(session: ReviewStore, policy: Policy | None = None, *,
              annotator: str | None = None, jobs: int | None = 1) -> dict[str, Any]:
    """The report's numbers as a JSON-ready dict (see the module docstring)."""
    states: Counter[str] = Counter()
    verdicts: Counter[str] = Counter()
    kind_counts: Counter[tuple[str, str]] = Counter()
    lint: Counter[str] = Counter()
    support_sum: Counter[str] = Counter()
    support_n: Counter[str] = Counter()
    annotators: set[str] = set()
    recall = Recall()
    reviewed = markers = pairs = orphaned = cases = 0
    examples: list[dict[str, Any]] = []
    reason_counts: Counter[str] = Counter()
    reason_codes: Counter[tuple[str, str]] = Counter()
    reason_kinds: Counter[tuple[str, str]] = Counter()
    for ct in iter_cases(session, case_tally, policy, annotator=annotator, sentences=True,
                         jobs=jobs):
        cases += 1
        markers += ct.markers
        lint.update(ct.lint_codes)
        states[ct.state.value] += 1
        annotators |= ct.annotators
        orphaned += ct.orphaned
        for given_reasons, given_codes, given_kind in ct.reasons:
            for reason in given_reasons:
                reason_counts[reason] += 1
                reason_kinds[(reason, given_kind)] += 1
                for code in given_codes:
                    reason_codes[(reason, code)] += 1
        by_number: dict[int, list[str | None]] = {}
        any_verdict = False
        for row in ct.picks:
            pairs += 1
            verdicts[row.verdict if row.verdict is not None else NO_VERDICT] += 1
            by_number.setdefault(row.number, []).append(row.verdict)
            if row.verdict is None:
                continue
            any_verdict = True
            kind = row.source_kind or UNRESOLVED
            kind_counts[(kind, row.verdict)] += 1
            if row.support is not None:
                support_sum[row.verdict] += row.support  # type: ignore[assignment]
                support_n[row.verdict] += 1
            if row.verdict == UNSUPPORTED and len(examples) < EXAMPLES:
                examples.append({"case_id": row.case_id, "citation": row.number,
                                 "source_id": row.source_id, "claim": row.claim,
                                 "note": row.note, "annotator": row.annotator})
        if any_verdict or ct.state is ReviewState.DONE:
            reviewed += 1
            recall = recall + citation_recall(
                [v for n in sent for v in by_number.get(n, [None])] for sent in ct.sentences)
    kinds = ((k, v) for (k, v), n in kind_counts.items() for _ in range(n))
    labels = list(session.labels)
    verdict_table = {label: verdicts.get(label, 0) for label in labels}
    verdict_table.update({v: n for v, n in verdicts.items() if v not in verdict_table
                          and v != NO_VERDICT})
    verdict_table[NO_VERDICT] = verdicts.get(NO_VERDICT, 0)
    given = {v: n for v, n in verdicts.items() if v != NO_VERDICT}
    prec = precision_from_counts(given)
    decided = sum(n for v, n in given.items() if is_decided(v))
    return {
        "citeview": __version__,
        "session": {"name": session.name, "path": session.path, "labels": labels,
                    "blind": session.blind, "annotators": sorted(annotators)},
        "annotator": annotator,
        "cases": {"total": cases, "done": states.get(ReviewState.DONE.value, 0),
                  "in_progress": states.get(ReviewState.IN_PROGRESS.value, 0),
                  "not_started": states.get(ReviewState.NOT_STARTED.value, 0)},
        "citations": {"markers": markers, "sources": pairs,
                      "with_verdict": pairs - verdicts.get(NO_VERDICT, 0), "decided": decided,
                      "orphaned_annotations": orphaned},
        "verdicts": verdict_table,
        "precision": {"decided": prec.decided, "supported": prec.supported,
                      "partially_supported": prec.partial, "precision": prec.precision,
                      "supported_share": prec.supported_share},
        "unsupported_by_kind": {k: {"decided": r.decided, "unsupported": r.unsupported,
                                    "rate": r.rate}
                                for k, r in unsupported_rates(kinds).items()},
        "recall": {"cases": reviewed, "sentences": recall.sentences, "cited": recall.cited,
                   "uncited": recall.uncited, "supported": recall.supported,
                   "recall": recall.recall},
        "lint": {code: {"name": RULES[code].name if code in RULES else code,
                        "severity": RULES[code].severity.value if code in RULES else "",
                        "count": lint[code]} for code in sorted(lint)},
        "reasons": {r: {"count": reason_counts.get(r, 0),
                        "by_lint_code": {c: n for (x, c), n in sorted(reason_codes.items())
                                         if x == r},
                        "by_source_kind": {k: n for (x, k), n in sorted(reason_kinds.items())
                                           if x == r}}
                    for r in [*session.reasons,
                              *sorted(x for x in reason_counts if x not in session.reasons)]},
        "support_by_verdict": {v: round(support_sum[v] / support_n[v], 4)
                               for v in verdict_table if support_n.get(v)},
        "unsupported_examples": examples,
        "definitions": DEFINITIONS,
    }


# --------------------------------------------------------------------------- rendering


def _pct(x: object) -> str:
    return "n/a" if not isinstance(x, (int, float)) else f"{100 * x:.1f}%"


def render_text(s: Mapping[str, Any]) -> str:
    c, cit, p, r = s["cases"], s["citations"], s["precision"], s["recall"]
    who = f" (annotator {s['annotator']})" if s["annotator"] is not None else ""
    out = [
        f"Review report: {s['session']['name']}{who}",
        f"Cases: {c['done']} of {c['total']} done, {c['in_progress']} in progress, "
        f"{c['not_started']} not started",
        # (a provider's citation has no marker: "markers" stays the JSON key, not the word)
        f"Citations: {cit['markers']} in the answers, {cit['sources']} cited sources, "
        f"{cit['with_verdict']} with a verdict, {cit['decided']} decided"
        + (f", {cit['orphaned_annotations']} orphaned annotations"
           if cit["orphaned_annotations"] else ""),
        "Verdicts:",
        *[f"  {label:<22} {n}" for label, n in s["verdicts"].items()],
        f"Citation precision: {_pct(p['precision'])} "
        f"(supported {p['supported']} + 0.5 x partially supported {p['partially_supported']}) "
        f"/ decided {p['decided']}; supported share {_pct(p['supported_share'])}",
        f"Citation recall: {_pct(r['recall'])} ({r['supported']} of {r['sentences']} sentences "
        f"supported, {r['uncited']} uncited, over {r['cases']} reviewed cases)",
        "Unsupported rate by source kind:",
        *([f"  {k:<10} {_pct(v['rate'])} ({v['unsupported']} of {v['decided']})"
           for k, v in s["unsupported_by_kind"].items()] or ["  (nothing decided)"]),
        "Lint:",
        *([f"  {code} {v['name']:<32} {v['count']}" for code, v in s["lint"].items()]
          or ["  (no findings)"]),
        "Reasons (per lint code; per source kind):",
        *([f"  {name:<36} {v['count']}"
           + (f"  lint {', '.join(f'{c} {n}' for c, n in v['by_lint_code'].items())}"
              if v["by_lint_code"] else "")
           + (f"  kind {', '.join(f'{k} {n}' for k, n in v['by_source_kind'].items())}"
              if v["by_source_kind"] else "")
           for name, v in s.get("reasons", {}).items() if v["count"]]
          or ["  (no reasons given)"]),
    ]
    return "\n".join(out) + "\n"


def _bars(items: Sequence[tuple[str, int]], title: str, color: str) -> str:
    """A horizontal bar chart as inline SVG (labels escaped)."""
    if not items:
        return f"<p class=empty>{html.escape(title)}: nothing to show.</p>"
    top = max(n for _, n in items) or 1
    row_h, label_w, bar_w = 24, 260, 360
    height = row_h * len(items) + 8
    parts = [f'<svg role="img" aria-label="{html.escape(title)}" width="{label_w + bar_w + 80}"'
             f' height="{height}" xmlns="http://www.w3.org/2000/svg">']
    for i, (label, n) in enumerate(items):
        y = 4 + i * row_h
        w = round(bar_w * n / top)
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{w}" height="{row_h - 8}" fill="{color}">'
            f"<title>{html.escape(label)}: {n}</title></rect>"
            f'<text x="{label_w + w + 6}" y="{y + 16}">{n}</text>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:60em;
color:#1d1d1f;background:#fff;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse}
td,th{padding:.25em .7em;text-align:left;border-bottom:1px solid #eee;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
svg text{font:12px system-ui,sans-serif;fill:#1d1d1f}.muted{color:#666}.empty{color:#666}
@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#ddd}svg text{fill:#ddd}
td,th{border-color:#333}}
"""


def render_html(s: Mapping[str, Any]) -> str:
    """One self-contained HTML file (inline CSS and SVG, no script, nothing fetched)."""
    e = html.escape
    c, cit, p, r = s["cases"], s["citations"], s["precision"], s["recall"]

    def table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
        th = "".join(f"<th>{e(h)}</th>" for h in head)
        body = "".join(
            "<tr>" + "".join(f'<td class="n">{e(str(v))}</td>' if isinstance(v, (int, float))
                             else f"<td>{e(str(v))}</td>" for v in row) + "</tr>"
            for row in rows)
        return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"

    name = e(s["session"]["name"])
    who = f" &middot; annotator {e(s['annotator'])}" if s["annotator"] is not None else ""
    verdict_items = [(k, int(v)) for k, v in s["verdicts"].items()]
    lint_items = [(f"{k} {v['name']}", int(v["count"])) for k, v in s["lint"].items()]
    kinds = [(k, _pct(v["rate"]), v["unsupported"], v["decided"])
             for k, v in s["unsupported_by_kind"].items()]
    examples = [(x["case_id"], x["citation"], x["source_id"], x["claim"], x["note"],
                 x["annotator"]) for x in s["unsupported_examples"]]
    reasons = [(k, int(v["count"]),
                ", ".join(f"{c} {n}" for c, n in v["by_lint_code"].items()),
                ", ".join(f"{k2} {n}" for k2, n in v["by_source_kind"].items()))
               for k, v in s.get("reasons", {}).items() if v["count"]]
    annotators = ", ".join(s["session"]["annotators"]) or "(none)"
    blind = " &middot; annotated blind" if s["session"]["blind"] else ""
    version = f"citeview {s['citeview']}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Review report: {name}</title><style>{_CSS}</style></head>
<body>
<h1>Review report: {name}</h1>
<p class="muted">Annotators: {e(annotators)}{who}{blind} &middot; {e(version)}</p>
<h2>Progress</h2>
{table(["", "count"], [("cases", c["total"]), ("done", c["done"]),
                        ("in progress", c["in_progress"]), ("not started", c["not_started"]),
                        ("citation markers", cit["markers"]), ("cited sources", cit["sources"]),
                        ("with a verdict", cit["with_verdict"]), ("decided", cit["decided"]),
                        ("orphaned annotations", cit["orphaned_annotations"])])}
<h2>Verdicts</h2>
{_bars(verdict_items, "Verdicts", "#4e79a7")}
<h2>Precision and recall</h2>
{table(["measure", "value", "how"], [
        ("citation precision", _pct(p["precision"]),
         f"(supported {p['supported']} + 0.5 x partially supported "
         f"{p['partially_supported']}) / decided {p['decided']}"),
        ("supported share", _pct(p["supported_share"]), f"{p['supported']} / {p['decided']}"),
        ("citation recall", _pct(r["recall"]),
         f"{r['supported']} of {r['sentences']} sentences supported ({r['uncited']} uncited), "
         f"over {r['cases']} reviewed cases")])}
<h2>Unsupported rate by source kind</h2>
{table(["source kind", "rate", "unsupported", "decided"], kinds) if kinds
     else '<p class="empty">Nothing decided yet.</p>'}
<h2>Lint findings</h2>
{_bars(lint_items, "Lint findings by code", "#e15759")}
<h2>Reasons</h2>
{table(["reason", "count", "per lint code", "per source kind"], reasons) if reasons
     else '<p class="empty">No reasons given.</p>'}
<h2>Unsupported citations{" (first " + str(EXAMPLES) + ")"
                          if len(examples) >= EXAMPLES else ""}</h2>
{table(["case", "citation", "source", "claim", "note", "annotator"], examples) if examples
     else '<p class="empty">None.</p>'}
<h2>Definitions</h2>
<ul>{"".join(f"<li><b>{e(k)}</b>: {e(v)}</li>" for k, v in s["definitions"].items())}</ul>
</body></html>
"""


def write_report(session: ReviewStore, out: IO[str], fmt: str = "text",
                 policy: Policy | None = None, *, annotator: str | None = None,
                 jobs: int | None = None) -> None:
    """Write the report in ``fmt`` (text, json, html); ``jobs`` as in
    :func:`~citeview.session.rows.iter_case_rows` (``None``: by session size)."""
    summary = summarize(session, policy, annotator=annotator, jobs=jobs)
    if fmt == "json":
        out.write(dumps_json(summary, indent=1) + "\n")  # lone surrogates escaped
    elif fmt == "html":
        out.write(render_html(summary))
    else:
        out.write(render_text(summary))


__all__ = ["DEFINITIONS", "CaseTally", "case_tally", "render_html", "render_text", "summarize",
           "write_report"]
