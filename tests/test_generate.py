"""The scenario generator: deterministic bytes, real formats, the published figures exactly, the
committed samples equal to a fresh generation, and flat memory when scaled."""

from __future__ import annotations

import tracemalloc
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqcap.generate import ScenarioError, generate, load_scenario
from mqcap.generate.scenario import exact_window, quantum
from mqcap.parsers import detect

from helpers import parse_file, tree_hashes

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "data" / "scenarios"
SAMPLE = ROOT / "data" / "sample"
KIND_BY_NAME = {
    "run.yaml": "manifest",
    "results.csv": "driver_csv",
    "rmf_workload.txt": "rmf_workload",
    "rmf_crypto.txt": "rmf_crypto",
    "chstatus.txt": "chstatus",
    "netstat.txt": "netstat",
    "mqsmf.bin": "smf_mq",
    "study.yaml": "study",
    "cph.out": "driver_cph",
    "amqsrua.txt": "amqsrua",
    "amqsmon.txt": "amqsmon",
}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    """Every scenario of data/scenarios generated once, at scale 1 with its own seed."""
    out = tmp_path_factory.mktemp("fresh")
    for path in sorted(SCENARIOS.glob("*.yaml")):
        generate(path, out)
    return out


def parsed(path: Path):
    parser = detect(path)
    assert parser is not None, path
    return parse_file(parser, path)


def driver(run: Path) -> dict:
    return parsed(run / "results.csv")["driver_results"].row(0, named=True)


def cpu_s(run: Path) -> dict[str, float]:
    df = parsed(run / "rmf_workload.txt")["rmf_workload"]
    sums = df.group_by("class_name").agg(pl.sum("cpu_s"))
    return dict(sums.select("class_name", "cpu_s").iter_rows())


def cost_us(run: Path) -> dict[str, float]:
    """Report-class CPU microseconds per transaction, as the marts compute it."""
    txns = driver(run)["transactions"]
    return {job: round(s * 1e6 / txns, 6) for job, s in cpu_s(run).items()}


# -- determinism ------------------------------------------------------------------------------


def test_same_seed_same_bytes_other_seed_other_noise_only(tmp_path):
    doc = load_scenario(SCENARIOS / "attls.yaml")
    generate(doc, tmp_path / "a", seed=11)
    generate(doc, tmp_path / "b", seed=11)
    generate(doc, tmp_path / "c", seed=12)
    a, b, c = (tree_hashes(tmp_path / x) for x in "abc")
    assert a == b
    assert a.keys() == c.keys()
    changed = {k.split("/")[-1] for k in a if a[k] != c[k]}
    # Noise moves interval shares, snapshots, polls and SMF figures; never the figures.
    assert changed == {"rmf_workload.txt", "chstatus.txt", "netstat.txt", "mqsmf.bin"}
    one_m = "attls/attls-chacha-1m/"
    assert a[one_m + "results.csv"] == c[one_m + "results.csv"]
    assert cost_us(tmp_path / "a" / one_m) == cost_us(tmp_path / "c" / one_m)


# -- real formats -----------------------------------------------------------------------------


def test_every_generated_file_is_recognised_as_its_kind_and_parses(fresh):
    seen: dict[str, int] = {}
    for path in sorted(p for p in fresh.rglob("*") if p.is_file()):
        parser = detect(path)
        assert parser is not None and parser.kind == KIND_BY_NAME[path.name], path
        result = parse_file(parser, path)
        assert sum(df.height for df in result.tables.values()) > 0, path
        seen[parser.kind] = seen.get(parser.kind, 0) + 1
    # attls + keysize + protection (82 runs), streaming (9), threadsweep (320, mq-cph output;
    # its 20 local 2 KB M2002A runs with amqsrua and amqsmon output), encsweep (144, mq-cph
    # output, scenario and model written as labels)
    assert seen == {
        "manifest": 555,
        "study": 2,
        "driver_csv": 91,
        "driver_cph": 464,
        "rmf_workload": 91,
        "rmf_crypto": 26,
        "chstatus": 43,
        "netstat": 10,
        "smf_mq": 43,
        "amqsrua": 20,
        "amqsmon": 20,
    }


