"""Fingerprints of the code a step's output is made from (README "Reliability": state is
computed, never assumed).

A report is made from its ``.qmd`` files and from every mqcap module those files import,
directly or through other mqcap modules (``mqcap.sections``, ``mqcap.render`` and what they
import), the package data beside those modules (the stylesheet, the HTML and Typst templates)
and the libraries that draw and convert it. A build is made from the dbt project's files and
from the mqcap modules its Python models import (``mqcap.noise``). The module set is read from
the import statements themselves (the import graph), never from a hand-kept list, so a module
a report starts to use is covered the day it is imported.

Example:
    imports_of_text("from mqcap.sections import charts as ch")  # {"mqcap.sections", "mqcap.sections.charts"}
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from functools import cache
from importlib import metadata
from pathlib import Path

import mqcap

# `import mqcap.x.y`, `from mqcap.x import a, b as c` (a may be a module or a name), and the
# relative forms `from .x import a` / `from . import a` inside the package.
_IMPORT = re.compile(
    r"^\s*(?:from\s+(?P<from>[.\w]+)\s+import\s+(?P<names>\(?[^#\n]+)|import\s+(?P<mods>[^#\n]+))",
    re.MULTILINE,
)
# Package data that ships beside modules and shapes their output.
_DATA_SUFFIXES = (".css", ".html", ".typ", ".js", ".json", ".yml", ".yaml", ".txt")


def package_root() -> Path:
    """The folder of the installed mqcap package."""
    return Path(mqcap.__file__).parent


def _module_file(name: str, root: Path) -> Path | None:
    parts = name.split(".")[1:]  # below "mqcap"
    base = root.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _absolute(name: str, package: str) -> str:
    # `.x` inside mqcap.sections -> mqcap.sections.x; `..x` -> mqcap.x
    dots = len(name) - len(name.lstrip("."))
    if not dots:
        return name
    base = package.split(".")[: len(package.split(".")) - dots + 1]
    rest = name[dots:]
    return ".".join([*base, rest] if rest else base)


def imports_of_text(text: str, package: str = "mqcap") -> set[str]:
    """The mqcap modules (and packages) a source text imports, as dotted names; a name after
    ``from mqcap.x import`` counts as a module too (it may be one), unknown ones are dropped
    when files are looked up.

    Example:
        >>> sorted(imports_of_text("from mqcap.sections import charts as ch, text"))
        ['mqcap.sections', 'mqcap.sections.charts', 'mqcap.sections.text']
    """
    out: set[str] = set()
    for m in _IMPORT.finditer(text):
        if m.group("mods"):
            for item in m.group("mods").split(","):
                name = item.strip().split(" as ")[0].strip()
                if name.startswith("mqcap"):
                    out.add(name)
            continue
        source = _absolute(m.group("from"), package)
        if not source.startswith("mqcap"):
            continue
        out.add(source)
        for item in m.group("names").strip("()").split(","):
            name = item.strip().split(" as ")[0].strip()
            if name and name != "*" and name.isidentifier():
                out.add(f"{source}.{name}")
    return out


def module_closure(
    roots: Iterable[str],
    root: Path | None = None,
    imports: Callable[[Path, str], set[str]] | None = None,
) -> list[Path]:
    """Every file of the mqcap modules ``roots`` import, transitively (the roots included),
    with each package's ``__init__`` on the way; sorted. ``imports(path, package)``: the
    imports of one file (default: read now).

    Example:
        [p.name for p in module_closure(["mqcap.noise"])]
    """
    root = root or package_root()
    imports = imports or (lambda path, package: imports_of_text(path.read_text("utf-8"), package))
    seen: dict[str, Path] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or not name.startswith("mqcap"):
            continue
        path = _module_file(name, root)
        if path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # parent packages
        package = name if path.name == "__init__.py" else ".".join(parts[:-1])
        todo += imports(path, package)
    return sorted(set(seen.values()))


def _data_files(modules: list[Path]) -> list[Path]:
    # The non-Python files in the folders of the modules reached (a template a module reads).
    folders = sorted({p.parent for p in modules})
    return sorted(
        f for d in folders for f in d.iterdir() if f.is_file() and f.suffix in _DATA_SUFFIXES
    )


def _versions(distributions: Iterable[str]) -> list[str]:
    out = []
    for dist in distributions:
        try:
            out.append(f"{dist}=={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            out.append(f"{dist}==absent")
    return out


def code_fingerprint(
    sources: Iterable[str], distributions: Iterable[str] = (), root: Path | None = None
) -> str:
    """sha256 (32 hex digits) over the mqcap modules the ``sources`` texts import
    (transitively), the package data beside them, and the versions of ``distributions``.

    Example:
        code_fingerprint(["from mqcap.noise import summarise"], ["duckdb"])
    """
    root = root or package_root()
    roots: set[str] = set()
    for text in sources:
        roots |= imports_of_text(text)
    modules = module_closure(roots, root)
    h = hashlib.sha256()
    for path in [*modules, *_data_files(modules)]:
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    for v in _versions(distributions):
        h.update(v.encode() + b"\0")
    return h.hexdigest()[:32]


# What else shapes the rows a parser lands: the library of its compiled port (when it imports
# the module that loads it) and the dataframe library its Python parse uses.
_NATIVE_MODULE = ("parsers", "_native.py")
PARSER_LIBRARIES = ("polars",)
# mqcap's plumbing the parsers import (the package, settings' defaults, the environment
# variables' registry, the error classes): a change there does not change what a file's rows
# are, and would read every file of every warehouse again. Everything else a parser reaches is
# in its print.
PARSER_PLUMBING = ("__init__.py", "settings.py", "environment.py", "errors.py")


@cache
def parser_print(module: str) -> str:
    """``<module>@<32 hex>``: what turns a raw file into landing rows, fingerprinted: the parser's
    module and every mqcap module it imports (transitively) but the plumbing
    (``PARSER_PLUMBING``), the package data beside them, the compiled parsers' library when the
    module can use it, and polars' version. The ledger keeps
    it per file; a file whose print is no longer its parser's print is read again (README
    "Reliability"). A module that is gone prints as nothing: never current.

    Computed from the files (no parser is imported), once per process.

    Example:
        parser_print("mqcap.parsers.chstatus")  # 'mqcap.parsers.chstatus@5c0e…'
    """
    root = package_root()
    modules = (
        module_closure([module], root, lambda path, package: _source(path, package)[1])
        if module.startswith("mqcap.parsers")
        else []
    )
    modules = [m for m in modules if m.relative_to(root).as_posix() not in PARSER_PLUMBING]
    h = hashlib.sha256()
    for path in modules:
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(_source(path, "")[0])
    for path in _data_files(modules):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    if root.joinpath(*_NATIVE_MODULE) in modules:
        from mqcap.parsers import _native

        lib = _native.lib_path()
        h.update(b"native\0" + (_source_bytes(lib) if lib.is_file() else b"absent"))
    if modules:
        for v in _versions(PARSER_LIBRARIES):
            h.update(v.encode() + b"\0")
    return f"{module}@{h.hexdigest()[:32]}"


@cache
def _source_bytes(path: Path) -> bytes:
    return path.read_bytes()


@cache
def _source(path: Path, package: str) -> tuple[bytes, set[str]]:
    """A module's bytes and (for ``package``) its imports, read once per process for the
    parser prints (the parsers' modules share most of theirs)."""
    data = _source_bytes(path)
    return data, (imports_of_text(data.decode("utf-8"), package) if package else set())


def print_is_current(stored: str | None) -> bool:
    """Whether a file's stored parser print (:func:`parser_print`) is its parser's print now;
    False for none (a file landed before mqcap kept prints)."""
    if not stored:
        return False
    return parser_print(stored.partition("@")[0]) == stored


def texts(folder: Path, patterns: tuple[str, ...]) -> list[str]:
    """The texts of the files matching ``patterns`` under ``folder`` (sorted by path)."""
    return [
        p.read_text(encoding="utf-8", errors="replace")
        for pattern in patterns
        for p in sorted(folder.glob(pattern))
        if p.is_file()
    ]
