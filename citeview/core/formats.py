"""The input names under their old home, for library users: ``from citeview.core.formats import
load_input`` keeps working. Nothing in citeview imports this module; the names live in

- :mod:`citeview.core.inputs`: :func:`load_input`, the loader registry, plain files;
- :mod:`citeview.core.datasets`: :class:`Dataset`, :class:`ListDataset`, :class:`JsonlDataset`;
- :mod:`citeview.core.transcripts`: records (case, Chat Completions, Responses) as cases;
- :mod:`citeview.core.files`: reading and decoding a file, the size limit.
"""

from __future__ import annotations

from citeview.core.datasets import (
    Dataset,
    JsonlDataset,
    ListDataset,
    case_id_from_path,
    document_dataset,
)
from citeview.core.files import MAX_DOCUMENT_BYTES, decode_text, read_file_bytes
from citeview.core.inputs import (
    DEFAULT_LOADERS,
    SESSION_SUFFIX,
    SQLITE_MAGIC,
    InputLoader,
    InputLoaders,
    load_input,
    parse_document_option,
    plain_files,
    plain_files_case,
    register_loader,
)
from citeview.core.transcripts import chat_case, detect_kind, record_to_case, responses_case

__all__ = [
    "DEFAULT_LOADERS", "MAX_DOCUMENT_BYTES", "SESSION_SUFFIX", "SQLITE_MAGIC", "Dataset",
    "InputLoader", "InputLoaders", "JsonlDataset", "ListDataset", "case_id_from_path",
    "chat_case", "decode_text", "detect_kind", "document_dataset", "load_input",
    "parse_document_option", "plain_files", "plain_files_case", "read_file_bytes",
    "record_to_case", "register_loader", "responses_case",
]
