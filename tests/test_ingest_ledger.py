"""The ingest ledger: idempotent, atomic per file, nothing lost, nothing counted twice."""

from __future__ import annotations

import os
import shutil

import duckdb
import pytest
from hypothesis import given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from mqcap.errors import UsageError
from mqcap.ingest import ingest, parsing
from mqcap.ledger import files as ledger_files

from helpers import FIXTURES, landing_fingerprint, query, tree_hashes


def test_sample_study_lands_every_file_with_lineage(settings, sample_study):
    report = ingest(settings)
    assert len(report.landed) == 20 and report.set_aside == []
    assert query(settings, "select count(*) from landing.driver_results") == [(10,)]
    assert query(settings, "select count(*) from landing.run_manifest") == [(10,)]
    row = query(
        settings,
        """select d.source_file, d.source_line, d.round_trip_us, l.study, l.run_id
           from landing.driver_results d join meta.ingest_ledger l using (file_id)
           where l.run_id = 'attls-chacha-1m'""",
    )
    assert row == [("attls/attls-chacha-1m/results.csv", 2, 956592.0, "attls", "attls-chacha-1m")]


def test_same_file_twice_is_one_set_of_rows(settings, sample_study):
    ingest(settings)
    before = landing_fingerprint(settings.warehouse)
    again = ingest(settings)
    assert again.landed == [] and len(again.by_status("unchanged")) == 20
    # Touching a file (new mtime, same bytes) is still a no-op.
    f = sample_study / "ssl-chacha-2k" / "results.csv"
    os.utime(f, (1, 1))
    assert ingest(settings).landed == []
    assert landing_fingerprint(settings.warehouse) == before
    assert query(settings, "select count(*) from meta.ingest_ledger where status = 'loaded'") == [
        (20,)
    ]


def test_changed_file_replaces_its_own_rows(settings, sample_study):
    ingest(settings)
    f = sample_study / "ssl-chacha-2k" / "results.csv"
    f.write_text("rate_per_s,round_trip_us,threads\n500.0,2000,1\n480.0,2083,1\n")
    report = ingest(settings)
    assert [(o.path, o.status, o.rows) for o in report.landed] == [
        ("attls/ssl-chacha-2k/results.csv", "replaced", 2)
    ]
    rows = query(
        settings,
        """select round_trip_us from landing.driver_results d join meta.ingest_ledger l
           using (file_id) where l.run_id = 'ssl-chacha-2k' order by 1""",
    )
    assert rows == [(2000.0,), (2083.0,)]
    assert query(settings, "select count(*) from landing.driver_results") == [(11,)]
    statuses = query(
        settings,
        "select status from meta.ingest_ledger where path = 'attls/ssl-chacha-2k/results.csv' "
        "order by file_id",
    )
    assert statuses == [("replaced",), ("loaded",)]


def test_duplicate_content_under_another_name_is_set_aside(settings, sample_study):
    ingest(settings)
    src = sample_study / "ssl-chacha-2k" / "results.csv"
    shutil.copy(src, sample_study / "ssl-chacha-2k" / "results-copy.csv")
    report = ingest(settings)
    [aside] = report.set_aside
    assert aside.path == "attls/ssl-chacha-2k/results-copy.csv"
    assert aside.reason == (
        "duplicate of attls/ssl-chacha-2k/results.csv (same content already loaded)"
    )
    assert query(settings, "select count(*) from landing.driver_results") == [(10,)]


