"""The bundled sample studies reproduce the published figures through the whole pipeline:
raw files in data/sample/ -> ingest -> dbt build -> marts. Nothing here is typed into a report;
the expected values are the seed documents' own numbers."""

from __future__ import annotations

import duckdb
import pytest

from helpers import PROJECT

pytestmark = [pytest.mark.e2e, pytest.mark.slow(minutes=3)]


@pytest.fixture(scope="module")
def marts(sample_warehouse):
    # data/sample ingested and built once for the session (tests/conftest.py), read only here.
    con = duckdb.connect(str(sample_warehouse), read_only=True)
    yield lambda sql: con.execute(sql).fetchall()
    con.close()


def test_000_round_trip_increase_of_at_tls_over_system_ssl(marts):
    # Seed 000, "% increase in round-trip time" (TLS_CHACHA20_POLY1305_SHA256).
    rows = marts(
        """select message_bytes, baseline_value, variant_value, round(pct_change, 2)
           from marts.fct_comparison
           where study = 'attls' and measure = 'round_trip_us' and run_id like 'attls-chacha-%'
             and message_bytes is not null
           order by message_bytes"""
    )
    assert rows == [
        (2048, 2172.0, 2199.0, 1.24),
        (16384, 11946.0, 12840.0, 7.48),
        (32768, 22699.0, 25342.0, 11.64),
        (65536, 44452.0, 51707.0, 16.32),
        (1048576, 693844.0, 956592.0, 37.87),
    ]


def test_000_at_tls_chacha_costs_chin_and_tcpip(marts):
    # Seed 000 notes: AT-TLS TLS 1.3 (software): CHIN and TCPIP about equal at 2.2 CPU ms per
    # transaction for 16 KB, 4.3 ms for 32 KB, 8.4 ms for 64 KB, 133 ms for 1 MB.
    rows = marts(
        """select message_bytes, role, round(cpu_us_per_txn)
           from marts.fct_address_space_cost
           where run_id like 'attls-chacha-%' and role in ('CHIN', 'TCPIP')
             and message_bytes >= 16384 order by message_bytes, role"""
    )
    by_size = {}
    for size, role, us in rows:
        by_size.setdefault(size, {})[role] = us
    # "approximately equal, at X CPU milliseconds": X to the blog's precision, within 2%.
    published_ms = {16384: 2.2, 32768: 4.3, 65536: 8.4, 1048576: 133}
    assert set(by_size) == set(published_ms)
    for size, ms in published_ms.items():
        chin, tcpip = by_size[size]["CHIN"], by_size[size]["TCPIP"]
        mean_ms = (chin + tcpip) / 2 / 1000
        assert round(mean_ms, 1 if ms < 100 else 0) == ms
        assert abs(chin - tcpip) / (chin + tcpip) * 2 < 0.02


def test_000_channel_status_and_netstat_of_the_1mb_runs(marts):
    status = dict(
        (r[0], r[1:])
        for r in marts(
            # The sender channel (the receiver has no NETTIME): one row per run, whatever order
            # the rows come in.
            """select run_id, xbatchsz_short_max, nettime_short_p50_us, nettime_short_max_us
               from marts.fct_channel_status
               where run_id in ('ssl-chacha-1m', 'attls-chacha-1m')
                 and nettime_short_p50_us is not null"""
        )
    )
    # XBATCHSZ 5 for both; NETTIME 2-8 ms with System SSL, 28-130 ms with AT-TLS.
    assert status["ssl-chacha-1m"][0] == 5 and status["attls-chacha-1m"][0] == 5
    assert 2000 <= status["ssl-chacha-1m"][1] <= status["ssl-chacha-1m"][2] <= 8000
    assert 28000 <= status["attls-chacha-1m"][1] <= status["attls-chacha-1m"][2] <= 130000
    netstat = dict(
        (r[0], r[1:])
        for r in marts(
            """select run_id, sum(cwnd_drops), avg(srtt_mean_ms) from marts.fct_netstat_summary
               where run_id in ('ssl-chacha-1m', 'attls-chacha-1m') group by run_id"""
        )
    )
    # AT-TLS: the congestion window resets; System SSL grows smoothly; higher smooth trip time.
    assert netstat["ssl-chacha-1m"][0] == 0 and netstat["attls-chacha-1m"][0] >= 3
    assert netstat["attls-chacha-1m"][1] > 5 * netstat["ssl-chacha-1m"][1]


