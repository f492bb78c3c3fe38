"""The package's layering: what ingest loads, what the generator and tests alone use."""

from __future__ import annotations

import re
import subprocess
import sys

import yaml

from mqcap.parsers import all_parsers

from helpers import PROJECT
from reliability_summary import FORMATS, kind_of


def test_ingest_imports_no_encoder():
    # Parsers only parse: loading every parser (what ingest does) must not load mqcap.synth.
    code = (
        "import sys; from mqcap.parsers import all_parsers; from mqcap import ingest; "
        "all_parsers(); print(sorted(m for m in sys.modules if m.startswith('mqcap.synth')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_generator_writes_smf_with_the_synth_encoder():
    code = "import sys; import mqcap.generate.registry; print('mqcap.synth.smf_mq' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


# Formats that land rows no mart reads yet, with the reason. The test below fails when one of
# them starts feeding a mart (remove it here) or when another format feeds none.
NO_MART_YET: dict[str, str] = {}
_REF = re.compile(r"ref\(\s*'([^']+)'\s*\)")
_SOURCE = re.compile(r"source\(\s*'[^']+'\s*,\s*'([^']+)'\s*\)")


def _models_reached_from(landing_table: str) -> set[str]:
    """dbt models downstream of ``landing.<table>``, from the refs and sources in models/."""
    readers: dict[str, set[str]] = {}  # node -> models that read it
    for sql in (PROJECT / "models").rglob("*.sql"):
        text = sql.read_text()
        for dep in _REF.findall(text):
            readers.setdefault(dep, set()).add(sql.stem)
        for table in _SOURCE.findall(text):
            readers.setdefault(f"source:{table}", set()).add(sql.stem)
    return _reached(readers, f"source:{landing_table}")


def _reached(edges: dict[str, set[str]], start: str) -> set[str]:
    """Every node reached from ``start`` along ``edges`` (start itself only through a cycle)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for node in edges.get(todo.pop(), ()):
            if node not in seen:
                seen.add(node)
                todo.append(node)
    return seen


def test_every_format_feeds_a_mart_or_says_why_not():
    marts = {
        p.stem for p in (PROJECT / "models" / "marts").iterdir() if p.suffix in (".sql", ".py")
    }
    feeding = {
        p.kind: {m for t in p.tables for m in _models_reached_from(t.name)} & marts
        for p in all_parsers()
    }
    assert sorted(k for k, m in feeding.items() if not m) == sorted(NO_MART_YET)


def test_every_format_is_in_the_fault_injection_suite():
    assert {p.kind for p in all_parsers()} <= {kind_of(f) for f in FORMATS}


def _refs() -> dict[str, set[str]]:
    readers: dict[str, set[str]] = {}
    for sql in (PROJECT / "models").rglob("*.sql"):
        for dep in _REF.findall(sql.read_text()):
            readers.setdefault(dep, set()).add(sql.stem)
    return readers


def test_every_staging_and_intermediate_model_has_a_reader():
    readers = _refs()
    unread = [
        p.stem
        for layer in ("staging", "intermediate")
        for p in (PROJECT / "models" / layer).rglob("*.sql")
        if not readers.get(p.stem)
    ]
    assert unread == [], "read it from a model, or remove it (README: Adding a new input format)"


def _model_entries() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path in (PROJECT / "models").rglob("*.yml"):
        for model in (yaml.safe_load(path.read_text()) or {}).get("models", []):
            assert model["name"] not in out, f"{model['name']} described twice"
            out[model["name"]] = {**model, "path": path}
    return out


def _tests(column: dict) -> list:
    return [t if isinstance(t, str) else next(iter(t)) for t in column.get("data_tests", [])]


def test_every_model_states_its_grain_and_tests_its_key():
    entries = _model_entries()
    models = {p.stem for p in (PROJECT / "models").rglob("*") if p.suffix in (".sql", ".py")}
    assert sorted(models - set(entries)) == []  # every model has a YAML entry
    no_grain = sorted(m for m in models if "Grain:" not in entries[m].get("description", ""))
    no_key = sorted(
        m
        for m in models
        # primary_key (macros/primary_key.sql): unique and not null in one query
        if not any("primary_key" in _tests(c) for c in entries[m].get("columns", []))
    )
    assert (no_grain, no_key) == ([], [])


def test_every_data_test_is_a_key_test_that_builds_run_in_the_models_node():
    """A model's row rules are arguments of its ``primary_key`` test (``required`` columns,
    ``references``, ``referenced_by``, ``accepted`` values), and mqcap's builds leave dbt's test
    nodes out and run that test's query in the model's own node (macros/row_checks.sql): a
    test of another kind (`not_null`, `relationships`...), or a singular test in data-tests/,
    would be declared and never run by ``mqcap run``."""
    other = sorted(
        f"{f.relative_to(PROJECT)}: {entry['name']}.{c.get('name', '')} {test}"
        for folder in ("models", "seeds")
        for f in (PROJECT / folder).rglob("*.yml")
        for kind in ("models", "seeds")
        for entry in (yaml.safe_load(f.read_text()) or {}).get(kind, [])
        for c in [*entry.get("columns", []), entry]
        for test in _tests(c)
        if test != "primary_key"
    )
    singular = sorted(str(p.relative_to(PROJECT)) for p in (PROJECT / "data-tests").rglob("*.sql"))
    assert (other, singular) == ([], [])


_ANY_REF = re.compile(r"""ref\(\s*['"]([^'"]+)['"]\s*\)""")


def test_a_model_checked_against_another_is_built_after_it():
    """A ``references`` check reads the model it points to from inside the checked model's node
    (macros/row_checks.sql), so that model must be an ancestor: built, in any build that
    selects both, before the check runs."""
    parents: dict[str, set[str]] = {}
    for f in (PROJECT / "models").rglob("*"):
        if f.suffix in (".sql", ".py"):
            parents[f.stem] = set(_ANY_REF.findall(f.read_text()))

    checked = []
    for name, entry in _model_entries().items():
        for c in entry.get("columns", []):
            for t in c.get("data_tests", []):
                if isinstance(t, dict) and "primary_key" in t:
                    arguments = (t["primary_key"] or {}).get("arguments", {})
                    for r in arguments.get("references", []):
                        checked.append((name, _ANY_REF.findall(r["to"])[0]))
                    for r in arguments.get("referenced_by", []):
                        checked.append((name, _ANY_REF.findall(r["model"])[0]))
    assert len(checked) >= 10 and ("dim_study", "dim_configuration") in checked
    # A model's checks may read the model itself (dim_run's baseline runs are runs).
    assert [(m, to) for m, to in checked if to != m and to not in _reached(parents, m)] == []


def test_one_models_yaml_per_staging_folder():
    for folder in (PROJECT / "models" / "staging").iterdir():
        yamls = sorted(p.name for p in folder.glob("*__models.yml"))
        assert yamls == [f"_{folder.name}__models.yml"], folder.name


# Models that match rows to runs by time without the attribute_to_runs macro (their own join).
TIME_ATTRIBUTING = {"int_cpu_attributed"}


def test_every_staging_model_that_time_attribution_reads_declares_its_time_span():
    """An incremental build recomputes the runs a changed file's rows overlap only for the
    staging models whose time span it knows (mqcap.ledger.scope.timed_views, from the models' YAML):
    a staging model upstream of a time attribution with neither a span nor a reason would
    leave those runs stale (the list used to be kept by hand in Python)."""
    from mqcap.ledger.scope import TIME_SPAN_META, timed_views

    parents: dict[str, set[str]] = {}
    attributing = set(TIME_ATTRIBUTING)
    for sql in (PROJECT / "models").rglob("*.sql"):
        text = sql.read_text()
        parents[sql.stem] = set(_REF.findall(text))
        if "attribute_to_runs(" in text:
            attributing.add(sql.stem)
    assert len(attributing) >= 8  # the seven attribute_to_runs models and int_cpu_attributed
    upstream = {m for a in attributing for m in _reached(parents, a)}
    staging = sorted(m for m in upstream if m.startswith("stg_"))
    entries = _model_entries()
    spans = {
        m: ((entries[m].get("config") or {}).get("meta") or {}).get(TIME_SPAN_META) for m in staging
    }
    assert [m for m, span in spans.items() if not span] == []
    for m, span in spans.items():
        assert set(span) in ({"clock", "start", "end"}, {"untimed"}), (m, span)
        assert span.get("clock", "local") in ("local", "utc"), (m, span)
    timed = timed_views(PROJECT)
    assert set(timed) == {m for m, span in spans.items() if "clock" in span}
    assert timed["stg_netstat__connections"] == ("local", "poll_ts", "poll_ts")
    assert len(timed) >= 12  # today's 12; a new time-attributed format adds its own


def test_the_meta_tables_are_read_and_written_only_by_the_state_package():
    """SQL on a ``meta`` table is in mqcap/ledger/ only (the state package: the ledger, the
    steps, the build scope); the rest of mqcap calls its functions."""
    package = PROJECT / "pipelines" / "mqcap"
    meta_sql = re.compile(
        r"\b(from|join|into|update|table)\s+(meta\.|\{(META|warehouse\.META|LEDGER|STEPS|SCOPE|"
        r"SPANS|RUNS|FILE_RUNS|VERSION|EVENTS|VALIDATION)\})|warehouse\.META",
        re.IGNORECASE,
    )
    found = [
        f"{path.relative_to(package)}:{n}"
        for path in sorted(package.rglob("*.py"))
        if path.parent.name != "ledger"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if meta_sql.search(line)
    ]
    assert found == []
    # The check finds what it looks for: the state package's own SQL.
    ledger = (package / "ledger" / "files.py").read_text()
    assert len([line for line in ledger.splitlines() if meta_sql.search(line)]) >= 10


def test_the_meta_tables_are_made_and_changed_only_by_the_state_schema():
    """Every ``create``/``alter``/``drop`` of a ``meta`` table is in mqcap/ledger/schema.py
    (numbered migrations); the warehouse module imports nothing of the pipeline above it."""
    package = PROJECT / "pipelines" / "mqcap"
    ddl = re.compile(
        r"\b(create|alter|drop)\s+(or\s+replace\s+)?(table|sequence|view)\s+(if\s+(not\s+)?exists\s+)?"
        r"(\{(META|warehouse\.META|LEDGER|STEPS|SCOPE|SPANS|RUNS|FILE_RUNS|VERSION)\}|meta\.)",
        re.IGNORECASE,
    )
    found = [
        f"{path.relative_to(package)}:{n}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "schema.py" or path.parent.name != "ledger"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if ddl.search(line)
    ]
    assert found == []
    # The check finds what it looks for.
    schema = (package / "ledger" / "schema.py").read_text()
    assert len([line for line in schema.splitlines() if ddl.search(line)]) >= 8
    code = (package / "warehouse.py").read_text()
    imported = set(re.findall(r"^\s*(?:from|import) (mqcap[\w.]*)", code, re.MULTILINE))
    assert imported <= {"mqcap", "mqcap.errors", "mqcap.parsers", "mqcap.parsers.base"}, imported


# Functions over 80 lines (issue 34: "no function over about 80 lines without a reason"): a
# long function says why in its own docstring, on a line starting "Long because:" (the reason
# may run on over the next lines of its paragraph). A long function without one fails the test:
# split it, or give it its reason.
LONG_LIMIT = 80
# Split so far: build.build (110 lines), validate._run_suite (82), compare._compare_frame (98),
# duplicates.copies_in_files (113); then history.write_history_study (100),
# scenario._plan (106), amqsrua._elements (140), rmf_crypto.parse (82) and
# typst_tables.table_call (87); then tables.sweep_pivot_tables (91).
SPLIT = {
    "build.py:build",
    "validate.py:_run_suite",
    "compare.py:_compare_frame",
    "duplicates.py:copies_in_files",
    "generate/history.py:write_history_study",
    "generate/scenario.py:_plan",
    "parsers/amqsrua.py:_elements",
    "parsers/rmf_crypto.py:parse",
    "render/typst_tables.py:table_call",
    "sections/tables.py:sweep_pivot_tables",
}
# The ratchet: 17 long functions before the six splits above, 11 after; never more again.
MAX_LONG_FUNCTIONS = 11


def _long_functions(source: str, where: str) -> dict[str, str]:
    """``"<where>:<function>"`` -> its reason (the "Long because:" paragraph of its docstring,
    "" without one) for every function of ``source`` over LONG_LIMIT lines."""
    import ast

    long = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if node.end_lineno - node.lineno + 1 <= LONG_LIMIT:
            continue
        reason: list[str] = []
        for line in (ast.get_docstring(node) or "").splitlines():
            line = line.strip()
            if reason and not line:
                break
            if reason or line.startswith("Long because:"):
                reason.append(line)
        long[f"{where}:{node.name}"] = " ".join(reason).removeprefix("Long because:").strip()
    return long


def _unexplained(long: dict[str, str]) -> list[str]:
    """The long functions that give no reason."""
    return sorted(name for name, reason in long.items() if not reason)


def test_no_function_is_longer_than_80_lines_without_a_reason():
    package = PROJECT / "pipelines" / "mqcap"
    long: dict[str, str] = {}
    for path in sorted(package.rglob("*.py")):
        long.update(_long_functions(path.read_text(), str(path.relative_to(package))))
    assert _unexplained(long) == []
    assert not SPLIT & set(long)
    assert len(long) <= MAX_LONG_FUNCTIONS, sorted(long)


def test_the_long_function_rule_fails_a_long_function_without_its_reason():
    body = "".join(f"    x = {i}\n" for i in range(LONG_LIMIT))
    source = (
        "def short():\n    return 1\n\n\n"
        f'def long():\n    """Does a lot.\n\n    It is long because it is."""\n{body}\n\n'
        "def explained():\n"
        '    """Does a lot.\n\n    Long because: IBM\'s field list,\n    in record order.\n\n'
        f'    Example:\n        explained()\n    """\n{body}'
    )
    long = _long_functions(source, "made_up.py")
    assert long == {
        "made_up.py:long": "",
        "made_up.py:explained": "IBM's field list, in record order.",
    }
    assert _unexplained(long) == ["made_up.py:long"]


