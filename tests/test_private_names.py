"""No module uses another module's private names: what two modules share is public.

An AST scan of the package finds

- ``from X import _name`` where X is another module (any package: a third-party private name is
  an internal too);
- imports of a private module (``pkg._mod``) from outside its parent package (``pkg``);
- ``module._name`` and ``ImportedThing._name``: an attribute of an imported module or object;
- ``obj._name`` where ``obj`` is not ``self``/``cls`` and this module defines no ``_name``: it
  reaches into an object another module made.

Dunder names (``__version__``) are public.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import citeview

PACKAGE = Path(citeview.__file__).parent

# (module, private name) uses that are allowed for now.
ALLOWED: set[tuple[str, str]] = set()


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def absolute(module: str | None, level: int, importer: str, is_package: bool) -> str:
    if not level:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - level + 1]
    return ".".join([*base, module] if module else base)


def defined_names(tree: ast.AST) -> set[str]:
    """Every name this module defines: functions, classes, assigned names and attributes,
    keyword arguments (argparse ``set_defaults(_run=...)``) and ``__slots__`` entries."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # __slots__ entries, getattr(self, "_x") / setattr names
    return names


def violations(name: str, source: str, is_package: bool = False,
               ) -> Iterator[tuple[str, str, int, str]]:
    """(module, private name, line, what) for each use of another module's private name in
    ``source``, the code of the module ``name``."""
    tree = ast.parse(source, name)
    imported: dict[str, str] = {}  # local name -> what it is bound to ("pkg.mod" or "pkg.mod.X")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _private_module(name, alias.name, node.lineno)
                local = alias.asname or alias.name.split(".")[0]
                imported[local] = alias.name if alias.asname else local
        elif isinstance(node, ast.ImportFrom):
            source = absolute(node.module, node.level, name, is_package)
            for alias in node.names:
                full = f"{source}.{alias.name}"
                yield from _private_module(name, source, node.lineno)
                if (is_private(alias.name) and source != name
                        and not _may_import_private_module(name, full)):
                    yield name, alias.name, node.lineno, f"from {source} import {alias.name}"
                imported[alias.asname or alias.name] = full
    own = defined_names(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
            continue
        base = node.value
        if isinstance(base, ast.Name) and base.id in ("self", "cls"):
            continue
        if isinstance(base, ast.Name) and base.id in imported:
            yield name, node.attr, node.lineno, f"{imported[base.id]}.{node.attr}"
        elif node.attr not in own:
            yield name, node.attr, node.lineno, f"{ast.unparse(node)} (not defined here)"


def _may_import_private_module(importer: str, private: str) -> bool:
    """A private module (``pkg._mod``) belongs to ``pkg``: importable from inside ``pkg``."""
    parent = private.rsplit(".", 1)[0]
    return importer == parent or importer.startswith(parent + ".")


def _private_module(importer: str, module: str, lineno: int) -> Iterator[tuple[str, str, int,
                                                                                str]]:
    parts = module.split(".")
    for i, part in enumerate(parts):
        if is_private(part):
            private = ".".join(parts[: i + 1])
            if not _may_import_private_module(importer, private):
                yield importer, part, lineno, f"import of private module {private}"
            return


def scan() -> list[tuple[str, str, int, str]]:
    return [v for path in sorted(PACKAGE.rglob("*.py"))
            for v in violations(module_name(path), path.read_text(encoding="utf-8"),
                                path.name == "__init__.py")]


def test_no_module_uses_another_modules_private_names() -> None:
    found = [v for v in scan() if (v[0], v[1]) not in ALLOWED]
    assert not found, "private names used across modules (make them public or move them):\n" + \
        "\n".join(f"  {m}:{line}: {what}" for m, _, line, what in found)


def test_the_allowlist_has_no_stale_entries() -> None:
    used = {(v[0], v[1]) for v in scan()}
    assert used >= ALLOWED, f"no longer needed, remove from ALLOWED: {sorted(ALLOWED - used)}"


def test_the_scan_finds_each_kind_of_reach() -> None:
    code = (
        "from citeview.session.store import _dumps\n"
        "from citeview.core import material\n"
        "from citeview.session.store import Session\n"
        "import citeview.commands._io\n"
        "from . import _private_sibling\n"
        "x = material._LABEL_RE\n"
        "y = Session._build\n"
        "def f(win):\n"
        "    win.review._reload_from_session()\n"
        "    win._mine = 1\n"
        "    return win._mine, win.__class__\n"
    )
    found = {what for *_, what in violations("citeview.gui.probe", code)}
    assert found == {
        "from citeview.session.store import _dumps",
        "import of private module citeview.commands._io",
        "citeview.core.material._LABEL_RE",
        "citeview.session.store.Session._build",
        "win.review._reload_from_session (not defined here)",
    }