def test_001_start_time_increase_by_key_strength(marts):
    # Seed 001: "% increase in time to start a TLS-protected channel", up to, per prefix.
    rows = marts(
        """select cipher_prefix, from_key_strength, round(max(time_increase_pct), 2)
           from marts.fct_channel_start_key_steps where study = 'keysize'
           group by all order by 1, 2"""
    )
    assert rows == [
        ("TLS13", "high", 100.0),  # "approximately twice as long"
        ("TLS_ECDHE_ECDSA", "high", 45.0),
        ("TLS_ECDHE_ECDSA", "medium", 5.0),
        ("TLS_ECDHE_RSA", "high", 70.0),
        ("TLS_ECDHE_RSA", "medium", 10.0),
        ("TLS_RSA", "high", 125.0),
        ("TLS_RSA", "medium", 25.0),
    ]
    # The report's table is the mart that holds these maxima (the table only lays them out).
    assert rows == marts(
        """select cipher_prefix, from_key_strength, round(time_increase_up_to_pct, 2)
           from marts.fct_channel_start_strength_steps where study = 'keysize' order by 1, 2"""
    )


def test_001_coprocessor_utilisation_table(marts):
    rows = marts(
        """select tls_version, cipher_prefix, key_strength, round(max(util_pct), 1)
           from marts.fct_crypto
           where study = 'keysize' and crypto_function = 'TOTAL' and run_id like '%-start'
           group by all order by 1, 2, 3"""
    )
    assert rows == [
        ("1.2", "TLS_ECDHE_ECDSA", "high", 9.7),
        ("1.2", "TLS_ECDHE_ECDSA", "medium", 8.9),
        ("1.2", "TLS_ECDHE_ECDSA", "very_high", 21.0),
        ("1.2", "TLS_ECDHE_RSA", "high", 6.3),
        ("1.2", "TLS_ECDHE_RSA", "medium", 3.6),
        ("1.2", "TLS_ECDHE_RSA", "very_high", 21.0),
        ("1.2", "TLS_RSA", "high", 4.2),
        ("1.2", "TLS_RSA", "medium", 1.4),
        ("1.2", "TLS_RSA", "very_high", 25.0),
        ("1.3", "TLS13", "high", 4.6),
        ("1.3", "TLS13", "very_high", 26.0),
    ]
    # The report's table is the mart that holds these maxima (the table only lays them out).
    assert rows == marts(
        """select tls_version, cipher_prefix, key_strength, round(util_up_to_pct, 1)
           from marts.fct_crypto_by_strength where study = 'keysize' order by 1, 2, 3"""
    )


def test_001_sslrkeyc_transaction_rates(marts):
    rows = marts(
        """select run_id, rate_per_s from marts.fct_driver_results
           where study = 'keysize' and run_id like 'rkey%' order by run_id"""
    )
    assert rows == [
        ("rkey0-2048-32k", 6676.0),
        ("rkey0-4096-32k", 6676.0),
        ("rkey1m-2048-32k", 1830.0),
        ("rkey1m-4096-32k", 1035.0),
    ]


def test_003_fits_by_protection_level(marts):
    rows = marts(
        """select configuration, round(slope_a, 5), round(intercept_b, 1) from marts.fct_fit
           where study = 'protection' and measure = 'cpu_us_per_txn' and subject = 'TOTAL'
             and x_name = 'message_bytes' order by slope_a"""
    )
    assert rows == [
        ("No protection", 0.00714, 357.7),
        ("Integrity", 0.10594, 2616.5),
        ("Weak encryption, 10 recipients", 0.39537, 6213.5),
    ]


# -- the generated thread-sweep and streaming studies (issue 15) -----------------------------
# Expected values come from the scenario files through the generator's own curve (the inputs),
# or from the raw files read here (CHSTATUS, SMF landing rows): never from the marts.