def test_manifest_names_baseline_interval_and_jobs(fresh):
    m = parsed(fresh / "attls" / "attls-chacha-1m" / "run.yaml")
    run = m["run_manifest"].row(0, named=True)
    assert run["baseline_run_id"] == "ssl-chacha-1m"
    assert run["configuration"] == "MQ + AT-TLS"
    assert "not captured on a real system" in run["description"]
    assert (run["interval_end"] - run["interval_start"]).total_seconds() == 358.722
    assert run["transactions"] == 375
    roles = dict(m["run_job_role"].select("jobname", "role").iter_rows())
    assert roles == {"QML1MSTR": "MSTR", "QML1CHIN": "CHIN", "TCPIP": "TCPIP"}


# -- attls: seed 000 --------------------------------------------------------------------------

CHACHA_RTT = {
    "ssl": [2172, 11946, 22699, 44452, 693844],
    "attls": [2199, 12840, 25342, 51707, 956592],
}


def test_attls_chacha_round_trips_are_the_blog_table(fresh):
    for prefix, expected in CHACHA_RTT.items():
        got = [
            driver(fresh / "attls" / f"{prefix}-chacha-{size}")["round_trip_us"]
            for size in ("2k", "16k", "32k", "64k", "1m")
        ]
        assert got == expected
    increase = (956592 - 693844) / 693844 * 100
    assert round(increase, 2) == 37.87


def test_attls_chacha_costs_per_transaction_are_exact(fresh):
    at = fresh / "attls"
    assert cost_us(at / "attls-chacha-16k") == {"QML1MSTR": 25, "QML1CHIN": 2200, "TCPIP": 2200}
    assert cost_us(at / "attls-chacha-1m") == {"QML1MSTR": 400, "QML1CHIN": 133000, "TCPIP": 133000}
    assert cost_us(at / "ssl-chacha-2k")["TCPIP"] * 24 == cost_us(at / "attls-chacha-2k")["TCPIP"]
    # transactions = rate x interval exactly: 1 MB AT-TLS, 375 round trips of 956,592 us
    d = driver(at / "attls-chacha-1m")
    assert d["transactions"] == 375 and d["rate_per_s"] == 1.045
    total = {r: sum(cost_us(at / f"{r}-chacha-64k").values()) for r in ("ssl", "attls")}
    assert round((total["ssl"] - total["attls"]) / total["ssl"] * 100, 1) == 1.5


def test_attls_channel_status_of_the_1mb_runs(fresh):
    ranges = {"ssl": (2000, 8000), "attls": (28000, 130000)}
    for prefix, (lo, hi) in ranges.items():
        attrs = parsed(fresh / "attls" / f"{prefix}-chacha-1m" / "chstatus.txt")["chstatus_attr"]
        xb = attrs.filter(pl.col("key") == "XBATCHSZ")["value"].unique().to_list()
        assert xb == ["5,5"]
        net = attrs.filter(pl.col("key") == "NETTIME")["value"].to_list()
        short = [int(v.split(",")[0]) for v in net]
        assert len(short) == 5 and all(lo <= v <= hi for v in short), short


def netstat_series(run: Path) -> pl.DataFrame:
    pairs = parsed(run / "netstat.txt")["netstat_pair"]
    wide = pairs.filter(
        pl.col("name").is_in(["CongestionWindow", "Smooth trip time", "SmoothTripVariance"])
    ).pivot(on="name", index="conn_no", values="value")
    return wide.select(
        "conn_no",
        pl.col("CongestionWindow").cast(pl.Int64).alias("cwnd"),
        pl.col("Smooth trip time").cast(pl.Float64).alias("srtt"),
        pl.col("SmoothTripVariance").cast(pl.Float64).alias("var"),
    )


