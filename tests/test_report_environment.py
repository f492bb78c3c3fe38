"""The environment section, the crypto section's per-run table and the starts chart read marts
(issue 34): where and when the study ran, the labels all runs share (dim_study), one row per
configuration (dim_configuration), the crypto rows the per-run table shows
(queries.crypto_per_run) and the CPU segments of a channel start (charts.bar_chart's fold).

An invented study of manifests only (no measurements) goes through ingest and build; every
expected value is written out."""

from __future__ import annotations

import textwrap
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from mqcap.sections import charts as ch
from mqcap.sections import queries as q
from mqcap.settings import Settings

from helpers import PROJECT

# Two configurations (study.yaml names one "Secure TLS"); every run has site=lab; the
# "secure_tls" runs all have tier=gold and mode=Secure_TLS (which the display name says, an
# underscore read as a space) and vary in sslrkeyc and threads; the plain runs have
# tier=silver, one of them no interval. Per run: configuration, interval start and end,
# platform, system, message size, threads, labels.
RUNS = {
    "s1": (
        "secure_tls",
        "2024-03-01T10:00:00",
        "2024-03-01T10:05:00",
        "zos",
        "SYSA",
        2048,
        1,
        {"site": "lab", "tier": "gold", "mode": "Secure_TLS", "sslrkeyc": "1024"},
    ),
    "s2": (
        "secure_tls",
        "2024-03-01T10:10:00",
        "2024-03-01T10:15:00",
        "zos",
        "SYSA",
        1048576,
        16,
        {"site": "lab", "tier": "gold", "mode": "Secure_TLS", "sslrkeyc": "0"},
    ),
    "s3": (
        "secure_tls",
        "2024-03-01T10:20:00",
        "2024-03-01T10:25:00",
        "zos",
        "SYSA",
        2048,
        2,
        {"site": "lab", "tier": "gold", "mode": "Secure_TLS", "sslrkeyc": "16384", "extra": "x"},
    ),
    "p1": (
        "plain",
        "2024-03-01T09:00:00",
        "2024-03-01T09:05:00",
        "zos",
        "SYSB",
        1000,
        1,
        {"site": "lab", "tier": "silver"},
    ),
    "p2": ("plain", None, None, "appliance", None, 1000, 1, {"site": "lab", "tier": "silver"}),
}


def _manifest(run: str) -> str:
    config, start, end, platform, system, size, threads, labels = RUNS[run]
    lines = ["study: envtest", f"run: {run}", f"configuration: {config}", f"platform: {platform}"]
    if start:
        lines += ["interval:", f"  start: {start}", f"  end: {end}"]
    if system:
        lines += [f"system: {system}", "qmgr: QML1"]
    if platform == "appliance":
        lines += ["host: mqa1", "hardware_model: M2002A"]
    lines += [
        "workload:",
        "  type: request_reply",
        f"  message_bytes: {size}",
        f"  threads: {threads}",
        "labels:",
    ]
    lines += [f'  {k}: "{v}"' for k, v in labels.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mqcap.build import build
    from mqcap.ingest import ingest

    root = tmp_path_factory.mktemp("envtest")
    study = root / "raw" / "envtest"
    for run in RUNS:
        (study / run).mkdir(parents=True)
        (study / run / "run.yaml").write_text(_manifest(run))
    (study / "study.yaml").write_text(
        textwrap.dedent("""\
        study: envtest
        configurations:
          - {configuration: secure_tls, display_name: Secure TLS}
          - {configuration: plain}
        """)
    )
    settings = Settings.load(
        warehouse=root / "warehouse.duckdb", raw=root / "raw", project_root=PROJECT
    )
    report = ingest(settings)
    assert report.set_aside == [], report.summary()
    assert build(settings).ok
    return root / "warehouse.duckdb"


@pytest.fixture
def marts(warehouse, monkeypatch):
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(warehouse))
    con = duckdb.connect(str(warehouse), read_only=True)
    yield lambda sql: con.execute(sql).fetchall()
    con.close()
    q.close()


pytestmark = [pytest.mark.e2e, pytest.mark.slow(minutes=2)]