SCENARIOS = PROJECT / "data" / "scenarios"
SAMPLE = PROJECT / "data" / "sample"


def _expected_sweep() -> dict:
    """(configuration, scenario, model, size) -> {threads: rate} from threadsweep.yaml."""
    import yaml

    from mqcap.generate.sweep import sweep_rate

    spec = yaml.safe_load((SCENARIOS / "threadsweep.yaml").read_text())["thread_sweep"]
    out = {}
    for scen in spec["scenarios"]:
        for model in spec["hardware_models"]:
            for feat in spec["features"].values():
                for size, peak, rt in zip(
                    spec["message_bytes"],
                    spec["peak_rate_per_s"],
                    spec["single_round_trip_us"],
                    strict=True,
                ):
                    for dim, key in (("scenario", scen), ("hardware_model", model)):
                        peak *= spec["factors"][dim][key]["peak"]
                        rt *= spec["factors"][dim][key]["round_trip"]
                    fkey = next(k for k, v in spec["features"].items() if v is feat)
                    peak *= spec["factors"]["feature"][fkey]["peak"]
                    rt *= spec["factors"]["feature"][fkey]["round_trip"]
                    out[(feat["name"], scen, model, size)] = {
                        t: sweep_rate(peak, rt, t) for t in spec["threads"]
                    }
    return out


def _pct(new: float, old: float) -> float:
    return (new - old) / old * 100


def test_thread_sweep_maximum_throughput_and_its_change_against_the_baseline(marts):
    expected = _expected_sweep()
    rows = marts(
        """select configuration, scenario, hardware_model, message_bytes, max_rate_per_s,
                  threads_at_max, max_rate_pct_change, baseline_configuration
           from marts.fct_sweep_summary where study = 'threadsweep'"""
    )
    assert len(rows) == 32  # 2 configurations x 2 scenarios x 2 models x 4 sizes
    for cfg, scen, model, size, max_rate, at, pct, base_cfg in rows:
        curve = expected[(cfg, scen, model, size)]
        base = expected[("Feature off", scen, model, size)]
        assert max_rate == pytest.approx(max(curve.values()), abs=0.005)
        assert at == min(t for t, r in curve.items() if r == max(curve.values()))
        if cfg == "Feature off":  # the baseline: no comparison with itself
            assert (base_cfg, pct) == (None, None)
            continue
        assert base_cfg == "Feature off"  # the runs' declared baselines
        assert pct == pytest.approx(_pct(max(curve.values()), max(base.values())), abs=1e-6)
    by_cfg = {r[0]: r[6] for r in rows if (r[1], r[2], r[3]) == ("local", "M2002A", 2048)}
    assert round(by_cfg["Feature on"], 2) == -18.0 and by_cfg["Feature off"] is None


def test_thread_sweep_single_thread_latency_change_and_saturation(marts):
    expected = _expected_sweep()
    rows = marts(
        """select configuration, scenario, hardware_model, message_bytes,
                  single_thread_round_trip_us, single_thread_round_trip_pct_change, saturates
           from marts.fct_sweep_summary where study = 'threadsweep'"""
    )
    saturating = 0
    for cfg, scen, model, size, rt1, pct, saturates in rows:
        curve = expected[(cfg, scen, model, size)]
        base = expected[("Feature off", scen, model, size)]
        assert rt1 == pytest.approx(1e6 / curve[1], rel=1e-9)
        if cfg == "Feature off":
            assert pct is None
        else:
            assert pct == pytest.approx(_pct(1e6 / curve[1], 1e6 / base[1]), abs=1e-6)
        # the last doubling: 100 -> 200 threads
        assert saturates == ((curve[200] - curve[100]) / curve[100] * 100 < 5)
        saturating += saturates
    assert saturating == 28  # 2 series of 32 (256 bytes, client, M2002B) still climb