def test_attls_netstat_resets_where_system_ssl_grows_smoothly(fresh):
    ssl = netstat_series(fresh / "attls" / "ssl-chacha-1m")
    attls = netstat_series(fresh / "attls" / "attls-chacha-1m")
    ssl_first = ssl.filter(pl.col("conn_no") % 2 == 1)["cwnd"]  # the sender channel's socket
    attls_first = attls.filter(pl.col("conn_no") % 2 == 1)["cwnd"]
    assert ssl_first.diff().drop_nulls().min() > 0  # steady, smooth increase
    assert (attls_first.diff().drop_nulls() < 0).sum() >= 3  # grows, then resets
    assert attls["srtt"].mean() > 5 * ssl["srtt"].mean()
    assert attls["var"].mean() > 5 * ssl["var"].mean()


def test_attls_channel_start_and_stop_rates_and_costs(fresh):
    at = fresh / "attls"
    configs = ("none", "ssl-tls12", "ssl-chacha", "attls-tls12", "attls-chacha")
    rate = {c: driver(at / f"{c}-start")["rate_per_s"] for c in configs}
    assert rate["ssl-chacha"] / rate["none"] == 0.33 and rate["ssl-tls12"] / rate["none"] == 0.5
    assert rate["attls-chacha"] / rate["none"] == 0.75 and rate["attls-tls12"] / rate["none"] == 0.8
    none, ssl13sw = cost_us(at / "none-start"), cost_us(at / "ssl-chacha-start")
    assert ssl13sw["QML1CHIN"] / none["QML1CHIN"] == 3.5
    tcpip = [cost_us(at / f"attls-{c}-start")["TCPIP"] for c in ("tls12", "tls13hw", "chacha")]
    assert tcpip == [210, 530, 690]
    assert cost_us(at / "ssl-tls12-stop")["QML1CHIN"] == 950
    assert cost_us(at / "attls-tls12-stop")["QML1CHIN"] == 670


# -- keysize: seed 001 ------------------------------------------------------------------------

UTIL = {
    "rsa-aes256": [1.4, 4.2, 25.0],
    "ecdsa-aes256": [8.9, 9.7, 21.0],
    "ecdhe-rsa-aes256": [3.6, 6.3, 21.0],
}
STRENGTHS = ("medium", "high", "very-high")


def test_keysize_coprocessor_utilisation_is_the_blog_table(fresh):
    ks = fresh / "keysize"
    for cipher, expected in UTIL.items():
        got = []
        for strength in STRENGTHS:
            df = parsed(ks / f"tls12-{cipher}-{strength}-start" / "rmf_crypto.txt")["rmf_crypto"]
            assert df["card_type"].unique().to_list() == ["CEX8C"]
            assert sorted(df["scope"].to_list()) == ["CPC", "LPAR"]
            got.append(df["util_pct"].unique().item())
        assert got == expected
    tls13 = [
        parsed(ks / f"tls13-aes256-{s}-start" / "rmf_crypto.txt")["rmf_crypto"]["util_pct"][0]
        for s in ("high", "very-high")
    ]
    assert tls13 == [4.6, 26.0]
    assert not (ks / "tls13-aes256-medium-start").exists()


def start_time_increase(ks: Path, cipher: str) -> tuple[float, float]:
    t = [1e6 / driver(ks / f"{cipher}-{s}-start")["rate_per_s"] for s in STRENGTHS]
    return (round((t[1] - t[0]) / t[0] * 100, 6), round((t[2] - t[1]) / t[1] * 100, 6))


def test_keysize_start_time_increases_reach_the_published_maxima(fresh):
    ks = fresh / "keysize"
    maxima = {"rsa": (25, 125), "ecdsa": (5, 45), "ecdhe-rsa": (10, 70)}
    for prefix, expected in maxima.items():
        incs = [start_time_increase(ks, f"tls12-{prefix}-{c}") for c in ("aes256", "aes128")]
        assert (max(i[0] for i in incs), max(i[1] for i in incs)) == expected
    t = [1e6 / driver(ks / f"tls13-aes256-{s}-start")["rate_per_s"] for s in ("high", "very-high")]
    assert t[1] / t[0] == 2.0