def test_a_duplicate_lands_when_the_file_it_repeats_is_deleted(settings, sample_study, monkeypatch):
    """Nothing lost: the copy set aside as a duplicate is the data once its original is gone.
    In the same ingest that sees the deletion (deletions are swept first), in a run folder and
    at the raw root; while the original stays, the copy stays set aside without being read."""
    run = sample_study / "ssl-chacha-2k"
    shutil.copy(run / "results.csv", run / "results-copy.csv")
    root = settings.raw_root
    shutil.copy(FIXTURES / "smf" / "TEST115.dat", root / "a-day.dat")
    shutil.copy(FIXTURES / "smf" / "TEST115.dat", root / "b-day.dat")
    first = ingest(settings)
    assert sorted(o.path for o in first.set_aside) == [
        "attls/ssl-chacha-2k/results.csv",  # results-copy.csv sorts first and lands
        "b-day.dat",
    ]
    rows = query(settings, "select count(*) from landing.driver_results")
    qlst = query(settings, "select count(*) from landing.smf_qlst")
    read: list[str] = []
    real_prepare = parsing.prepare
    monkeypatch.setattr(
        parsing,
        "prepare",
        lambda path, rel, *a, **k: read.append(rel) or real_prepare(path, rel, *a, **k),
    )
    again = ingest(settings)  # the originals stay: the copies stay set aside, unread
    assert read == []
    assert [o.status for o in again.outcomes].count("unchanged") == len(again.outcomes) - 2
    assert sorted(o.path for o in again.set_aside) == sorted(o.path for o in first.set_aside)

    (run / "results-copy.csv").unlink()
    (root / "a-day.dat").unlink()
    report = ingest(settings)
    assert sorted(read) == ["attls/ssl-chacha-2k/results.csv", "b-day.dat"]  # only those
    assert sorted(o.path for o in report.deleted) == [
        "a-day.dat",
        "attls/ssl-chacha-2k/results-copy.csv",
    ]
    assert sorted(o.path for o in report.landed) == [
        "attls/ssl-chacha-2k/results.csv",
        "b-day.dat",
    ]
    assert report.set_aside == []
    assert query(settings, "select count(*) from landing.driver_results") == rows
    assert query(settings, "select count(*) from landing.smf_qlst") == qlst
    assert query(
        settings,
        "select path, status from meta.ingest_ledger where path in ('a-day.dat', 'b-day.dat', "
        "'attls/ssl-chacha-2k/results.csv', 'attls/ssl-chacha-2k/results-copy.csv') "
        "order by file_id",
    ) == [
        ("a-day.dat", "replaced"),  # loaded, then its deletion's entry
        ("attls/ssl-chacha-2k/results-copy.csv", "replaced"),
        ("attls/ssl-chacha-2k/results.csv", "replaced"),  # set aside, then loaded
        ("b-day.dat", "replaced"),
        ("a-day.dat", "deleted"),  # in the order they landed
        ("attls/ssl-chacha-2k/results-copy.csv", "deleted"),
        ("attls/ssl-chacha-2k/results.csv", "loaded"),
        ("b-day.dat", "loaded"),
    ]


def test_bad_file_is_set_aside_with_position_and_next_file_loads(settings, sample_study):
    ingest(settings)
    before = landing_fingerprint(settings.warehouse)
    raw_before = tree_hashes(settings.raw_root)
    bad_run = sample_study / "ssl-chacha-2k"
    (bad_run / "more.csv").write_text("rate_per_s,round_trip_us\n100,2000\n101,fast\n")
    (bad_run / "good.csv").write_text("rate_per_s,round_trip_us\n99,2001\n")
    report = ingest(settings)
    [aside] = report.set_aside
    assert (aside.path, aside.position) == ("attls/ssl-chacha-2k/more.csv", "line 3")
    assert aside.reason == "column round_trip_us: expected a number, got 'fast'"
    assert [o.path for o in report.landed] == ["attls/ssl-chacha-2k/good.csv"]
    after = landing_fingerprint(settings.warehouse)
    # Only the good file was added; nothing of the bad file is in any table.
    assert after["driver_results"][0] == before["driver_results"][0] + 1
    assert {
        k: v for k, v in after.items() if k not in ("driver_results", "meta.ingest_ledger(loaded)")
    } == {
        k: v for k, v in before.items() if k not in ("driver_results", "meta.ingest_ledger(loaded)")
    }
    assert query(
        settings, "select count(*) from landing.driver_results where source_file like '%more.csv'"
    ) == [(0,)]
    # Raw files are never modified or moved.
    raw_after = tree_hashes(settings.raw_root)
    assert {k: raw_after[k] for k in raw_before} == raw_before
    # A set-aside file that did not change is not retried (and stays reported).
    again = ingest(settings)
    assert [o.path for o in again.set_aside] == ["attls/ssl-chacha-2k/more.csv"]
    assert again.landed == []