def test_thread_sweep_runs_have_no_interval_and_name_their_platform(marts):
    assert marts(
        """select count(*), count(interval_start_local), min(platform), max(platform),
                  count(distinct hardware_model), count(distinct scenario), count(distinct host)
           from marts.dim_run where study = 'threadsweep'"""
    ) == [(320, 0, "appliance", "appliance", 2, 2, 2)]
    assert marts(
        """select title, baseline_configuration, group_by_json, configuration_count, run_count,
                  shapes_json, platforms
           from marts.dim_study where study = 'threadsweep'"""
    ) == [
        (
            "Persistent request/responder on two appliance models, feature off and on",
            "Feature off",
            '["scenario", "hardware_model"]',
            2,
            320,
            '["message_size_sweep","thread_sweep"]',
            "appliance",
        )
    ]
    assert marts(
        """select configuration, display_name, sort_order, is_baseline, baseline_source
           from marts.dim_configuration where study = 'threadsweep' order by sort_order"""
    ) == [
        ("Feature off", "Feature off (baseline)", 1, True, "study_file"),
        ("Feature on", "Feature on", 2, False, "study_file"),
    ]


def test_thread_sweep_queue_manager_resources_from_amqsrua_and_amqsmon(marts):
    # The 20 local 2 KB runs on M2002A carry amqsrua and amqsmon output (study clock UTC+1).
    assert marts(
        """select count(distinct m.run_key), min(r.scenario), max(r.scenario),
                  min(r.hardware_model), max(r.hardware_model), min(r.message_bytes),
                  max(r.message_bytes), min(r.utc_offset_minutes), max(r.clock_source)
           from marts.fct_run_measures m join marts.dim_run r using (run_key)
           where r.study = 'threadsweep' and m.measure = 'qmgr_cpu_pct'"""
    ) == [(20, "local", "local", "M2002A", "M2002A", 2048, 2048, 60, "study")]
    # The two sources count the same calls: per run, amqsrua's queue-manager MQPUT rate over its
    # publications equals amqsmon's over its one 60-second record.
    rows = marts(
        """select run_id, measure_source,
                  sum(measure_value * interval_s) / sum(interval_s) as rate
           from marts.fct_distributed_series
           where study = 'threadsweep' and measure = 'mqput_rate_per_s' and subject = 'QMGR'
           group by run_id, measure_source order by run_id, measure_source"""
    )
    by_run: dict[str, dict[str, float]] = {}
    for run, source, rate in rows:
        by_run.setdefault(run, {})[source] = rate
    assert len(by_run) == 20
    for run, rates in by_run.items():
        assert rates["amqsrua"] == pytest.approx(rates["amqsmon"], rel=1e-12), run
    # 6 publications x (host CPU, qmgr CPU, latency, 2 log byte counts, 2 QMGR rates, 4 queue
    # rates) + amqsmon's MQI (2) and queue (4) rates, per run.
    assert marts(
        "select count(*) from marts.fct_distributed_series where study = 'threadsweep'"
    ) == [(20 * (6 * 11 + 6),)]


def test_no_straight_line_fit_of_rate_or_round_trip_against_threads(marts):
    assert marts(
        """select count(*) from marts.fct_fit
           where x_name = 'threads' and measure in ('rate_per_s', 'round_trip_us')"""
    ) == [(0,)]
    assert marts("select count(*) from marts.fct_thread_sweep where study = 'threadsweep'") == [
        (320,)
    ]


def _xqtime_p95(run: str) -> float:
    """XQTIME short-term p95 (linear interpolation, as percentile_cont) from the raw capture."""
    import re

    text = (SAMPLE / "streaming" / run / "chstatus.txt").read_text()
    values = sorted(int(v) for v in re.findall(r"XQTIME\((\d+),\d+\)", text))
    pos = 0.95 * (len(values) - 1)
    lo = int(pos)
    return values[lo] + (values[min(lo + 1, len(values) - 1)] - values[lo]) * (pos - lo)