def test_keysize_chin_cost_per_start(fresh):
    ks = fresh / "keysize"

    def chin(cipher: str, strength: str) -> float:
        return cost_us(ks / f"{cipher}-{strength}-start")["QMK1CHIN"]

    assert (
        round(chin("tls12-rsa-aes256", "very-high") / chin("tls12-rsa-aes256", "high"), 4) == 1.07
    )
    assert chin("tls12-ecdsa-aes128", "very-high") == 1520.25  # 1500 + 1.35%
    assert (
        chin("tls12-ecdhe-rsa-aes256", "very-high") / chin("tls12-ecdhe-rsa-aes256", "high") == 1.03
    )
    assert chin("tls13-aes256", "very-high") / chin("tls13-aes256", "high") == 1.08


def test_keysize_sslrkeyc_rates_and_renegotiation_load(fresh):
    ks = fresh / "keysize"
    runs = ("rkey0-2048", "rkey0-4096", "rkey1m-2048", "rkey1m-4096")
    rates = [driver(ks / f"{r}-32k")["rate_per_s"] for r in runs]
    assert rates == [6676, 6676, 1830, 1035]
    crypto = parsed(ks / "rkey1m-4096-32k" / "rmf_crypto.txt")["rmf_crypto"]
    assert crypto["util_pct"].unique().to_list() == [25.9]
    # a renegotiation every 16 transactions at about 4 ms of coprocessor time each
    assert abs(crypto["rate_per_s"].mean() - 1035 / 16) < 2


# -- protection: seed 003 ---------------------------------------------------------------------

TOTALS = {
    "none": [365, 429, 1072],
    "integrity": [2786, 3606, 13217],
    "weak10": [6750, 10012, 45765],
}
FITS = {"none": (0.00714, 357.7), "integrity": (0.10594, 2616.5), "weak10": (0.39537, 6213.5)}


def test_protection_totals_parts_and_fits_are_the_papers(fresh):
    pr = fresh / "protection"
    sizes = [1000, 10000, 100000]
    for config, expected in TOTALS.items():
        totals = [sum(cost_us(pr / f"{config}-{s}b").values()) for s in sizes]
        assert totals == expected
        slope, intercept = np.polyfit(sizes, totals, 1)
        assert (round(slope, 5), round(intercept, 1)) == FITS[config]
    assert cost_us(pr / "integrity-10000b") == {
        "OEMPUTX": 1177, "PDMQD": 2344, "ICSF": 82, "CSQ1MSTR": 3,
    }  # fmt: skip
    weak = pr / "weak10-100000b"
    assert cpu_s(weak)["PDMQD"] == round(42146 * driver(weak)["transactions"] / 1e6, 3)
    recipients = [sum(cost_us(pr / f"weak-r{n}").values()) for n in (1, 3, 10)]
    assert recipients == [4174, 4885, 6748]


# -- SMF hook ---------------------------------------------------------------------------------


def test_smf_dump_carries_the_channels_and_chin_tasks(fresh):
    smf = parsed(fresh / "attls" / "attls-chacha-1m" / "mqsmf.bin")
    qcst = smf["smf_qcst"]
    assert sorted(qcst["chl_name"].unique().to_list()) == ["QML1.TO.QML2", "QML2.TO.QML1"]
    assert qcst["msg_all_count"].sum() == 2 * 375
    sender = qcst.filter(pl.col("chl_name") == "QML1.TO.QML2")
    assert sender["net_time_min"].min() >= 28000 and sender["net_time_max"].max() <= 130000
    assert smf["smf_qcct"].height == 3  # one per RMF interval


# -- the committed samples --------------------------------------------------------------------


def test_committed_sample_is_a_fresh_generation_of_the_scenarios(fresh):
    """Nobody edits data/sample by hand: regenerate it with
    ``python -m mqcap.generate data/scenarios/*.yaml data/sample --clean``."""
    assert tree_hashes(SAMPLE) == tree_hashes(fresh)
    size = sum(p.stat().st_size for p in SAMPLE.rglob("*") if p.is_file())
    assert size < 3_000_000


