"""The ``citeview`` command. With a subcommand it runs that; without one it opens the GUI.

Each subcommand lives in ``citeview/commands/<name>.py`` and exposes ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int``. Modules are imported only when needed, so
CLI subcommands never load Qt.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from citeview import __version__
from citeview.commands.outputs import guarded
from citeview.core.batchgc import collecting_less
from citeview.core.errors import InputError
from citeview.core.files import DEFAULT_MAX_INPUT_BYTES, MAX_INPUT_ENV, input_limit, parse_size

# name -> module; order is the order of `citeview --help`.
COMMANDS: dict[str, str] = {
    "parse": "citeview.commands.parse",
    "strip": "citeview.commands.strip",
    "page": "citeview.commands.page",
    "resolve": "citeview.commands.resolve",
    "lint": "citeview.commands.lint",
    "open": "citeview.commands.open",
    "export": "citeview.commands.export",
    "import": "citeview.commands.import_",
    "screenshot": "citeview.commands.screenshot",
    "report": "citeview.commands.report",
    "agree": "citeview.commands.agree",
    "merge": "citeview.commands.merge",
    "prepare": "citeview.commands.prepare",
    "prompt": "citeview.commands.prompt",
    "convert": "citeview.commands.convert",
    "team": "citeview.commands.team",
}


def build_parser(name: str) -> argparse.ArgumentParser:
    """The parser of ``citeview NAME ...``; only that subcommand's module is imported."""
    return _parsers(name)[0]


def _parsers(name: str) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """``citeview``'s parser with only subcommand ``name``, and that subcommand's parser."""
    parser = argparse.ArgumentParser(prog="citeview")
    parser.add_argument("--version", action="version", version=f"citeview {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    mod = importlib.import_module(COMMANDS[name])
    p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
    mod.add_arguments(p)
    if getattr(mod, "READS_INPUT", True):  # a command that reads no input has no limit
        add_limit_argument(p)
    # Every command's outputs are checked first: an output never replaces an input.
    p.set_defaults(_run=guarded(mod.run, getattr(mod, "WRITES_SESSION", False)))
    return parser, p


def parse_command(argv: Sequence[str]) -> argparse.Namespace:
    """``citeview NAME ...`` parsed; an option the subcommand does not know is told with the
    subcommand's usage (``citeview resolve --jsno``), not the top level's."""
    parser, sub = _parsers(argv[0])
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        sub.error("unrecognized arguments: " + " ".join(unknown))
    return args


def print_help(topic: Sequence[str]) -> int:
    """``citeview help [COMMAND]``: the subcommand's help, or the top level's with every
    subcommand and what it does."""
    if topic:
        if topic[0] not in COMMANDS:
            raise InputError(f"help {topic[0]}: no such command; commands: "
                             + ", ".join(COMMANDS))
        _parsers(topic[0])[1].print_help()
        return 0
    build_gui_parser().print_help()
    print("\ncommands (citeview help COMMAND, or citeview COMMAND --help):")
    for name, module in COMMANDS.items():
        print(f"  {name:<11} {importlib.import_module(module).HELP}")
    return 0


def _size(value: str) -> int:
    try:
        return parse_size(value, "--max-input-size")
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("--max-input-size: ")) from None


def add_limit_argument(parser: argparse.ArgumentParser) -> None:
    """--max-input-size: every command reads inputs within this limit."""
    parser.add_argument("--max-input-size", type=_size, default=None, metavar="SIZE",
                        help="refuse an input larger than this (e.g. 2G; default "
                        f"{DEFAULT_MAX_INPUT_BYTES >> 20}M, or the {MAX_INPUT_ENV} "
                        "environment variable)")


def build_gui_parser() -> argparse.ArgumentParser:
    commands = ", ".join(COMMANDS)  # names only: the GUI start imports no subcommand
    parser = argparse.ArgumentParser(
        prog="citeview",
        description="Inspect answers with inline citation markers. Without a subcommand, "
        f"open the GUI. Subcommands: {commands} (citeview help [COMMAND]).",
    )
    parser.add_argument("--version", action="version", version=f"citeview {__version__}")
    parser.add_argument("file", nargs="?", help="a case, dataset, transcript or session to open")
    parser.add_argument("--demo", action="store_true", help="open the bundled demo dataset")
    parser.add_argument("--case", help="open this case id")
    parser.add_argument("--no-advance", action="store_true",
                        help="stay on a citation after a verdict (default: move on to the "
                             "next unjudged one; also in the Review menu)")
    add_limit_argument(parser)
    return parser


def open_file(path: str, case_id: str | None, advance: bool = True) -> int:
    """``citeview FILE [--case ID] [--no-advance]``: what ``citeview open`` does with FILE."""
    case = ["--case", case_id] if case_id is not None else []
    stay = [] if advance else ["--no-advance"]
    args = build_parser("open").parse_args(["open", *case, *stay, "--", path])
    return int(args._run(args))


def check_demo_case(case_id: str) -> None:
    """An :class:`InputError` (the line ``citeview FILE --case ID`` gives) unless the demo
    dataset has case ``case_id``."""
    from citeview.commands.open import check_case
    from citeview.resource_files import resource_path

    check_case(str(resource_path("demo", "demo.jsonl")), case_id)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in COMMANDS:
            args = parse_command(args_list)
            with input_limit(getattr(args, "max_input_size", None)), collecting_less():
                return int(args._run(args))
        if args_list and args_list[0] == "help" and not os.path.exists("help"):
            return print_help(args_list[1:])
        gui_args = build_gui_parser().parse_args(args_list)
        with input_limit(gui_args.max_input_size):
            if gui_args.demo and gui_args.case is not None:
                # As for a file: an unknown case is one line before any window opens.
                check_demo_case(gui_args.case)
            if gui_args.file and not gui_args.demo:
                # Exactly `citeview open FILE`: the input is read and checked before the
                # window opens, so a missing, binary or unreadable file is a one-line error
                # (a big JSONL file: its first record, see open.shown_by_first_record).
                return open_file(gui_args.file, gui_args.case, not gui_args.no_advance)
            from citeview.gui.launch import run_gui

            return run_gui(gui_args)
    except InputError as err:
        print(f"citeview: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (citeview parse x | head); not an error worth a traceback.
        # Point stdout at devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