def test_rate_target_achieved_against_target_and_xqtime(marts):
    rows = marts(
        """select run_id, target_rate_per_s, achieved_rate_per_s, achieved_pct, sustained,
                  xqtime_p95_us, backlog_growing
           from marts.fct_rate_target where study = 'streaming' order by run_id"""
    )
    got = {r[0]: r[1:] for r in rows}
    assert len(got) == 9
    # the scenario's rates against its targets (20000, 4000, 250 per second)
    assert {k: (v[0], v[1], round(v[2], 2), v[3]) for k, v in got.items()} == {
        "notls-4k": (20000.0, 20000.0, 100.0, True),
        "notls-64k": (4000.0, 4000.0, 100.0, True),
        "notls-1m": (250.0, 250.0, 100.0, True),
        "tls12-4k": (20000.0, 19960.0, 99.8, True),
        "tls12-64k": (4000.0, 3980.0, 99.5, True),
        "tls12-1m": (250.0, 215.0, 86.0, False),
        "tls13-4k": (20000.0, 19800.0, 99.0, True),
        "tls13-64k": (4000.0, 3400.0, 85.0, False),
        "tls13-1m": (250.0, 160.0, 64.0, False),
    }
    for run, v in got.items():
        assert v[4] == pytest.approx(_xqtime_p95(run))
        assert v[5] == (run in ("tls12-1m", "tls13-64k", "tls13-1m"))
    measured = marts(
        """select measure_value from marts.fct_run_measures
           where run_key = 'streaming/tls13-1m' and measure = 'xqtime_short_p95_us'"""
    )
    assert measured == [(pytest.approx(_xqtime_p95("tls13-1m")),)]


def test_streaming_results_load_without_a_round_trip(marts):
    assert marts(
        """select count(*), count(round_trip_us), count(target_rate_per_s)
           from marts.fct_driver_results where study = 'streaming'"""
    ) == [(9, 0, 9)]


def test_cost_delta_per_address_space_and_the_mq_subtotal(marts):
    rows = marts(
        """select role, cpu_us_per_txn, baseline_cpu_us_per_txn, delta_us_per_txn,
                  round(pct_change, 4)
           from marts.fct_cost_delta where run_key = 'streaming/tls13-1m' order by role_order"""
    )
    # streaming.yaml: tls13 1 MB MSTR 180, CHIN 5000, TCPIP 900; baseline notls 180, 1500, 900
    assert rows == [
        ("MSTR", 180.0, 180.0, 0.0, 0.0),
        ("CHIN", 5000.0, 1500.0, 3500.0, round(3500 / 1500 * 100, 4)),
        ("MQ", 5180.0, 1680.0, 3500.0, round(3500 / 1680 * 100, 4)),
        ("TCPIP", 900.0, 900.0, 0.0, 0.0),
        ("TOTAL", 6080.0, 2580.0, 3500.0, round(3500 / 2580 * 100, 4)),
    ]


def test_adapter_wait_per_request_from_the_smf_task_records(marts):
    (expected,) = marts(
        """select sum(task_elapsed_time_us - task_cpu_time_us) * 1.0 / sum(request_count)
           from landing.smf_qctadp where source_file = 'streaming/tls13-1m/mqsmf.bin'"""
    )
    rows = marts(
        """select task_type, wait_us_per_request, cpu_us_per_request + wait_us_per_request
                  - elapsed_us_per_request, busy_pct is not null
           from marts.fct_chinit_task_stack where run_key = 'streaming/tls13-1m'
           order by stack_order"""
    )
    assert [r[0] for r in rows] == ["dispatcher", "adapter", "ssl"]
    adapter = rows[1]
    assert adapter[1] == pytest.approx(expected[0]) and adapter[1] > 0
    assert all(abs(r[2]) < 1e-6 and r[3] for r in rows)


def _findings(marts, study: str) -> list[tuple[str, str]]:
    return marts(
        "select kind, sentence from marts.fct_findings "
        f"where study = '{study}' and is_headline order by finding_rank"
    )


def test_every_bundled_study_leads_with_at_most_eight_findings(marts):
    counts = dict(
        marts("select study, count_if(is_headline) from marts.fct_findings group by study")
    )
    assert set(counts) == {"attls", "keysize", "protection", "streaming", "threadsweep", "encsweep"}
    assert all(1 <= n <= 8 for n in counts.values()), counts