def _imports_of(path, modules: set[str]) -> set[str]:
    """The mqcap modules a module imports, at its top or inside its functions."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.add(name if name in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found & modules


def test_no_import_cycle_among_mqcap_modules():
    """No module reaches itself through its imports, counting the imports inside functions
    (a deferred import hides a cycle, it does not remove it)."""
    package = PROJECT / "pipelines"
    paths = {}
    for path in (package / "mqcap").rglob("*.py"):
        name = ".".join(path.relative_to(package).with_suffix("").parts)
        paths[name.removesuffix(".__init__")] = path
    graph = {name: _imports_of(path, set(paths)) for name, path in paths.items()}
    cycles = []
    for start in sorted(graph):
        # a path from one of start's imports back to start
        seen, stack = set(), [(m, [start, m]) for m in sorted(graph[start])]
        while stack:
            node, trail = stack.pop()
            if node == start:
                cycles.append(" -> ".join(trail))
                break
            if node in seen:
                continue
            seen.add(node)
            stack.extend((m, [*trail, m]) for m in sorted(graph[node]))
    assert cycles == []
    # The walk sees the imports it looks for.
    assert "mqcap.warehouse" in graph["mqcap.ledger.schema"]
    assert "mqcap.generate.sweep" in graph["mqcap.generate.scenario"]  # inside a function


# mqcap's layers, lowest first: a module imports its own layer and those below, never above
# (docs/developer.md "Layout"). A new top-level module or package gets its layer here.
LAYERS = (
    (
        "settings and the small helpers",
        {
            "mqcap",
            "errors",
            "environment",
            "names",
            "faults",
            "interrupt",
            "progress",
            "untraced",
            "gx_memo",
            "settings",
            "measures",
            "series",
            "arrowcols",
        },
    ),
    (
        "parsers and the store",
        {
            "parsers",
            "synth",
            "warehouse",
            "parse_cache",
            "lifeline",
            "dbt_process",
            "dbt_warm",
            "offline",
        },
    ),
    ("the state package", {"ledger", "reconcile"}),
    (
        "the steps",
        {"ingest", "ingest_pool", "duplicates", "validate", "build", "spark", "noise", "parity"},
    ),
    (
        "reports and readers",
        {"publish", "sections", "render", "pipeline", "compare", "export", "shell", "sqlquery"},
    ),
    ("commands and tools", {"cli", "watch", "scaffold", "codegen", "generate"}),
)


def test_no_module_imports_a_layer_above_its_own():
    package = PROJECT / "pipelines"
    paths = {}
    for path in (package / "mqcap").rglob("*.py"):
        name = ".".join(path.relative_to(package).with_suffix("").parts)
        paths[name.removesuffix(".__init__")] = path

    def layer(module: str) -> int:
        top = module.removeprefix("mqcap.").split(".")[0]
        return next(n for n, (_, names) in enumerate(LAYERS) if top in names)

    unplaced = sorted(
        {
            m
            for m in paths
            if not any(m.removeprefix("mqcap.").split(".")[0] in names for _, names in LAYERS)
        }
    )
    assert unplaced == [], "give these modules a layer in LAYERS"
    upward = [
        f"{m} ({LAYERS[layer(m)][0]}) imports {i} ({LAYERS[layer(i)][0]})"
        for m, path in sorted(paths.items())
        for i in sorted(_imports_of(path, set(paths)))
        if layer(i) > layer(m)
    ]
    assert upward == []
