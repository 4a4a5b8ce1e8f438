"""A case: the unit a reviewer judges (question, the material the model saw, and its answer)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from citeview.core.errors import InputError

KNOWN_KEYS = ("id", "question", "tool_outputs", "context", "answer", "documents")


@dataclass(slots=True)
class Case:
    """One case. ``tool_outputs`` holds one string per tool invocation (turn N is index N);
    ``context`` is injected context (tags with ``id`` attributes); ``documents`` maps a chosen id
    to the text of a file given directly as a source. Unknown keys are kept in ``extra``."""

    id: str
    answer: str
    question: str | None = None
    tool_outputs: list[str] = field(default_factory=list)
    context: str | None = None
    documents: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    # The provider reading made when the case was built from a response, for the analysis to
    # use once instead of reading a 300,000-citation response again (see
    # core.providers.case_reading). Not part of the case: never compared, copied or written.
    reading_memo: Any = field(default=None, init=False, compare=False, repr=False)

    @classmethod
    def from_dict(cls, data: object, default_id: str = "case") -> Case:
        """Build a case from its JSON shape; wrong types raise :class:`InputError`."""
        if type(data) is dict and data.keys() <= _PLAIN_KEYS:
            plain = _plain_case(cls, data, default_id)
            if plain is not None:
                return plain
        if not isinstance(data, Mapping):
            raise InputError(f"a case must be a JSON object, not {type(data).__name__}")
        answer = data.get("answer")
        if not isinstance(answer, str):
            raise InputError("case has no \"answer\" string" if answer is None
                             else f"case \"answer\" must be a string, not {_tname(answer)}")
        cid = data.get("id", default_id)
        if isinstance(cid, int) and not isinstance(cid, bool):
            cid = str(cid)
        if not isinstance(cid, str) or not cid:
            raise InputError(f"case \"id\" must be a non-empty string, not {_tname(cid)}")
        question = data.get("question")
        if question is not None and not isinstance(question, str):
            raise InputError(f"case {cid!r}: \"question\" must be a string, not {_tname(question)}")
        outputs = data.get("tool_outputs", [])
        if isinstance(outputs, str):
            outputs = [outputs]
        if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
            raise InputError(f"case {cid!r}: \"tool_outputs\" must be a list of strings")
        context = data.get("context")
        if isinstance(context, list) and all(isinstance(c, str) for c in context):
            context = "\n".join(context)
        if context is not None and not isinstance(context, str):
            raise InputError(f"case {cid!r}: \"context\" must be a string, not {_tname(context)}")
        documents = data.get("documents", {})
        if not isinstance(documents, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in documents.items()
        ):
            raise InputError(f"case {cid!r}: \"documents\" must map ids to strings")
        extra = {k: v for k, v in data.items() if k not in KNOWN_KEYS}
        return cls(cid, answer, question, list(outputs), context, dict(documents), extra)

    def to_dict(self) -> dict[str, Any]:
        """The case JSON shape; unknown keys come back as they were read."""
        d: dict[str, Any] = {"id": self.id}
        if self.question is not None:
            d["question"] = self.question
        if self.tool_outputs:
            d["tool_outputs"] = list(self.tool_outputs)
        if self.context is not None:
            d["context"] = self.context
        if self.documents:
            d["documents"] = dict(self.documents)
        d["answer"] = self.answer
        d.update(self.extra)
        return d


# The keys of most cases (what an export reads a million times): no context, documents
# nor anything kept in ``extra``.
_PLAIN_KEYS = frozenset(("id", "question", "tool_outputs", "answer"))


def _plain_case(cls: type[Case], data: dict[str, Any], default_id: str) -> Case | None:
    """What :meth:`Case.from_dict` makes of a dict of :data:`_PLAIN_KEYS` only whose values
    are of exactly the types it keeps as they are (str, a list of str), or None (the general
    reading decides then, and says what is wrong)."""
    answer = data.get("answer")
    cid = data.get("id", default_id)
    question = data.get("question")
    outputs = data.get("tool_outputs")
    if (type(answer) is not str or type(cid) is not str or not cid
            or (question is not None and type(question) is not str)):
        return None
    if outputs is None:
        if "tool_outputs" in data:
            return None  # (null: the general reading's error)
        outputs = []
    elif type(outputs) is not list or not (
            (len(outputs) == 1 and type(outputs[0]) is str)  # (most cases: one tool output)
            or all(type(o) is str for o in outputs)):
        return None
    if cls is not Case:
        return cls(cid, answer, question, list(outputs), None, {}, {})
    case = _new(Case)  # Case(cid, answer, question, list(outputs), None, {}, {}), slot by slot
    case.id = cid
    case.answer = answer
    case.question = question
    case.tool_outputs = list(outputs)
    case.context = None
    case.documents = {}
    case.extra = {}
    case.reading_memo = None
    return case


_new = object.__new__
if tuple(f.name for f in fields(Case)) != (
        "id", "answer", "question", "tool_outputs", "context", "documents", "extra",
        "reading_memo"):  # pragma: no cover
    raise AssertionError("Case's fields changed: update _plain_case")


def _tname(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", int: "a number",
            float: "a number", bool: "a boolean", type(None): "null"}.get(type(value),
                                                                            type(value).__name__)