def test_findings_of_the_streaming_study_judge_the_backlog(marts):
    p95 = _xqtime_p95("tls13-1m")
    assert marts(
        "select kind, sentence, section_anchor from marts.fct_findings "
        "where study = 'streaming' and finding_rank = 1"
    ) == [
        (
            "target_not_sustained",
            "TLS 1.3 software at 1 MB does not sustain the target of 250/s: 160/s achieved "
            f"(64.0% of target, below 98%); XQTIME p95 {p95 / 1000:,.1f} ms, growing during the "
            "run: a backlog builds.",
            "sec-rate-target",
        )
    ]
    kinds = [k for k, _ in _findings(marts, "streaming")]
    assert kinds == ["target_not_sustained"] * 3 + ["pair_change"] * 2 + ["cost_per_kb"] * 2
    # R² "at least" the least of several fits; of one fit, its own.
    per_kb = [t for k, t in _findings(marts, "streaming") if k == "cost_per_kb"]
    assert all((" fits (" in t or " fits," in t) == ("R² at least" in t) for t in per_kb), per_kb


def test_findings_of_the_thread_sweep_give_each_scenario_and_model(marts):
    expected = _expected_sweep()
    found = _findings(marts, "threadsweep")
    assert [k for k, _ in found] == ["sweep_headline"] * 4 + ["saturation"]
    for scen in ("local", "client"):
        for model in ("M2002A", "M2002B"):
            rates, rts = [], []
            for (cfg, s_, m_, size), curve in expected.items():
                if (cfg, s_, m_) != ("Feature on", scen, model):
                    continue
                base = expected[("Feature off", scen, model, size)]
                rates.append(_pct(max(curve.values()), max(base.values())))
                rts.append(_pct(1e6 / curve[1], 1e6 / base[1]))
            (sentence,) = [t for _, t in found if t.startswith(f"{scen}, {model}: ")]
            mean = sum(rates) / len(rates)
            assert sentence.startswith(
                f"{scen}, {model}: Feature on against Feature off, maximum throughput {mean:+.1f}%"
            ), sentence
            assert f"single-thread round trip {sum(rts) / len(rts):+.1f}%" in sentence


def test_findings_of_attls_give_the_published_round_trip_increases(marts):
    # Seed 000: TLS 1.3 software cipher, round trip +1.24% at 2 KB to +37.87% at 1 MB.
    found = _findings(marts, "attls")
    chacha = [t for _, t in found if "TLS_CHACHA20_POLY1305_SHA256" in t]
    assert chacha == [
        "MQ + AT-TLS (TLS_CHACHA20_POLY1305_SHA256, software, TLS 1.3) against MQ + System SSL: "
        "round trip +1.24% at 2 KB to +37.87% at 1 MB; CPU per transaction -1.71% at 2 KB to "
        "-1.50% at 1 MB."
    ]
    # Fitted costs: one finding for the pair, not one line per fit.
    assert [k for k, _ in found].count("cost_per_kb") == 1


def test_findings_of_keysize_say_how_start_time_grows_with_key_strength(marts):
    steps = marts(
        """select from_key_strength, to_key_strength, avg(time_increase_pct), count(*)
           from marts.fct_channel_start_key_steps where study = 'keysize'
           group by 1, 2 order by min(from_key_bits)"""
    )
    found = [t for k, t in _findings(marts, "keysize") if k == "key_step"]
    assert len(found) == len(steps) == 2
    for (src, dst, mean, n), sentence in zip(steps, found, strict=True):
        assert sentence.startswith(
            f"Channel start time from {src.replace('_', ' ')} to {dst.replace('_', ' ')} keys: "
            f"{mean:+.1f}% on average over {n} ciphers"
        ), sentence


