"""A study whose runs are all gone (its folder deleted or renamed) keeps no report: the files its
last render wrote are removed by the next report pass, `mqcap run` does not call itself up to
date while one is left, and nothing else in the reports folder is touched (another study's
report, a file mqcap did not write, a symlink, a report recorded in another folder)."""

from __future__ import annotations

from pathlib import Path

from mqcap import warehouse
from mqcap.ledger import schema
from mqcap.ledger.steps import record_step
from mqcap.publish import plan_reports

from helpers import layout_settings


def _setup(tmp_path: Path):
    s = layout_settings(tmp_path)
    s.warehouse.parent.mkdir(parents=True)
    s.reports_out.mkdir(parents=True)
    with warehouse.connect(s.warehouse) as con:
        schema.ensure(con)
        con.execute("create schema if not exists marts")
        con.execute("create table marts.dim_run as select 'kept' as study, 'kept/r1' as run_key")
    return s


def _report(con, s, study: str, fmt: str, folder: Path | None = None) -> Path:
    path = (folder or s.reports_out) / f"{study}.{fmt}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"report of {study}")
    record_step(con, "report", "done", study=study, part=fmt, inputs="x", output=path)
    return path


def test_a_gone_studys_report_is_removed_and_nothing_else(tmp_path):
    s = _setup(tmp_path)
    elsewhere = tmp_path / "old-reports"
    with warehouse.connect(s.warehouse) as con:
        kept = _report(con, s, "kept", "html")
        gone_html = _report(con, s, "gone", "html")
        gone_pdf = _report(con, s, "gone", "pdf")
        moved = _report(con, s, "moved", "html", folder=elsewhere)
        linked_target = tmp_path / "target.html"
        linked_target.write_text("not a report")
        link = s.reports_out / "linked.html"
        link.symlink_to(linked_target)
        record_step(con, "report", "done", study="linked", part="html", inputs="x", output=link)
        mine = s.reports_out / "notes.html"
        mine.write_text("the user's own file")
        plan = plan_reports(con, s, fmt="all", blocked={}, only_owed=True)
    assert plan.result.withdrawn == {"gone.html": gone_html, "gone.pdf": gone_pdf}
    assert not gone_html.exists() and not gone_pdf.exists()
    assert kept.read_text() == "report of kept"
    assert moved.exists() and link.is_symlink() and linked_target.exists() and mine.exists()
    # Computed from the disk: a second pass finds nothing more to remove.
    with warehouse.connect(s.warehouse) as con:
        again = plan_reports(con, s, fmt="all", blocked={}, only_owed=True)
    assert again.result.withdrawn == {}


def test_the_state_lists_a_gone_studys_report_until_it_is_removed(tmp_path):
    from mqcap.ledger.steps import pipeline_state

    s = _setup(tmp_path)
    with warehouse.connect(s.warehouse) as con:
        gone = _report(con, s, "gone", "html")
        state = pipeline_state(s, con)
    assert state.withdrawn_reports(state.studies) == [("gone", gone)]
    assert state.withdrawn_reports(["kept", "gone"]) == []
    gone.unlink()  # removed by hand: nothing is owed for it
    with warehouse.connect(s.warehouse) as con:
        assert pipeline_state(s, con).withdrawn_reports(["kept"]) == []
