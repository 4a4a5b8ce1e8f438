"""citeview screenshot: render the inspection window offscreen to an image (bug reports, docs,
tests), optionally after activating a citation, and report what the widgets show.

The image format is the one the suffix of ``--out`` names (any format Qt can write: ``.png``,
``.jpg``, ``.bmp``, ...); the file is written all or nothing."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from citeview.commands._atomic import write_atomically
from citeview.commands._inputs import load_path
from citeview.core.errors import InputError

HELP = "render the window offscreen to an image, optionally after clicking citation N"


def _size(value: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d{2,5})\s*[xX]\s*(\d{2,5})\s*", value)
    if not m:
        raise argparse.ArgumentTypeError(f"size must look like 1400x860, not {value!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (200 <= w <= 8000 and 150 <= h <= 8000):
        raise argparse.ArgumentTypeError("size must be between 200x150 and 8000x8000")
    return w, h


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", help="case, dataset, transcript or session")
    parser.add_argument("--demo", action="store_true", help="use the bundled demo dataset")
    parser.add_argument("--case", help="case id (default: the first case)")
    parser.add_argument("--click", type=int, metavar="N",
                        help="activate citation N (1-based, reading order) first")
    parser.add_argument("--raw", action="store_true", help="show the raw answer view")
    parser.add_argument("--size", type=_size, default=(1400, 860), metavar="WxH",
                        help="window size (default 1400x860)")
    parser.add_argument("--out", required=True,
                        help="image file to write; its suffix names the format (.png, .jpg, "
                        ".bmp, ...)")
    parser.add_argument("--json", action="store_true",
                        help="print the view state read back from the widgets as JSON")


def run(args: argparse.Namespace) -> int:
    if args.demo == bool(args.input):
        raise InputError("give an INPUT file or --demo (one of them)")
    if args.click is not None and args.click < 1:
        raise InputError("--click counts citations from 1")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if os.path.isdir(args.out):
        raise InputError(f"{args.out}: is a directory")
    if not os.path.isdir(out_dir):
        raise InputError(f"{args.out}: directory {out_dir} does not exist")

    from citeview.gui.launch import demo_path, image_formats, snapshot

    dataset = load_path(str(demo_path()) if args.demo else args.input)  # notes told there
    case_index = 0
    if args.case is not None:
        try:
            case_index = dataset.index_of(args.case)
        except KeyError:
            raise InputError(f"no case with id {args.case!r}") from None
    if len(dataset) == 0:
        raise InputError("the input holds no case")
    suffix = os.path.splitext(args.out)[1][1:].lower()
    writable = image_formats()
    if suffix not in writable:
        named = f"an unknown image type .{suffix}" if suffix else "no suffix"
        raise InputError(f"{args.out}: {named}; name the format by the suffix: "
                         + ", ".join(f".{f}" for f in writable))
    state, image = snapshot(dataset, path=None if args.demo else args.input,
                            case_index=case_index, click=args.click, raw=args.raw,
                            size=args.size, fmt=suffix)
    write_atomically(args.out, image)  # no partial file on a full disk
    if args.json:
        state["out"] = args.out
        json.dump(state, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    return 0
