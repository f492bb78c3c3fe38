"""Ingest reads only inside the raw root, records the hash of exactly the bytes it parsed, and
holds gzip expansion to limits (issue 31: "Outside the raw root", "The recorded hash is not of
the rows' bytes", "No limit on decompression").

Each test is the case as a user or an attacker meets it: a link re-pointed out of the root while
ingest runs, files rewritten in place during ``ingest --jobs 2``, a small .gz that expands far.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import mqcap.ingest as ingest_mod
from mqcap import ingest_pool
from mqcap.ingest import ingest
from mqcap.parsers import base
from mqcap.progress import PlainProgress
from mqcap.settings import Settings

from helpers import PROJECT, query

MQCAP = str(Path(sys.executable).parent / "mqcap")


def _chstatus(channel: str, blocks: int = 1) -> str:
    block = (
        "AMQ8417I: Display Channel Status details.\n"
        f"   CHANNEL({channel})   CHLTYPE(SDR)\n"
        "   CONNAME(10.1.1.1(1414))   CURRENT\n"
        "   RQMNAME(QML2)   STATUS(RUNNING)\n"
    )
    return block * blocks


def _channels(settings: Settings) -> set[str]:
    return {c for (c,) in query(settings, "select distinct channel from landing.chstatus_attr")}


# -- outside the raw root -----------------------------------------------------------------------
def _repoint_after_listing(monkeypatch, link: Path, target: Path) -> None:
    """The attacker's move: the link is listed pointing inside, then re-pointed out of the root
    before it is read."""
    real_discover = ingest_mod.discover_names

    def discover(*args, **kwargs):
        files = real_discover(*args, **kwargs)
        tmp = link.with_name(link.name + ".new")
        os.symlink(target, tmp)
        os.replace(tmp, link)
        return files

    monkeypatch.setattr(ingest_mod, "discover_names", discover)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_link_re_pointed_out_of_the_root_while_ingest_runs_is_not_read(
    settings, tmp_path, monkeypatch, jobs
):
    monkeypatch.setattr(ingest_pool, "POOL_MIN_SECONDS", 0)  # (workers even for a small drop)
    secret = tmp_path / "secret.txt"
    secret.write_text(_chstatus("SECRET.OUTSIDE"))
    inside = settings.raw_root / "z" / "inside.txt"
    inside.parent.mkdir()
    inside.write_text(_chstatus("INSIDE.CHL"))
    (settings.raw_root / "z" / "other.txt").write_text(_chstatus("OTHER.CHL"))
    link = settings.raw_root / "z" / "link.txt"
    os.symlink(inside, link)
    real_discover = ingest_mod.discover_names
    _repoint_after_listing(monkeypatch, link, secret)

    report = ingest(settings.with_(jobs=jobs))

    assert "SECRET.OUTSIDE" not in _channels(settings)
    assert _channels(settings) == {"INSIDE.CHL", "OTHER.CHL"}
    skipped = {o.path: o.reason for o in report.skipped}
    assert list(skipped) == ["z/link.txt"]
    assert "outside the raw root" in skipped["z/link.txt"]
    lines = [line for line in report.problem_lines() if "link.txt" in line]
    assert lines == [f"skipped: z/link.txt: {skipped['z/link.txt']}"]
    assert query(settings, "select count(*) from meta.ingest_ledger where path = 'z/link.txt'") == [
        (0,)
    ]
    # The next ingest: still refused, said again, still nothing of it read.
    monkeypatch.setattr(ingest_mod, "discover_names", real_discover)
    again = ingest(settings.with_(jobs=jobs))
    assert [o.path for o in again.skipped] == ["z/link.txt"] and again.landed == []
    assert "SECRET.OUTSIDE" not in _channels(settings)


def test_rows_landed_from_outside_the_root_earlier_leave_on_the_next_ingest(
    settings, tmp_path, monkeypatch
):
    """What an older mqcap left (the outside file's rows landed through a link) and a link
    re-pointed out between two ingests: the next ingest removes the rows, says so, and the ledger
    records the deletion."""
    secret = tmp_path / "secret.txt"
    secret.write_text(_chstatus("SECRET.OUTSIDE"))
    inside = settings.raw_root / "z" / "inside.txt"
    inside.parent.mkdir()
    inside.write_text(_chstatus("INSIDE.CHL"))
    old = settings.raw_root / "z" / "old.txt"
    os.symlink(secret, old)
    inside2 = settings.raw_root / "z" / ".store" / "inside2.txt"  # (hidden: read via the link)
    inside2.parent.mkdir()
    inside2.write_text(_chstatus("INSIDE2.CHL"))
    later = settings.raw_root / "z" / "later.txt"
    os.symlink(inside2, later)

    # An older mqcap: it listed the link and read through it (no confinement).
    monkeypatch.setattr(
        ingest_mod,
        "discover_names",
        lambda s, paths=None, unreadable=None, outside=None: sorted(
            p for p in (s.raw_root / "z").iterdir() if not p.name.startswith(".")
        ),
    )
    monkeypatch.setattr(
        ingest_mod,
        "ReadRules",
        lambda root, **limits: base.ReadRules(None, **limits),
    )
    ingest(settings)
    monkeypatch.undo()
    assert _channels(settings) == {"SECRET.OUTSIDE", "INSIDE.CHL", "INSIDE2.CHL"}
    landed = query(settings, "select path from meta.ingest_ledger where status = 'loaded'")
    assert sorted(landed) == [
        ("z/inside.txt",),
        ("z/later.txt",),
        ("z/old.txt",),
    ]

    # Between the ingests the second link is re-pointed out of the root.
    later.unlink()
    os.symlink(secret, later)
    report = ingest(settings)

    assert _channels(settings) == {"INSIDE.CHL"}
    gone = {o.path: o.reason for o in report.deleted}
    assert set(gone) == {"z/old.txt", "z/later.txt"}
    assert all("outside the raw root" in why for why in gone.values())
    assert {o.path for o in report.skipped} == {"z/old.txt", "z/later.txt"}
    deleted = query(
        settings,
        "select path, reason from meta.ingest_ledger where status = 'deleted' order by path",
    )
    assert [p for p, _ in deleted] == ["z/later.txt", "z/old.txt"]
    assert all("outside the raw root" in r and "left landing" in r for _, r in deleted)
    # Re-pointed inside again: it lands again.
    later.unlink()
    os.symlink(inside2, later)
    back = ingest(settings)
    assert [o.path for o in back.landed] == ["z/later.txt"]


# -- the recorded hash is of the rows' bytes ----------------------------------------------------
MANIFEST = """study: h
run: {run}
interval:
  start: 2021-06-01T10:00:00
  end: 2021-06-01T10:05:00
workload:
  type: request_reply
  message_bytes: 2048
  persistence: nonpersistent
  threads: 1
"""


def _results(version: str) -> bytes:
    """A results CSV whose rate names its version; both versions have the same size."""
    return f"rate_per_s,round_trip_us\n{version}.5,250\n".encode()


def _rates(settings: Settings) -> dict[str, tuple[str, set[float]]]:
    """Loaded path -> (ledger sha256, the rates of its rows)."""
    rows = query(
        settings,
        """select l.path, l.sha256, list(distinct r.rate_per_s)
           from meta.ingest_ledger l join landing.driver_results r using (file_id)
           where l.status = 'loaded' group by all""",
    )
    return {p: (sha, set(rates)) for p, sha, rates in rows}


@pytest.mark.parametrize("snapshot", [True, False], ids=["read-once", "reread-on-change"])
def test_a_file_rewritten_between_the_hash_and_the_parse_records_the_hash_of_its_rows(
    settings, monkeypatch, snapshot
):
    if not snapshot:  # large files: read from one descriptor, stat checked, read again if moved
        monkeypatch.setattr(base, "SNAPSHOT_BYTES", 0)
    run = settings.raw_root / "h" / "r1"
    run.mkdir(parents=True)
    (run / "run.yaml").write_text(MANIFEST.format(run="r1"))
    results = run / "results.csv"
    a, b = _results("111"), _results("222")
    results.write_bytes(a)
    real_detect = ingest_pool.detect
    rewritten = []

    def detect(path, name=None):  # runs after the hash, before the parse
        if path.name == "results.csv" and not rewritten:
            with open(path, "r+b") as fh:
                fh.write(b)
            os.utime(path, ns=(1, 1_000_000_000 * 1_600_000_000))  # a new mtime
            rewritten.append(path)
        return real_detect(path, name)

    monkeypatch.setattr(ingest_pool, "detect", detect)
    ingest(settings.with_(jobs=1))
    assert rewritten
    (sha, rates) = _rates(settings)["h/r1/results.csv"]
    version = a if rates == {111.5} else b
    assert rates in ({111.5}, {222.5})
    assert sha == hashlib.sha256(version).hexdigest()
    # The next ingest settles on what the file holds now.
    monkeypatch.setattr(ingest_pool, "detect", real_detect)
    ingest(settings.with_(jobs=1))
    assert _rates(settings)["h/r1/results.csv"] == (hashlib.sha256(b).hexdigest(), {222.5})


def test_files_rewritten_during_ingest_jobs_2_record_the_hash_of_the_rows_that_landed(
    settings, monkeypatch
):
    """The issue's case: five files rewritten in place, again and again, while `ingest --jobs 2`
    reads them; every loaded file's ledger hash is that of the version whose rows landed."""
    monkeypatch.setattr(ingest_pool, "POOL_MIN_SECONDS", 0)
    versions = {v: _results(v) for v in ("111", "222")}
    shas = {hashlib.sha256(data).hexdigest(): float(v) + 0.5 for v, data in versions.items()}
    files = []
    for i in range(5):
        run = settings.raw_root / "h" / f"r{i}"
        run.mkdir(parents=True)
        (run / "run.yaml").write_text(MANIFEST.format(run=f"r{i}"))
        files.append(run / "results.csv")
        files[-1].write_bytes(versions["111"])
    stop = threading.Event()

    def rewrite() -> None:
        n = 0
        while not stop.is_set():
            for path in files:
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.pwrite(fd, versions["222" if n % 2 == 0 else "111"], 0)
                finally:
                    os.close(fd)
            n += 1

    mismatched = 0
    for _ in range(3):
        writer = threading.Thread(target=rewrite)
        writer.start()
        try:
            ingest(settings.with_(jobs=2))
        finally:
            stop.set()
            writer.join()
        stop.clear()
        loaded = {p: v for p, v in _rates(settings).items() if p.endswith("results.csv")}
        for _path, (sha, rates) in loaded.items():
            if len(rates) != 1 or shas.get(sha) != next(iter(rates)):
                mismatched += 1
    assert mismatched == 0


# -- bounded decompression ------------------------------------------------------------------------
def _bomb(path: Path, blocks: int) -> int:
    """A small .gz capture of many CHSTATUS blocks; returns its expanded size."""
    text = _chstatus("BOMB.CHL", blocks).encode()
    path.write_bytes(gzip.compress(text, 9))
    return len(text)


def _cli(settings: Settings, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MQCAP, "--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "MQCAP_PROGRESS_EVERY_S": "0", **(env or {})},
        cwd=PROJECT,
        timeout=300,
    )


@pytest.mark.parametrize(
    "env, says",
    [
        ({"MQCAP_MAX_EXPANDED_BYTES": "1000000"}, "more than 1,000,000 bytes"),
        ({"MQCAP_MAX_GZIP_RATIO": "2"}, "more than 2 times its size"),
    ],
    ids=["expanded-size", "ratio"],
)
def test_a_gzip_that_expands_past_the_limit_is_refused_with_nothing_left_behind(
    settings, env, says
):
    (settings.raw_root / "z").mkdir()
    bomb = settings.raw_root / "z" / "bomb.txt.gz"
    expanded = _bomb(bomb, 40_000)  # ~5 MB of text from a few KB
    assert expanded > 4_000_000 and bomb.stat().st_size < 100_000
    (settings.raw_root / "z" / "good.txt").write_text(_chstatus("GOOD.CHL"))

    proc = _cli(settings, "ingest", env=env)

    assert proc.returncode == 1, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if "bomb" in ln]
    assert len(line) == 1 and line[0].strip().startswith("set aside: z/bomb.txt.gz"), proc.stdout
    assert says in line[0] and "decompression bomb" in line[0]
    assert _channels(settings) == {"GOOD.CHL"}  # no partial rows
    spool = settings.outputs / "spool"
    assert not spool.exists() or list(spool.iterdir()) == []
    status = query(
        settings, "select status, reason from meta.ingest_ledger where path like '%bomb%'"
    )
    assert [s for s, _ in status] == ["set_aside"] and says in status[0][1]
    # Progress counts stay whole numbers.
    counts = re.findall(r"ingest: (\S+) of (\S+) files", proc.stderr)
    assert counts and all(d.isdigit() and t.isdigit() for d, t in counts), proc.stderr
    # A limit is a setting, not a verdict on the file: raised (here, back to the defaults, under
    # which 5 MB from a few KB is a real capture), the file lands on the next ingest untouched.
    ok = _cli(settings, "ingest")
    assert "set aside:" not in ok.stdout and "1 file(s) landed" in ok.stdout, ok.stdout
    assert _channels(settings) == {"GOOD.CHL", "BOMB.CHL"}