def test_the_study_says_where_and_when_it_was_measured(marts):
    rows = marts(
        """select systems_measured, first_run_start_local, last_run_end_local,
                  runs_without_interval, run_count, shared_labels
           from marts.dim_study where study = 'envtest'"""
    )
    assert rows == [
        (
            "MQ Appliance, host mqa1, model M2002A (1 run); "
            "z/OS, system SYSA, queue manager QML1 (3 runs); "
            "z/OS, system SYSB, queue manager QML1 (1 run)",
            pd.Timestamp("2024-03-01 09:00:00").to_pydatetime(),
            pd.Timestamp("2024-03-01 10:25:00").to_pydatetime(),
            1,
            5,
            "site=lab",
        )
    ]


def test_each_configuration_says_what_its_runs_are(marts):
    table = q.configuration_table("envtest")
    assert table.astype(object).where(table.notna(), None).to_dict("records") == [
        {
            "display_name": "Secure TLS",
            "run_count": 3,
            "workload_types": "request_reply",
            "message_sizes": "2 KB, 1 MB",
            # SSLRKEYC in natural order (0, 1024, 16384), not as text.
            "variant_summary": "sslrkeyc: 0, 1024, 16384; threads: 1, 2, 16",
            # site=lab is every run's; mode=Secure_TLS the name says; extra=x is one run's.
            "shared_labels": "tier=gold",
        },
        {
            "display_name": "plain",
            "run_count": 2,
            "workload_types": "request_reply",
            "message_sizes": "1,000 bytes",
            "variant_summary": None,
            "shared_labels": "tier=silver",
        },
    ]


def test_a_column_no_configuration_fills_is_left_out(marts, monkeypatch):
    real = q._query

    def without_variants(sql, params=None):
        df = real(sql, params)
        return df.assign(variant_summary=None) if "dim_configuration" in sql else df

    monkeypatch.setattr(q, "_query", without_variants)
    assert "variant_summary" not in q.configuration_table("envtest")
    assert "shared_labels" in q.configuration_table("envtest")


def test_the_cpu_chart_folds_the_chin_and_tcpip_columns_into_segments():
    starts = pd.DataFrame(
        {
            "run_id": ["a", "b"],
            "series": ["A", "B"],
            "detail": ["", ""],
            "configuration": ["A", "B"],
            "operation": ["Start", "Start"],
            "rate_per_s": [10.0, 20.0],
            "chin_us_per_channel": [100.0, 200.0],
            "tcpip_us_per_channel": [50.0, None],
        }
    )
    spec = ch.bar_chart(
        starts,
        "cpu_us",
        "CPU µs per channel",
        {"A": "#111111", "B": "#222222"},
        "Figure 1",
        stack_by="role",
        fold={"chin_us_per_channel": "CHIN", "tcpip_us_per_channel": "TCPIP"},
    ).to_dict()
    data = next(iter(spec["datasets"].values()))
    # One row per segment with a value (b has no TCPIP figure), its role named by the fold.
    assert [(r["run_id"], r["role"], r["cpu_us"]) for r in data] == [
        ("a", "CHIN", 100.0),
        ("b", "CHIN", 200.0),
        ("a", "TCPIP", 50.0),
    ]
    assert {k for r in data for k in r} == {
        "run_id",
        "series",
        "detail",
        "configuration",
        "role",
        "cpu_us",
        "stack_order",
    }


def test_the_per_run_crypto_table_leaves_out_what_the_strength_table_shows(
    sample_warehouse, monkeypatch
):
    """keysize: its channel start runs are in the by-strength table, so the per-run table has
    the request/reply runs' LPAR rows only; the same rows the report selected in pandas."""
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(sample_warehouse))
    try:
        for study in ("keysize", "protection", "attls"):
            crypto = q.crypto(study)
            if crypto.empty:
                assert q.crypto_per_run(study).empty
                continue
            starts = crypto["workload_type"].isin(["channel_start", "channel_stop"])
            shown = crypto[~starts] if not q.crypto_by_strength(study).empty else crypto
            if (shown["scope"] == "lpar").any():
                shown = shown[shown["scope"] == "lpar"]
            got = q.crypto_per_run(study)
            assert list(got["crypto_key"]) == list(shown["crypto_key"]), study
            assert list(got["card_name"]) == [
                f"{t} {i}" for t, i in zip(shown["card_type"], shown["card_id"], strict=True)
            ]
        keysize = q.crypto_per_run("keysize")
        assert not keysize.empty
        assert set(keysize["scope"]) == {"lpar"}
        assert not keysize["workload_type"].isin(["channel_start", "channel_stop"]).any()
    finally:
        q.close()