def test_fit_labels_name_what_tells_a_configurations_fits_apart(marts):
    # attls: each configuration is fitted once per cipher; the cipher names the line.
    assert marts(
        """select configuration, fit_label from marts.fct_fit
           where study = 'attls' and x_name = 'message_bytes' and measure = 'cpu_us_per_txn'
             and subject = 'TOTAL' order by 1, 2"""
    ) == [
        ("MQ + AT-TLS", "TLS_AES_256_GCM_SHA384"),
        ("MQ + AT-TLS", "TLS_CHACHA20_POLY1305_SHA256"),
        ("MQ + AT-TLS", "TLS_RSA_WITH_AES_256_CBC_SHA"),
        ("MQ + System SSL", "TLS_AES_256_GCM_SHA384"),
        ("MQ + System SSL", "TLS_CHACHA20_POLY1305_SHA256"),
        ("MQ + System SSL", "TLS_RSA_WITH_AES_256_CBC_SHA256"),
    ]
    assert marts(
        """select count(*) filter (where is_message_workload),
                  count(*) filter (where not is_message_workload)
           from marts.dim_run where study = 'attls'"""
    ) == [(30, 14)]


def test_run_summary_says_what_varies_in_every_sample_study(marts):
    assert dict(marts("select study, run_summary from marts.dim_study")) == {
        "attls": (
            "44 runs: 30 request/reply runs over 2 configurations, 5 message sizes and 4 "
            "ciphers; 7 channel-start runs over 3 configurations and 4 ciphers; 7 channel-stop "
            "runs over 3 configurations and 4 ciphers"
        ),
        # Each keysize run has its own configuration name: the ciphers, key strengths and
        # SSLRKEYC values are what the study varies.
        "keysize": (
            "26 runs: 22 channel-start runs over 8 ciphers and 3 key strengths; 4 request/reply "
            "runs over 2 key strengths and 2 SSLRKEYC values"
        ),
        "protection": "12 put/get runs over 4 configurations, 3 message sizes and 3 recipient counts",
        "streaming": (
            "9 streaming runs over 3 configurations, 3 message sizes, 3 target rates and 2 ciphers"
        ),
        "threadsweep": (
            "320 request/reply runs over 2 configurations, 2 scenarios, 2 hardware models, "
            "4 message sizes and 10 thread counts"
        ),
        # Scenario and model written as labels, in the configuration names: the same read.
        "encsweep": (
            "144 request/reply runs over 2 configurations, 2 scenarios, 2 hardware models, "
            "3 message sizes and 6 thread counts"
        ),
    }

    def listed(column: str, workload: str) -> str:
        return marts(
            f"""select string_agg(distinct {column}, ', ' order by {column}) from marts.dim_run
                where study = 'keysize' and workload_type = '{workload}'"""
        )[0][0]

    assert marts(
        """select workload_type, dimension, value_count, value_list, is_shown
           from marts.fct_study_dimensions where study = 'keysize'
           order by workload_type, dimension_order"""
    ) == [
        ("channel_start", "configuration", 22, listed("configuration", "channel_start"), False),
        ("channel_start", "cipher", 8, listed("cipher", "channel_start"), True),
        ("channel_start", "key_strength", 3, "high, medium, very_high", True),
        ("channel_start", "key_bits", 6, "192, 224, 521, 1024, 2048, 4096", False),
        ("request_reply", "configuration", 4, listed("configuration", "request_reply"), False),
        ("request_reply", "key_strength", 2, "high, very_high", True),
        ("request_reply", "key_bits", 2, "2048, 4096", False),
        ("request_reply", "sslrkeyc", 2, "0, 1048576", True),
    ]