def test_the_limit_also_holds_where_a_gzip_is_read_without_the_hashing_pass(settings, monkeypatch):
    """open_input itself counts: a parse of a .gz past the limit stops with the reason."""
    bomb = settings.raw_root / "bomb.txt.gz"
    _bomb(bomb, 40_000)
    ctx = base.ParseContext(path=bomb, source_file="bomb.txt.gz")
    rules = base.ReadRules(max_expanded_bytes=1_000_000)
    limit = pytest.raises(base.GzipLimitError, match="more than 1,000,000 bytes")
    with base.reading(rules), limit as exc:
        for _ in base.read_text_lines(ctx):
            pass
    assert exc.value.file == "bomb.txt.gz"
    # A text file: the line being read when the limit was passed (not a byte).
    assert exc.value.line is not None and exc.value.offset is None
    assert str(exc.value).startswith(f"bomb.txt.gz line {exc.value.line}: ")


def test_progress_of_a_large_file_keeps_whole_file_counts(settings, monkeypatch):
    """The issue's `1.55189e+08/1 files`: bytes of a file being parsed went into the count."""
    monkeypatch.setattr(ingest_pool, "PROGRESS_BYTES", 0)
    (settings.raw_root / "z").mkdir()
    (settings.raw_root / "z" / "big.txt").write_text(_chstatus("BIG.CHL", 30_000))
    out = io.StringIO()
    ingest(settings.with_(jobs=1), progress=PlainProgress(out, every_s=0))
    lines = [ln for ln in out.getvalue().splitlines() if "ingest:" in ln]
    assert lines and not any("e+" in ln for ln in lines), out.getvalue()
    assert all(re.search(r"ingest: \d+ of 1 files", ln) for ln in lines), lines
