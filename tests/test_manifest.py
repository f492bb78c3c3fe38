"""The run manifest: valid ones land; every kind of error names file, line, field, expectation."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqcap.errors import InputError
from mqcap.ingest import ingest
from mqcap.parsers import manifest
from mqcap.parsers.base import ParseContext

GOOD = """\
study: keysize
run: rsa2048-tls12
description: TLS 1.2, RSA 2048
configuration: TLS 1.2 RSA 2048
interval:
  start: 2024-01-10T09:00:00
  end: 2024-01-10T09:10:00
system: SYS1
qmgr: QM01
workload:
  type: channel_start
  message_bytes: 32768
  persistence: nonpersistent
  threads: 4
  target_rate_per_s: 10000
labels:
  tls_version: "1.2"
  cipher: TLS_RSA_WITH_AES_256_CBC_SHA256
  key_bits: 2048
baseline: rsa2048-tls12
channels: 4000
jobs:
  QM01MSTR: MSTR
  QM01CHIN: chin
  TCPIP: TCPIP
"""


def _load(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "run.yaml"
    path.write_text(text)
    return manifest.load(ParseContext(path=path, source_file="keysize/r/run.yaml"))


def _error(tmp_path: Path, text: str) -> InputError:
    with pytest.raises(InputError) as info:
        _load(tmp_path, text)
    return info.value


def test_valid_manifest_is_read_with_types(tmp_path):
    m = _load(tmp_path, GOOD)
    assert m["study"] == "keysize" and m["run"] == "rsa2048-tls12"
    assert m["message_bytes"] == 32768 and m["threads"] == 4
    assert m["target_rate_per_s"] == 10000.0
    assert m["interval_start"].isoformat() == "2024-01-10T09:00:00"
    assert m["labels"] == {
        "tls_version": "1.2",
        "cipher": "TLS_RSA_WITH_AES_256_CBC_SHA256",
        "key_bits": "2048",
    }
    assert m["jobs"] == {"QM01MSTR": "MSTR", "QM01CHIN": "CHIN", "TCPIP": "TCPIP"}
    assert m["channels"] == 4000


def test_missing_required_field_names_it(tmp_path):
    err = _error(tmp_path, GOOD.replace("study: keysize\n", ""))
    assert err.field == "study"
    assert str(err) == (
        "keysize/r/run.yaml line 1: field study: expected the study name "
        "(letters, digits, _ . + -) (required), got nothing"
    )


def test_wrong_type_names_field_line_and_expectation(tmp_path):
    err = _error(tmp_path, GOOD.replace("message_bytes: 32768", "message_bytes: big"))
    assert err.line == 12 and err.field == "workload.message_bytes"
    assert "expected a positive whole number, got 'big'" in str(err)


def test_negative_size_and_bad_persistence_rejected(tmp_path):
    err = _error(tmp_path, GOOD.replace("message_bytes: 32768", "message_bytes: -5"))
    assert err.field == "workload.message_bytes" and "got -5" in str(err)
    err = _error(tmp_path, GOOD.replace("persistence: nonpersistent", "persistence: maybe"))
    assert err.line == 13 and "expected persistent or nonpersistent, got 'maybe'" in str(err)


def test_interval_end_before_start_is_rejected(tmp_path):
    err = _error(tmp_path, GOOD.replace("end: 2024-01-10T09:10:00", "end: 2024-01-10T08:10:00"))
    assert err.line == 7 and err.field == "interval.end"
    assert "expected a time after interval.start (2024-01-10T09:00:00)" in str(err)
    assert str(err).endswith("got 2024-01-10T08:10:00")  # (not datetime.datetime(2024, ...))


def test_interval_not_a_timestamp_is_rejected(tmp_path):
    err = _error(tmp_path, GOOD.replace("start: 2024-01-10T09:00:00", "start: yesterday"))
    assert err.line == 6 and err.field == "interval.start"
    assert "an ISO timestamp" in str(err) and "'yesterday'" in str(err)


def test_unknown_field_and_unknown_role_rejected(tmp_path):
    err = _error(tmp_path, GOOD + "colour: blue\n")
    assert err.field == "colour" and err.line == 26
    err = _error(tmp_path, GOOD.replace("TCPIP: TCPIP", "TCPIP: NETWORK"))
    assert err.field == "jobs.TCPIP" and "a role: MSTR, CHIN, TCPIP, AMSM, APP, OTHER" in str(err)


def test_yaml_syntax_error_names_line(tmp_path):
    err = _error(tmp_path, GOOD.replace("  threads: 4", "  threads: [4"))
    assert err.line is not None and err.line >= 14
    assert "not valid YAML" in str(err)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # Found by the fuzz test: YAML breaks lines at a lone \r too, and named line 6 of this
        # five-line file (lines are counted by \n everywhere else in mqcap).
        ("study: attls\nrun: r1\n# note\ninterval: {start: 2021-02-30T10:00:00}\nd\r", 5),
        ("\rstudy: a", 1),
        ("s\rtudy:", 1),
        ("study: a\rb\nrun: r1\n  x: [", 2),  # YAML said 3
    ],
)
def test_a_lone_carriage_return_does_not_move_the_line_named(tmp_path, text, line):
    path = tmp_path / "run.yaml"
    path.write_bytes(text.encode())
    with pytest.raises(InputError) as info:
        manifest.load(ParseContext(path=path, source_file="s/r/run.yaml"))
    assert info.value.line == line, info.value


def test_a_field_after_a_lone_carriage_return_is_named_on_its_own_line(tmp_path):
    err = _error(
        tmp_path, GOOD.replace("study: keysize\n", "# a\r# b\nstudy: keysize\n") + "colour: x\n"
    )
    assert err.field == "colour" and err.line == 27


def test_unknown_baseline_is_set_aside_then_loaded_when_baseline_arrives(settings):
    run = settings.raw_root / "keysize" / "rsa4096-tls12"
    run.mkdir(parents=True)
    (run / "run.yaml").write_text(
        GOOD.replace("run: rsa2048-tls12", "run: rsa4096-tls12").replace(
            "baseline: rsa2048-tls12", "baseline: rsa2048-tls12"
        )
    )
    report = ingest(settings)
    [outcome] = report.set_aside
    assert outcome.path == "keysize/rsa4096-tls12/run.yaml"
    assert outcome.position == "line 20"
    assert outcome.reason == (
        "field baseline: expected a run of study keysize, got 'rsa2048-tls12' (no such run)"
    )
    base = settings.raw_root / "keysize" / "rsa2048-tls12"
    base.mkdir()
    (base / "run.yaml").write_text(GOOD)
    report = ingest(settings)
    assert sorted(o.path for o in report.landed) == [
        "keysize/rsa2048-tls12/run.yaml",
        "keysize/rsa4096-tls12/run.yaml",
    ]
    assert report.set_aside == []


def test_a_new_run_names_a_baseline_loaded_before_and_settled_manifests_are_not_read(
    settings, monkeypatch
):
    base = settings.raw_root / "keysize" / "rsa2048-tls12"
    base.mkdir(parents=True)
    (base / "run.yaml").write_text(GOOD)
    assert [o.path for o in ingest(settings).landed] == ["keysize/rsa2048-tls12/run.yaml"]
    read: list[str] = []
    real = manifest.load

    def counting(ctx):
        read.append(ctx.source_file)
        return real(ctx)

    monkeypatch.setattr(manifest, "load", counting)
    assert ingest(settings).landed == [] and read == []  # nothing new: no YAML read
    run = settings.raw_root / "keysize" / "rsa4096-tls12"
    run.mkdir()
    (run / "run.yaml").write_text(GOOD.replace("run: rsa2048-tls12", "run: rsa4096-tls12"))
    report = ingest(settings)
    # The baseline is known from the ledger (its manifest is settled, so not read again); the
    # new one is read to check it and parsed to land it.
    assert [o.path for o in report.landed] == ["keysize/rsa4096-tls12/run.yaml"]
    assert report.set_aside == [] and set(read) == {"keysize/rsa4096-tls12/run.yaml"}


def test_same_run_declared_twice_is_set_aside(settings):
    for folder in ("a", "b"):
        d = settings.raw_root / "keysize" / folder
        d.mkdir(parents=True)
        (d / "run.yaml").write_text(GOOD + f"# copy {folder}\n")
    report = ingest(settings)
    assert [o.path for o in report.landed] == ["keysize/a/run.yaml"]
    [aside] = report.set_aside
    assert (
        aside.reason
        == "run rsa2048-tls12 of study keysize is already defined by keysize/a/run.yaml"
    )


def test_files_of_a_run_with_invalid_manifest_wait_for_it(settings):
    run = settings.raw_root / "keysize" / "r1"
    run.mkdir(parents=True)
    (run / "run.yaml").write_text(GOOD.replace("threads: 4", "threads: four"))
    (run / "results.csv").write_text("rate_per_s,round_trip_us\n100,9000\n")
    report = ingest(settings)
    reasons = {o.path: o.reason for o in report.set_aside}
    assert reasons["keysize/r1/results.csv"].startswith(
        "run manifest keysize/r1/run.yaml is set aside: field workload.threads"
    )
    (run / "run.yaml").write_text(GOOD)
    report = ingest(settings)
    assert sorted(o.path for o in report.landed) == [
        "keysize/r1/results.csv",
        "keysize/r1/run.yaml",
    ]
    assert {o.run_id for o in report.landed} == {"rsa2048-tls12"}


DISTRIBUTED = """\
study: threadsweep
run: local-m2002a-off-2k-t8
configuration: Feature off
platform: appliance
host: mqa-a1
hardware_model: M2002A
scenario: local
series: series/off.csv
workload: {type: request_reply, message_bytes: 2048, persistence: persistent, threads: 8}
"""


def test_distributed_manifest_names_platform_host_model_scenario_without_interval(tmp_path):
    m = _load(tmp_path, DISTRIBUTED)
    assert (m["platform"], m["host"], m["hardware_model"], m["scenario"], m["series"]) == (
        "appliance", "mqa-a1", "M2002A", "local", "series/off.csv",
    )  # fmt: skip
    assert m["interval_start"] is None and m["interval_end"] is None and m["system"] is None


def test_a_z_os_system_id_implies_the_zos_platform(tmp_path):
    assert _load(tmp_path, GOOD)["platform"] == "zos"


def test_unknown_platform_names_line_field_and_choices(tmp_path):
    err = _error(tmp_path, DISTRIBUTED.replace("platform: appliance", "platform: mainframe"))
    assert str(err) == (
        "keysize/r/run.yaml line 4: field platform: expected zos, distributed or appliance, "
        "got 'mainframe'"
    )


def test_series_outside_the_study_folder_is_an_error(tmp_path):
    err = _error(tmp_path, DISTRIBUTED.replace("series/off.csv", "../other/off.csv"))
    assert err.field == "series" and err.line == 8


def test_every_problem_of_a_manifest_is_named_at_once(tmp_path):
    """The three mistakes a new user made in one run.yaml come back in one answer, each with
    its line and field, instead of one per `mqcap run`."""
    text = (
        GOOD.replace("type: channel_start", "type: request-reply")
        .replace("message_bytes: 32768", "message_bytes: 32k")
        .replace("TCPIP: TCPIP", "TCPIP: NETWORK")
        .replace("end: 2024-01-10T09:10:00", "end: later")
    )
    err = _error(tmp_path, text)
    assert err.line == 7 and err.field == "interval.end"  # the first, by line
    assert str(err) == (
        "keysize/r/run.yaml line 7: 4 problems: field interval.end: expected an ISO timestamp "
        "like 2021-06-01T10:00:00, got 'later'; line 11: field workload.type: expected one of "
        f"{', '.join(manifest.WORKLOAD_TYPES)}, got 'request-reply'; line 12: field "
        "workload.message_bytes: expected a positive whole number, got '32k'; line 25: field "
        "jobs.TCPIP: expected a role: MSTR, CHIN, TCPIP, AMSM, APP, OTHER, got 'NETWORK'"
    )


def test_a_run_with_bad_manifests_lists_every_problem_of_every_file(settings):
    """`mqcap ingest` over a study with two bad manifests: both set aside, each reason naming all
    of its file's problems, then one summary line."""
    from click.testing import CliRunner

    from mqcap.cli import main

    for run, text in (
        ("a", GOOD.replace("run: rsa2048-tls12", "run: a").replace("threads: 4", "threads: 0")),
        (
            "b",
            GOOD.replace("run: rsa2048-tls12", "run: b")
            .replace("qmgr: QM01", "qmgr: [QM01]")
            .replace("colour", "x")
            + "colour: blue\n",
        ),
    ):
        folder = settings.raw_root / "keysize" / run
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(text)
    result = CliRunner().invoke(
        main, ["ingest", "--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root)]
    )
    out = result.output
    assert "keysize/a/run.yaml (line 14): field workload.threads: expected a positive whole" in out
    assert "keysize/b/run.yaml (line 9): 2 problems: field qmgr: expected a text value, got" in out
    assert "0 file(s) landed (0 rows), 0 unchanged, 2 set aside" in out
    assert "line 26: field colour: expected one of" in out
    assert result.exit_code == 1


def _write_run(settings, folder: str, run: str) -> Path:
    d = settings.raw_root / "keysize" / folder
    d.mkdir(parents=True, exist_ok=True)
    text = GOOD.replace("run: rsa2048-tls12", f"run: {run}").replace(
        "baseline: rsa2048-tls12", f"baseline: {run}"
    )
    (d / "run.yaml").write_text(text)
    return d / "run.yaml"


def test_a_run_id_freed_and_taken_in_one_batch_lands_both(settings):
    # Manifests land in one batch transaction (not one each): a manifest whose new version
    # gives up its run id frees it for another manifest of the same batch, as when each
    # committed at once.
    _write_run(settings, "a", "r1")
    assert [o.path for o in ingest(settings).landed] == ["keysize/a/run.yaml"]
    _write_run(settings, "a", "r3")  # a renames its run...
    _write_run(settings, "c", "r1")  # ...and c takes the old id, in the same ingest
    report = ingest(settings)
    assert sorted(o.path for o in report.landed) == ["keysize/a/run.yaml", "keysize/c/run.yaml"], [
        (o.path, o.status, o.reason) for o in report.outcomes
    ]
    assert report.set_aside == []
    # Two taking one free id in one batch: the first (in the batch's order) lands.
    _write_run(settings, "d", "r9")
    _write_run(settings, "e", "r9")
    report = ingest(settings)
    assert [o.path for o in report.landed] == ["keysize/d/run.yaml"]
    [aside] = report.set_aside
    assert aside.reason == "run r9 of study keysize is already defined by keysize/d/run.yaml"


def test_manifests_of_a_drop_commit_together_before_their_files(settings, monkeypatch):
    from mqcap.ledger import files

    commits = []
    real = files.FileLedger.transaction

    def counted(self):
        commits.append(1)
        return real(self)

    monkeypatch.setattr(files.FileLedger, "transaction", counted)
    for i in range(12):
        run = _write_run(settings, f"r{i}", f"run{i}").parent
        (run / "results.csv").write_text("rate_per_s,round_trip_us\n100,9000\n")
    report = ingest(settings)
    assert len(report.landed) == 24 and report.set_aside == []
    assert len(commits) == 2  # the 12 manifests, then the 12 results files
    # Every results file is attributed to its folder's run.
    import duckdb

    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        rows = con.execute(
            "select count(*) from meta.ingest_ledger where kind = 'driver_csv' "
            "and study = 'keysize' and run_id like 'run%' and status = 'loaded'"
        ).fetchall()
    finally:
        con.close()
    assert rows == [(12,)]


def test_libyaml_and_pyyaml_read_every_manifest_fixture_alike(monkeypatch):
    # Plain manifests are read by libyaml's parser (manifest._load_yaml): the same values and
    # key lines as PyYAML's own, on every run.yaml of the fixtures.
    import yaml

    assert hasattr(yaml, "CSafeLoader")  # the PyYAML wheels carry libyaml
    fixtures = Path(__file__).resolve().parent / "fixtures"
    paths = sorted(fixtures.rglob("run.yaml"))
    assert len(paths) > 10
    for path in paths:
        ctx = ParseContext(path=path, source_file=path.name)
        text = path.read_text()
        fast, fast_doc = manifest.load(ctx), manifest._load_yaml(text, ctx)
        with monkeypatch.context() as m:
            m.setattr(manifest, "_c_line_loader", lambda: None)
            slow, slow_doc = manifest.load(ctx), manifest._load_yaml(text, ctx)
        assert fast == slow and fast_doc == slow_doc, path
        assert (fast_doc.line, fast_doc.lines) == (slow_doc.line, slow_doc.lines), path


def test_only_plain_text_goes_to_libyaml_and_its_errors_are_pyyamls(tmp_path, monkeypatch):
    used = []
    real = manifest._c_line_loader()

    def counting():
        used.append(1)
        return real

    monkeypatch.setattr(manifest, "_c_line_loader", counting)
    plain = _load(tmp_path, GOOD)
    assert plain["run"] == "rsa2048-tls12"
    assert used
    # A lone CR: PyYAML's parser (its lines are the ones the messages name).
    text = GOOD.replace("qmgr: QM01\n", "qmgr: QM01\r")
    assert not manifest._PLAIN_YAML.fullmatch(text)
    # A YAML error in plain text: libyaml refuses it, PyYAML's message and line are given.
    err = _error(tmp_path, GOOD.replace("qmgr: QM01", "qmgr: [QM01"))
    with monkeypatch.context() as m:
        m.setattr(manifest, "_c_line_loader", lambda: None)
        want = _error(tmp_path, GOOD.replace("qmgr: QM01", "qmgr: [QM01"))
    assert str(err) == str(want) and err.line == want.line