# -- scale and memory -------------------------------------------------------------------------


def _peak_mb(doc: dict, out: Path, scale: float) -> tuple[float, int]:
    tracemalloc.start()
    files = generate(doc, out, scale=scale)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return peak, sum(f.stat().st_size for f in files)


def test_scaled_generation_streams_with_flat_memory(tmp_path):
    doc = load_scenario(SCENARIOS / "attls.yaml")
    doc["groups"] = [g for g in doc["groups"] if "ssl-chacha" in g["configurations"]][:1]
    small_peak, small_bytes = _peak_mb(doc, tmp_path / "s", 1)
    big_peak, big_bytes = _peak_mb(doc, tmp_path / "b", 15)
    assert big_bytes > 12 * small_bytes
    assert big_peak < 1.5 * small_peak + 1  # MB: memory does not follow the volume
    runs = sorted(p.name for p in (tmp_path / "b" / "attls").iterdir())
    assert len(runs) == 30 and "attls-chacha-1m.r3" in runs
    m = parsed(tmp_path / "b" / "attls" / "attls-chacha-1m.r3" / "run.yaml")["run_manifest"]
    assert m["baseline_run_id"].item() == "ssl-chacha-1m.r3"
    # Density 5x: five times the polls of the scale-1 run (10 s -> 2 s apart).
    polls = parsed(tmp_path / "b" / "attls" / "attls-chacha-1m" / "netstat.txt")["netstat_conn"]
    assert polls["poll_no"].max() == 179


# -- the arithmetic ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "costs", "expected"),
    [
        (Fraction(1_000_000, 2172), [1300, 24, 20], (138000, 299736)),
        (Fraction(6676), [30, 310, 65], (2002800, 300000)),
        (Fraction(1_000_000, 956592), [400, 133000], (375, 358722)),
    ],
)
def test_transactions_and_interval_make_cpu_milliseconds_whole(rate, costs, expected):
    q = quantum([Fraction(c) for c in costs])
    txns, ms = exact_window(rate, q, 300_000)
    assert (txns, ms) == expected
    assert rate * ms / 1000 == txns
    assert all((c * txns) % 1000 == 0 for c in costs)


@settings(max_examples=200, deadline=None)
@given(
    rtt=st.integers(100, 2_000_000),
    threads=st.integers(1, 20),
    costs=st.lists(st.integers(0, 300_000), min_size=1, max_size=5),
)
def test_exact_window_holds_for_any_round_trip_and_costs(rtt, threads, costs):
    rate = Fraction(1_000_000 * threads, rtt)
    txns, ms = exact_window(rate, quantum([Fraction(c) for c in costs]), 300_000)
    assert txns > 0 and ms > 0
    assert rate * ms / 1000 == txns
    assert all((c * txns) % 1000 == 0 for c in costs)


def test_unknown_configuration_is_a_scenario_error(tmp_path):
    doc = load_scenario(SCENARIOS / "protection.yaml")
    doc["groups"][0]["configurations"].append("nosuch")
    with pytest.raises(ScenarioError, match="unknown configuration 'nosuch'"):
        generate(doc, tmp_path)


def test_channel_start_cost_that_cannot_be_exact_is_rounded_with_a_warning(tmp_path):
    doc = {
        "study": "mini",
        "start": "2024-01-01T00:00:00",
        "jobs": {"Q1CHIN": "CHIN"},
        "configurations": {"a": {"name": "A"}},
        "points": {"start": {"type": "channel_start", "channels": 4000}},
        "groups": [
            {
                "configurations": ["a"],
                "points": ["start"],
                "rate_per_s": {"a": 300},
                "cpu_us": {"Q1CHIN": {"a": 600.1}},
            }
        ],
    }
    with pytest.warns(UserWarning, match="600.1 us x 4000 channels rounded"):
        generate(doc, tmp_path)
    run = tmp_path / "mini" / "a-start"
    assert cpu_s(run) == {"Q1CHIN": 2.4}  # 2400.4 ms printed to the millisecond
    assert driver(run)["round_trip_us"] == 3333.333