def test_a_loaded_file_changed_to_bad_content_keeps_its_rows_and_one_verdict(
    settings, sample_study, monkeypatch
):
    ingest(settings)
    before = landing_fingerprint(settings.warehouse)
    rel = "attls/ssl-chacha-2k/results.csv"
    f = sample_study / "ssl-chacha-2k" / "results.csv"
    good = f.read_bytes()
    f.write_text("rate_per_s,round_trip_us\n100,2000\n101,fast\n")
    first = ingest(settings)
    assert [(o.path, o.position) for o in first.set_aside] == [(rel, "line 3")]
    # The loaded version keeps its rows until a good version replaces them.
    assert landing_fingerprint(settings.warehouse) == before

    # The same bad bytes are not read again, and their verdict is one entry, said once.
    parsed = []
    real = parsing.prepare

    def spy(path, *args, **kwargs):
        parsed.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(parsing, "prepare", spy)
    for _ in range(2):
        again = ingest(settings.with_(jobs=1))
        assert [(o.path, o.status) for o in again.set_aside] == [(rel, "set_aside")]
        assert again.landed == []
    assert parsed == []
    assert landing_fingerprint(settings.warehouse) == before
    standing = (
        "select status, count(*) from meta.ingest_ledger where path = ? group by 1 order by 1"
    )
    assert query(settings, standing, [rel]) == [("loaded", 1), ("set_aside", 1)]
    with duckdb.connect(str(settings.warehouse), read_only=True) as con:
        assert ledger_files.totals(con)[2] == 1
        assert [r[0] for r in ledger_files.set_aside_files(con)] == [rel]

    # Touched, not changed: still the same verdict, not read.
    os.utime(f, (1, 1))
    assert [o.path for o in ingest(settings.with_(jobs=1)).set_aside] == [rel] and parsed == []

    # A good version lands and answers the verdict: nothing is set aside any more.
    f.write_bytes(good.replace(b"\n", b"\r\n"))
    fixed = ingest(settings)
    assert [(o.path, o.status) for o in fixed.landed] == [(rel, "replaced")]
    assert fixed.set_aside == []
    assert query(settings, standing, [rel]) == [("loaded", 1), ("replaced", 2)]
    with duckdb.connect(str(settings.warehouse), read_only=True) as con:
        assert ledger_files.totals(con)[2] == 0 and ledger_files.set_aside_files(con) == []


def test_unrecognised_file_is_set_aside(settings, sample_study):
    (sample_study / "notes.bin").write_bytes(bytes(range(256)))
    report = ingest(settings)
    [aside] = report.set_aside
    assert aside.path == "attls/notes.bin" and aside.position == "byte 0"
    assert aside.reason.startswith("unrecognised format (not one of: manifest")


def test_paths_outside_the_raw_root_are_refused(settings, tmp_path):
    outside = tmp_path / "elsewhere.csv"
    outside.write_text("rate_per_s,round_trip_us\n1,2\n")
    with pytest.raises(UsageError, match="is outside the raw root"):
        ingest(settings, [outside])
    with pytest.raises(UsageError, match="is outside the raw root"):
        ingest(settings, [settings.raw_root / ".." / "elsewhere.csv"])


def test_same_bytes_in_two_run_folders_describe_two_runs(settings, sample_study):
    # A results file without run columns means "this run": identical bytes in another run's
    # folder are that run's results, not a duplicate to set aside.
    a = (sample_study / "ssl-chacha-2k" / "results.csv").read_bytes()
    (sample_study / "attls-chacha-2k" / "results.csv").write_bytes(a)
    report = ingest(settings)
    assert report.set_aside == []
    rows = query(
        settings,
        """select l.run_id, d.round_trip_us from landing.driver_results d
           join meta.ingest_ledger l using (file_id)
           where l.run_id in ('ssl-chacha-2k', 'attls-chacha-2k') order by 1""",
    )
    assert rows == [("attls-chacha-2k", 2172.0), ("ssl-chacha-2k", 2172.0)]


