"""Hostile text: markup, SQL quotes and ``../`` in every free-text field, and paths outside the root.

The values go through the real pipeline (ingest, dbt build, GX validation, the study report)
and must come out exactly as they went in: stored verbatim, the warehouse intact (a canary
table named in the SQL still there), and shown as text in the HTML report (no element injected).
Files are only ever read inside the raw root: symlinks out of it, ``..`` and absolute paths are
refused, and the file they point at is never opened.
"""

from __future__ import annotations

import csv
import io
import json
import os
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from mqcap.build import build
from mqcap.errors import UsageError
from mqcap.ingest import ingest
from mqcap.publish import render_reports
from mqcap.validate import validate

from helpers import query
from reliability_summary import HOSTILE, ledger_landing_disagreements

SCRIPT, IMG, SQL, DOTS = HOSTILE
CHANNEL_FILE = "h1/'; drop table x; --.txt"
CSV_FILE = 'h0/"><img src=x onerror=alert(1)>.csv'


def _manifest(run: str, configuration: str, baseline: str, minute: int) -> str:
    q = json.dumps  # a JSON string is a YAML double-quoted scalar
    return f"""study: hostile
run: {run}
description: {q(SCRIPT + " " + DOTS)}
configuration: {q(configuration)}
interval:
  start: 2021-06-01T10:{minute:02d}:00
  end: 2021-06-01T10:{minute + 5:02d}:00
system: MPX1
qmgr: {q(SQL)}
workload:
  type: request_reply
  message_bytes: 2048
  persistence: nonpersistent
  threads: 1
labels:
  protection: {q(SCRIPT)}
  cipher: {q(SQL)}
  path: {q(DOTS)}
  markup: {q(IMG)}
baseline: {baseline}
jobs:
  QML1CHIN: CHIN
"""


def _results(rate: float, rtt: int) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["rate_per_s", "round_trip_us", "threads", "message_bytes", "comment", "path"])
    w.writerow([rate, rtt, 1, 2048, SCRIPT + IMG, SQL + DOTS])
    return out.getvalue()


def _chstatus() -> str:
    blocks = []
    for name in HOSTILE:
        blocks.append(
            "AMQ8417I: Display Channel Status details.\n"
            f"   CHANNEL({name})   CHLTYPE(SDR)\n"
            f"   CONNAME(10.1.1.1(1414))   CURRENT\n"
            f"   RQMNAME({SQL})   STATUS(RUNNING)\n"
        )
    return "     1 : DIS CHSTATUS(*)\n" + "".join(blocks)


def _ingested_hostile_study(settings):
    """Drop the hostile study (and a canary table ``x``) and ingest it; the ingest report."""
    study = settings.raw_root / "hostile"
    for run, config, minute in (("h0", SQL, 0), ("h1", SCRIPT + IMG, 10)):
        (study / run).mkdir(parents=True)
        (study / run / "run.yaml").write_text(_manifest(run, config, "h0", minute))
    (study / CSV_FILE).write_text(_results(460.5, 2172))
    (study / "h1" / "results.csv").write_text(_results(401.25, 2493))
    (study / CHANNEL_FILE).write_text(_chstatus())
    # A canary the hostile SQL names: it must survive ingest, build, validate and report.
    settings.warehouse.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(settings.warehouse))
    con.execute("create table x (keep integer); insert into x values (42)")
    con.close()
    return ingest(settings)


@pytest.fixture
def hostile(settings):
    """The hostile study ingested, built and validated."""
    report = _ingested_hostile_study(settings)
    return settings, report, build(settings), validate(settings, "all", None)


