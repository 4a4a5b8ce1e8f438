"""A case read from its JSON shape: the usual case dict and any other shape read the same."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.core.errors import InputError

_VALUE = (st.none() | st.text(max_size=5) | st.integers(-2, 2) | st.booleans()
          | st.lists(st.text(max_size=3) | st.integers(0, 2), max_size=2))
_KEYS = st.sampled_from(["id", "question", "tool_outputs", "answer", "context", "x"])


def _read(data: object, default_id: str) -> Case | str:
    try:
        return Case.from_dict(data, default_id)
    except InputError as err:
        return f"InputError: {err}"


@given(st.dictionaries(_KEYS, _VALUE | st.text(min_size=1, max_size=5), max_size=5)
       | st.fixed_dictionaries({"id": st.text(max_size=3), "answer": st.text(max_size=5)},
                               optional={"question": st.none() | st.text(max_size=3),
                                         "tool_outputs": st.lists(st.text(max_size=3))}),
       st.sampled_from(["case", ""]))
def test_a_plain_case_dict_reads_as_any_mapping_of_it_does(data: dict[str, Any],
                                                           default_id: str) -> None:
    """Case.from_dict of a dict (read without the general checks when it holds only the usual
    keys, of exactly the usual types) gives the case, or the error, that the same content
    as another mapping gives."""
    assert _read(data, default_id) == _read(MappingProxyType(data), default_id)


class _MyCase(Case):
    __slots__ = ()


@given(st.fixed_dictionaries({"id": st.text(min_size=1, max_size=3), "answer": st.text(max_size=5)},
                             optional={"question": st.none() | st.text(max_size=3),
                                       "tool_outputs": st.lists(st.text(max_size=3), max_size=3)
                                       | st.lists(st.text(max_size=3) | st.integers(0, 2),
                                                  min_size=1, max_size=2)}))
def test_a_plain_case_is_a_whole_case_of_its_class(data: dict[str, Any]) -> None:
    """The usual case dict read quickly is a case like any other: every field set (as the
    general reading sets it), its own lists, of the class asked for."""
    for cls in (Case, _MyCase):
        got = _read_as(cls, data)
        want = _read_as(cls, MappingProxyType(data))
        assert got == want and type(got) is type(want)
        if isinstance(got, Case):
            assert type(got) is cls and got.reading_memo is None
            assert (got.context, got.documents, got.extra) == (None, {}, {})
            assert got.tool_outputs is not data.get("tool_outputs")


def _read_as(cls: type[Case], data: object) -> Case | str:
    try:
        return cls.from_dict(data)
    except InputError as err:
        return f"InputError: {err}"