def test_discover_lists_what_a_walk_would_and_orders_as_paths_do(settings, tmp_path):
    """The scandir walk keeps the rules of the os.walk it replaced: hidden names and folders,
    symlinks out of the root, folder symlinks, dangling links and fifos are left out; manifests
    come first, then paths in ``Path`` order (component by component: "a/z" before "a-b")."""
    from pathlib import Path

    from mqcap.ingest import discover

    raw = settings.raw_root
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text("x\n")
    files = ["s/a/results.csv", "s/a/run.yaml", "s/a-b/results.csv", "s/a/z/x.txt", "top.txt"]
    files += ["s/b/RUN.YAML", "s/.hidden/run.yaml", "s/a/.dot.csv"]
    for rel in files:
        (raw / rel).parent.mkdir(parents=True, exist_ok=True)
        (raw / rel).write_text("x\n")
    os.symlink(raw / "top.txt", raw / "s" / "inside-link.txt")
    os.symlink(outside / "secret.csv", raw / "s" / "outside-link.csv")
    os.symlink(outside, raw / "s" / "outside-folder")
    os.symlink(raw / "s" / "a", raw / "s" / "folder-link")
    os.symlink(raw / "gone", raw / "s" / "dangling")
    os.mkfifo(raw / "s" / "fifo")

    got = [p.relative_to(raw.resolve()).as_posix() for p in discover(settings)]
    assert got == [
        "s/a/run.yaml",
        "s/b/RUN.YAML",
        "s/a/results.csv",
        "s/a/z/x.txt",
        "s/a-b/results.csv",
        "s/inside-link.txt",
        "top.txt",
    ]
    # The same rules for a folder or file named on the command line.
    assert discover(settings, [raw / "s" / ".hidden"]) == []
    assert discover(settings, [raw / "s" / "a" / ".dot.csv"]) == []
    assert [p.name for p in discover(settings, [raw / "s" / "a" / "z"])] == ["x.txt"]
    assert sorted(discover(settings)) == sorted(Path(raw.resolve(), g) for g in got)


@settings_(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["a", "a-b", "a.b", "a b", "ab", "A", "run.yaml", "Run.YAML"]),
            min_size=1,
            max_size=4,
        ),
        max_size=12,
    )
)
def test_the_batch_order_of_path_strings_is_the_order_of_paths(parts):
    """``order_key`` sorts path strings as ``Path`` objects sort (manifests first, then
    component by component) without building them: '-', '.' and ' ' sort before '/'."""
    from pathlib import Path

    from mqcap.ingest.discovery import order_key
    from mqcap.parsers import manifest as manifest_mod

    names = ["/raw/" + "/".join(p) for p in parts]

    def by_path(name: str) -> tuple[bool, Path]:
        return (Path(name).name.lower() not in manifest_mod.MANIFEST_NAMES, Path(name))

    assert sorted(names, key=order_key) == sorted(names, key=by_path)


def test_a_no_change_ingest_imports_no_parsing_library(settings, sample_study):
    """An ingest that lands nothing (every file settled by its stat) imports neither numpy,
    polars nor pyarrow: the parser modules it loads for the landing tables take them on first
    use (``mqcap.parsers._lazy``), a third of a no-change run's time at 10,000 runs. Nor PyYAML
    (its import compiles its resolver's patterns: about 0.1 s): no manifest is read."""
    import subprocess
    import sys

    first = ingest(settings)
    assert first.landed and not first.set_aside
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from mqcap.ingest import ingest\n"
        "from mqcap.settings import Settings\n"
        f"s = Settings.load(warehouse=Path({str(settings.warehouse)!r}), "
        f"raw=Path({str(settings.raw_root)!r}))\n"
        "report = ingest(s)\n"
        "print(len(report.landed), len(report.outcomes))\n"
        "print(sorted(m for m in ('numpy', 'polars', 'pyarrow', 'yaml') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == [f"0 {len(first.outcomes)}", "[]"]


@settings_(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.sampled_from(["a", "B", "-", ".", " ", "\\", "é", "\udcff", "/", "x"]),
            min_size=1,
            max_size=12,
        ),
        max_size=8,
    )
)
def test_stored_names_in_one_pass_are_those_named_one_by_one(tails):
    """``RawNames.rels`` (a no-change run names 30,000 files at once) gives every file the
    stored name ``relative_name`` gives it: escapes, non-ASCII and backslashes included."""
    from pathlib import Path

    from mqcap.ingest.discovery import RawNames
    from mqcap.names import relative_name

    root = Path("/raw/root")
    names = [f"/raw/root/{t.strip('/') or 'f'}" for t in tails]
    assert RawNames(root).rels(names) == {n: relative_name(root, n) for n in names}