def test_chinit_task_profile_pools_runs_per_configuration_variant_and_size(marts):
    # attls: 30 request/reply runs, one per configuration x cipher x size: nothing to pool,
    # so each bar is its run's figure; the cipher names the variant (it varies within a
    # configuration), and each panel (size x task type) holds six bars.
    assert marts(
        """select count(*), max(runs), count(distinct bar_label),
                  max(bars), min(bars)
           from marts.fct_chinit_task_profile p
           join (select message_bytes, task_type, count(*) as bars
                 from marts.fct_chinit_task_profile where study = 'attls' group by all) n
             using (message_bytes, task_type)
           where p.study = 'attls'"""
    ) == [(75, 1, 6, 6, 3)]
    differs = marts(
        """select count(*) from marts.fct_chinit_task_profile p
           join marts.fct_chinit_task_stack s
             on s.study = p.study and s.configuration = p.configuration
            and s.message_bytes = p.message_bytes and s.task_type = p.task_type
           join marts.dim_run r on r.run_key = s.run_key and r.cipher = p.variant
           where p.study = 'attls'
             and (abs(p.cpu_us_per_request - s.cpu_us_per_request) > 1e-9
                  or abs(p.wait_us_per_request - s.wait_us_per_request) > 1e-9)"""
    )
    assert differs == [(0,)]
    # streaming: one cipher per configuration, so no variant in the label.
    assert marts(
        """select distinct variant, bar_label from marts.fct_chinit_task_profile
           where study = 'streaming' order by bar_label"""
    ) == [
        ("", name)
        for (name,) in marts(
            """select coalesce(display_name, configuration) from marts.dim_configuration
           where study = 'streaming' order by 1"""
        )
    ]


def test_backlog_and_fit_labels_are_worded_by_the_marts(marts):
    assert marts(
        """select backlog, count(*) from marts.fct_rate_target where study = 'streaming'
           group by 1 order by 1"""
    ) == [("growing", 3), ("not growing", 6)]
    assert marts(
        """select configuration, fit_label from marts.fct_fit
           where study in ('streaming', 'protection') and x_name = 'message_bytes'
             and measure = 'cpu_us_per_txn' and subject = 'TOTAL' order by 1"""
    ) == [
        ("Integrity", "no recipients"),
        ("No TLS", "no cipher"),
        ("No protection", "no recipients"),
        ("TLS 1.2 hardware", "TLS_RSA_WITH_AES_256_GCM_SHA384"),
        ("TLS 1.3 software", "TLS_CHACHA20_POLY1305_SHA256"),
        ("Weak encryption, 10 recipients", "recipients=10"),
    ]
    assert (
        marts("select count(*) filter (where pools_variants), count(*) from marts.fct_fit")[0][0]
        == 0
    )


def test_every_description_is_a_comment_in_the_warehouse(marts):
    # macros/persist_descriptions.sql: the YAML descriptions of the models and seeds a build
    # made, as DuckDB comments on their relations and columns (what SQL clients show).
    import yaml

    want_rel, want_col = {}, {}
    for path in [*PROJECT.glob("models/**/*.yml"), PROJECT / "seeds" / "_seeds.yml"]:
        doc = yaml.safe_load(path.read_text()) or {}
        for node in [*doc.get("models", []), *doc.get("seeds", [])]:
            if node.get("description"):
                want_rel[node["name"]] = node["description"]
            for col in node.get("columns", []):
                if col.get("description"):
                    want_col[(node["name"], col["name"])] = col["description"]
    got_rel = dict(
        marts("select table_name, comment from duckdb_tables() where comment is not null")
        + marts("select view_name, comment from duckdb_views() where comment is not null")
    )
    got_col = {
        (t, c): text
        for t, c, text in marts(
            "select table_name, column_name, comment from duckdb_columns() "
            "where comment is not null"
        )
    }
    # Every model and seed of the project is built on DuckDB (none is disabled there).
    assert len(want_rel) > 80 and got_rel == want_rel
    assert len(want_col) > 700 and got_col == want_col


def test_the_sending_channels_are_the_senders_and_every_channel_has_both_sides(marts):
    # fct_channel_network decides which channels the batches and network time section shows:
    # in the samples, where CHSTATUS gives the channel type, exactly the senders (SDR).
    rows = marts(
        """select study, channel_type, is_sending, count(*), count(messages), count(snapshots)
           from marts.fct_channel_network group by all order by all"""
    )
    assert rows == [
        ("attls", "RCVR", False, 30, 30, 30),
        ("attls", "SDR", True, 30, 30, 30),
        ("keysize", "RCVR", False, 4, 4, 4),
        ("keysize", "SDR", True, 4, 4, 4),
        ("streaming", "RCVR", False, 9, 9, 9),
        ("streaming", "SDR", True, 9, 9, 9),
    ]