class _Elements(HTMLParser):
    """Every element and the text of every <script>, as a browser would tokenise them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text.append(data)


def test_hostile_values_round_trip_and_the_report_shows_them_as_text(hostile):
    settings, report, built, checked = hostile
    assert report.set_aside == []
    assert sorted(o.path for o in report.landed) == sorted(
        [
            "hostile/h0/run.yaml",
            "hostile/h1/run.yaml",
            f"hostile/{CSV_FILE}",
            "hostile/h1/results.csv",
            f"hostile/{CHANNEL_FILE}",
        ]
    )
    assert built.ok and built.counts.get("error", 0) == 0
    assert checked.ok, [f.message() for f in checked.failures]
    # The canary and every table are intact; ledger and landing agree.
    assert query(settings, "select keep from main.x") == [(42,)]
    assert ledger_landing_disagreements(settings.warehouse) == []
    # Exact round trips: manifest fields, labels, CSV values, file names, channel names.
    assert query(
        settings,
        "select run_id, description, configuration, qmgr from landing.run_manifest order by 1",
    ) == [
        ("h0", f"{SCRIPT} {DOTS}", SQL, SQL),
        ("h1", f"{SCRIPT} {DOTS}", SCRIPT + IMG, SQL),
    ]
    labels = query(settings, "select distinct label, value from landing.run_label order by 1, 2")
    assert labels == sorted(
        [("cipher", SQL), ("markup", IMG), ("path", DOTS), ("protection", SCRIPT)]
    )
    assert query(settings, "select source_file, extra from landing.driver_results order by 1") == [
        (f"hostile/{CSV_FILE}", json.dumps({"comment": SCRIPT + IMG, "path": SQL + DOTS})),
        ("hostile/h1/results.csv", json.dumps({"comment": SCRIPT + IMG, "path": SQL + DOTS})),
    ]
    channels = query(
        settings,
        "select distinct value from landing.chstatus_attr where key = 'CHANNEL' order by 1",
    )
    assert channels == sorted((h,) for h in HOSTILE)
    assert query(
        settings,
        "select distinct value from landing.chstatus_attr where key = 'RQMNAME'",
    ) == [(SQL,)]
    assert query(
        settings, "select path from meta.ingest_ledger where path = ?", [f"hostile/{CHANNEL_FILE}"]
    ) == [(f"hostile/{CHANNEL_FILE}",)]
    # And through dbt to the marts the reports read.
    assert query(
        settings, "select run_id, configuration, description from marts.dim_run order by 1"
    ) == [("h0", SQL, f"{SCRIPT} {DOTS}"), ("h1", SCRIPT + IMG, f"{SCRIPT} {DOTS}")]

    # The study report shows them as text.
    result = render_reports(settings, ["hostile"], "html", force=True)
    html = result.outputs["hostile"]["html"].read_text()
    page = _Elements()
    page.feed(html)
    text = " ".join(page.text)
    # Shown as text...
    assert SCRIPT in text and IMG in text and SQL in text
    # ...and nothing injected: no element carries an event handler, no image points at "x",
    # and no script is the hostile one (a label breaking out of a JSON <script> would be).
    handlers = [(t, a) for t, a in page.tags if any(k.startswith("on") for k in a)]
    assert handlers == []
    assert [a for t, a in page.tags if t == "img" and a.get("src") == "x"] == []
    assert [s for s in page.scripts if s.strip() == "alert(1)"] == []
    assert "<script>alert(1)</script>" not in html
    assert "<img src=x" not in html
    assert query(settings, "select keep from main.x") == [(42,)]


def test_files_outside_the_raw_root_are_never_read(settings, tmp_path):
    _ingested_hostile_study(settings)
    secret = tmp_path / "secret.csv"
    secret.write_text("rate_per_s,round_trip_us\n1,2\n")
    outside_dir = tmp_path / "outside"
    outside_dir.mkdir()
    (outside_dir / "results.csv").write_text("rate_per_s,round_trip_us\n3,4\n")
    link_file = settings.raw_root / "hostile" / "h1" / "link.csv"
    link_dir = settings.raw_root / "hostile" / "linked"
    os.symlink(secret, link_file)
    os.symlink(outside_dir, link_dir)
    try:
        for path in (
            secret,  # absolute, outside
            settings.raw_root / ".." / secret.name,  # .. out of the root
            Path(os.path.relpath(secret, Path.cwd())),  # relative, outside
            link_file,  # a symlink in the root pointing out
            link_dir / "results.csv",  # through a symlinked folder
        ):
            with pytest.raises(UsageError, match="is outside the raw root"):
                ingest(settings, [path])
        # Walking the whole root skips both links: nothing new is read or landed. The link to
        # a file is said (one line, skipped: nothing of it was read, so nothing is set aside).
        before = os.stat(secret).st_atime_ns, os.stat(outside_dir / "results.csv").st_atime_ns
        report = ingest(settings)
        assert report.landed == [] and report.set_aside == []
        assert [(o.path, o.status) for o in report.outcomes if "link" in o.path] == [
            ("hostile/h1/link.csv", "skipped")
        ]
        assert "outside the raw root" in report.skipped[0].reason
        assert query(
            settings, "select count(*) from meta.ingest_ledger where path like '%link%'"
        ) == [(0,)]
        assert (
            os.stat(secret).st_atime_ns,
            os.stat(outside_dir / "results.csv").st_atime_ns,
        ) == before
    finally:
        link_file.unlink()
        link_dir.unlink()


def test_hostile_study_and_run_ids_are_refused(settings):
    _ingested_hostile_study(settings)
    bad = settings.raw_root / "evil"
    for i, (field, value) in enumerate(
        [("study", DOTS), ("study", SQL), ("run", SCRIPT), ("baseline", IMG)]
    ):
        folder = bad / f"r{i}"
        folder.mkdir(parents=True)
        text = f"study: evil\nrun: r{i}\n"
        text = text.replace(f"{field}: evil", f"{field}: {json.dumps(value)}")
        text = text.replace(f"{field}: r{i}", f"{field}: {json.dumps(value)}")
        if field == "baseline":
            text += f"baseline: {json.dumps(value)}\n"
        (folder / "run.yaml").write_text(text)
    report = ingest(settings, [bad])
    reasons = {o.path: (o.position, o.reason) for o in report.set_aside}
    assert len(reasons) == 4 and report.landed == []
    for path, (position, reason) in reasons.items():
        assert position in ("line 1", "line 2", "line 3"), (path, position)
        assert reason.startswith("field "), reason
    assert query(settings, "select keep from main.x") == [(42,)]
