"""Corrected answers out (``citeview export --format corrections``): per case and annotator
with corrections, the original and the corrected answer (markers in the guide's format; a
provider case converted), as JSONL in one of two named shapes:

- ``sft`` (chat supervised fine-tuning): ``{"messages": [instructions..., {"role": "user",
  ...material and question}, {"role": "assistant", "content": corrected}], ...}``
- ``pairs`` (preference pairs): ``{"prompt": [...], "chosen": [{"role": "assistant", "content":
  corrected}], "rejected": [{"role": "assistant", "content": original}], ...}``

Each line also names its ``case_id`` and ``annotator`` and counts the corrections applied. The
prompt is what the model saw (:func:`citeview.core.model_input.model_input`) of the corrected
case, so the source ids of the corrected markers are the material's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any, Literal

from citeview.core.cases import Case
from citeview.core.corrections import CorrectedAnswer, Correction, apply_corrections
from citeview.core.model_input import model_input
from citeview.session.jsonio import dumps_json
from citeview.session.protocol import ReviewStore

Shape = Literal["sft", "pairs"]
SHAPES: tuple[Shape, ...] = ("sft", "pairs")


def prompt_messages(case: Case) -> list[dict[str, str]]:
    """The chat messages the model answered: the input's instructions (or citeview's
    recommended ones), then one user message with the material and the question."""
    seen = model_input(case)
    messages = [{"role": role if role in ("system", "developer") else "system", "content": text}
                for role, text in seen.instructions]
    parts = [text for _where, text in seen.material]
    if seen.question:
        parts.append(seen.question)
    messages.append({"role": "user", "content": "\n\n".join(parts)})
    return messages


def corrected_answers(session: ReviewStore, *, annotator: str | None = None
                      ) -> Iterator[tuple[str, CorrectedAnswer]]:
    """(annotator, corrected answer) per case and annotator with corrections, in case
    order."""
    by_case: dict[str, dict[str, list[Correction]]] = {}
    for corr in session.corrections(annotator=annotator):
        by_case.setdefault(corr.case_id, {}).setdefault(corr.annotator, []).append(corr)
    for case_id in session.case_ids():
        for who, made in sorted(by_case.get(case_id, {}).items()):
            yield who, apply_corrections(session.analysed(case_id), made)


def correction_record(who: str, result: CorrectedAnswer, shape: Shape) -> dict[str, Any]:
    """One JSONL line of ``shape`` for ``result``."""
    prompt = prompt_messages(Case.from_dict(result.case, result.case_id))
    meta = {"case_id": result.case_id, "annotator": who, "corrections": result.applied}
    if shape == "sft":
        return {"messages": [*prompt, {"role": "assistant", "content": result.corrected}],
                **meta}
    return {"prompt": prompt,
            "chosen": [{"role": "assistant", "content": result.corrected}],
            "rejected": [{"role": "assistant", "content": result.original}], **meta}


def write_corrections(session: ReviewStore, out: IO[str], shape: Shape = "sft", *,
                      annotator: str | None = None) -> None:
    """Write the corrected answers of ``session`` as JSONL of ``shape`` (a pair only where the
    corrected answer differs from the original)."""
    for who, result in corrected_answers(session, annotator=annotator):
        if shape == "pairs" and not result.changed:
            continue
        out.write(dumps_json(correction_record(who, result, shape)) + "\n")


__all__ = ["SHAPES", "Shape", "corrected_answers", "correction_record", "prompt_messages",
           "write_corrections"]
