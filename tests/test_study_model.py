"""The study model: what the user declared is what the report compares (README "The study
model").

The bundled encsweep scenario is generated twice: as written the old way (scenario and model
in the configuration's name and in labels, per-run `baseline:`, no study.yaml) and with the
run.yaml fields `scenario` / `hardware_model`. Both must give the same study: the same
configurations, the same sweep pairs, the same findings sentences and the same report tables.
The expected figures are computed from the generator's own run plans (the rates it wrote),
never typed. A third study whose runs name baselines in two configurations while others name
none cannot be decided: the marts say so, naming both candidates, and the run counts it as a
problem (exit 1).
"""

from __future__ import annotations

import copy
import re
import shutil
from pathlib import Path

import pytest

from mqcap.build import build
from mqcap.generate import generate, load_scenario
from mqcap.generate.sweep import expand_sweep
from mqcap.ingest import ingest
from mqcap.ledger.steps import pipeline_state
from mqcap.render import render_report
from mqcap.sections import queries as q
from mqcap.sections import tables as tb
from mqcap.settings import Settings

from helpers import PROJECT, query

pytestmark = [pytest.mark.e2e, pytest.mark.slow(minutes=4)]

SCENARIO = PROJECT / "data" / "scenarios" / "encsweep.yaml"
FIELDS = "encfields"
TOPOLOGY = "enctopology"
ASKED = "encquestion"
RATE_ASKED = "encrate"  # a thread sweep whose question names a measure its headline does not give


def _label_group_study(fields: dict, raw: Path) -> None:
    """The field-encoded study again, its hardware model written as a free label
    (`topology`) the configurations vary within: a grouping mqcap knows nothing of."""
    doc = copy.deepcopy(fields)
    doc["study"] = TOPOLOGY
    generate(doc, raw)
    for manifest in (raw / TOPOLOGY).glob("*/run.yaml"):
        text = manifest.read_text()
        model = re.search(r'^hardware_model: "(\w+)"$', text, flags=re.M).group(1)
        text = re.sub(r"^hardware_model: .*\n", "", text, flags=re.M)
        text = text.replace("labels:\n", f'labels:\n  topology: "{model}"\n')
        manifest.write_text(text)


def _undecided_study(raw: Path) -> None:
    """Runs of X name runs of A, runs of Y name runs of B, runs of Z name none: Z's
    comparison would need the study's baseline, and A and B are both candidates."""
    runs = {
        "a1": ("A", None),
        "b1": ("B", None),
        "x1": ("X", "a1"),
        "y1": ("Y", "b1"),
        "z1": ("Z", None),
    }
    for run, (config, baseline) in runs.items():
        folder = raw / "undecided" / run
        folder.mkdir(parents=True)
        text = (
            f"study: undecided\nrun: {run}\nconfiguration: {config}\n"
            "workload:\n  type: request_reply\n  message_bytes: 2048\n  threads: 1\n"
        )
        if baseline:
            text += f"baseline: {baseline}\n"
        (folder / "run.yaml").write_text(text)


def _stand_in_study(raw: Path) -> None:
    """study.yaml names A the baseline; runs of X name none at 2 KB and 1 MB and name a run at
    64 KB; A has runs at 2 KB and 64 KB (none at 1 MB), each naming none."""
    runs = {
        "a-2k": ("A", 2048, None),
        "a-64k": ("A", 65536, None),
        "x-2k": ("X", 2048, None),
        "x-64k": ("X", 65536, "a-64k"),
        "x-1m": ("X", 1048576, None),
    }
    (raw / "standin").mkdir()
    (raw / "standin" / "study.yaml").write_text("study: standin\nbaseline: A\n")
    for run, (config, size, baseline) in runs.items():
        folder = raw / "standin" / run
        folder.mkdir()
        text = (
            f"study: standin\nrun: {run}\nconfiguration: {config}\n"
            f"workload:\n  type: request_reply\n  message_bytes: {size}\n  threads: 1\n"
        )
        if baseline:
            text += f"baseline: {baseline}\n"
        (folder / "run.yaml").write_text(text)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("study_model")
    raw = root / "raw"
    raw.mkdir()
    labels = load_scenario(SCENARIO)
    fields = copy.deepcopy(labels)
    fields["study"] = FIELDS
    fields["thread_sweep"]["encoding"] = "fields"
    generate(labels, raw)
    generate(fields, raw)
    _label_group_study(fields, raw)
    asked = copy.deepcopy(fields)
    asked["study"] = ASKED
    asked["study_file"] = {"question": {"measures": ["single_thread_round_trip_us"]}}
    generate(asked, raw)
    rate = copy.deepcopy(fields)
    rate["study"] = RATE_ASKED
    rate["study_file"] = {"question": {"measures": ["rate_per_s"]}}
    generate(rate, raw)
    _undecided_study(raw)
    _stand_in_study(raw)
    # The protection sample, its 100,000-byte integrity run named against the 1,000-byte one.
    shutil.copytree(PROJECT / "data" / "sample" / "protection", raw / "protection")
    manifest = raw / "protection" / "integrity-100000b" / "run.yaml"
    manifest.write_text(
        manifest.read_text().replace("baseline: none-100000b", "baseline: integrity-1000b")
    )
    settings = Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=raw,
        reports_out=root / "out",
        project_root=PROJECT,
    )
    report = ingest(settings)
    assert report.set_aside == []
    build(settings)
    return settings


def _both(settings: Settings, sql: str) -> tuple[list[tuple], list[tuple]]:
    """``sql`` (with {study}) for each encoding, the study's name taken out of the rows."""
    out = []
    for study in ("encsweep", FIELDS):
        rows = query(settings, sql.format(study=study))
        out.append([tuple(str(v).replace(study, "<s>") for v in r) for r in rows])
    return out[0], out[1]


def test_the_old_encoding_reads_as_scenario_model_and_configuration(built):
    rows = query(
        built,
        """select configuration, declared_configuration, scenario, hardware_model
           from marts.dim_run where run_key = 'encsweep/client-m2002a-enc-2k-t1'""",
    )
    assert rows == [("encrypted", "client, M2002A, encrypted", "client", "M2002A")]
    old, new = _both(
        built,
        """select configuration, is_baseline, baseline_configuration, compared_by
           from marts.dim_configuration where study = '{study}' order by sort_order""",
    )
    # No intervals (mq-cph): configurations in name order.
    assert (
        old
        == new
        == [
            ("encrypted", "False", "unencrypted", "run_baselines"),
            ("unencrypted", "True", "None", "is_baseline"),
        ]
    )
    old, new = _both(
        built,
        "select group_by_json, configuration_count from marts.dim_study where study = '{study}'",
    )
    assert old == new == [('["scenario","hardware_model"]', "2")]


def _expected_headlines() -> dict[tuple[str, str], tuple[float, float]]:
    """(scenario, model) -> (mean max-throughput % change over sizes, mean single-thread
    round-trip % change), from the rates the generator wrote."""
    plans = list(expand_sweep(load_scenario(SCENARIO)))
    series: dict[tuple, dict[int, float]] = {}
    for p in plans:
        key = (p.config_key, p.labels["scenario"], p.labels["model"], p.workload["message_bytes"])
        series.setdefault(key, {})[p.workload["threads"]] = float(p.rate_per_s)
    out: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for (feat, scen, model, size), curve in series.items():
        if feat != "enc":
            continue
        base = series[("unenc", scen, model, size)]
        rate = (max(curve.values()) - max(base.values())) / max(base.values()) * 100
        # single-thread round trip = 1 / rate at one thread
        rt = (base[1] - curve[1]) / curve[1] * 100
        out.setdefault((scen, model), []).append((rate, rt))
    return {
        k: (sum(r for r, _ in v) / len(v), sum(t for _, t in v) / len(v)) for k, v in out.items()
    }


def test_findings_answer_per_scenario_and_model_against_the_declared_pairs(built):
    old, new = _both(
        built,
        "select finding_rank, is_headline, kind, sentence from marts.fct_findings "
        "where study = '{study}' order by finding_rank",
    )
    assert old == new
    rows = query(
        built,
        "select kind, sentence, is_headline from marts.fct_findings "
        "where study = 'encsweep' order by finding_rank",
    )
    assert len(rows) <= 8 and all(r[2] for r in rows)
    headlines = [s for k, s, _ in rows if k == "sweep_headline"]
    expected = _expected_headlines()
    assert len(headlines) == len(expected) == 4
    for (scen, model), (rate, rt) in expected.items():
        (sentence,) = [s for s in headlines if s.startswith(f"{scen}, {model}: ")]
        assert sentence.startswith(
            f"{scen}, {model}: encrypted against unencrypted, maximum throughput {rate:+.1f}%"
        ), sentence
        assert f"single-thread round trip {rt:+.1f}%" in sentence, sentence
    # Largest loss first: client connections on M2002A (-45%), then M2002B, then local.
    assert headlines[0].startswith("client, M2002A:")
    assert [k for k, _, _ in rows] == ["sweep_headline"] * 4 + ["saturation"]


def test_a_label_that_varies_within_configurations_keeps_its_groups_apart(built):
    # enctopology: the model as a free label. Its series stay apart (24, not 12 averaged
    # over two models) and the findings name the same groups with the same figures.
    assert query(
        built,
        "select count(*), count(distinct point_labels) from marts.fct_sweep_summary "
        f"where study = '{TOPOLOGY}'",
    ) == [(24, 2)]
    fields = query(
        built,
        "select kind, sentence from marts.fct_findings "
        f"where study = '{FIELDS}' and kind = 'sweep_headline' order by finding_rank",
    )
    topology = query(
        built,
        "select kind, sentence from marts.fct_findings "
        f"where study = '{TOPOLOGY}' and kind = 'sweep_headline' order by finding_rank",
    )
    assert topology == fields and len(fields) == 4


def test_a_question_in_study_yaml_chooses_what_the_findings_answer_with(built):
    # encquestion asks for the single-thread round trip only: the headlines give that, per
    # group, and no maximum throughput; the study lists its question.
    found = query(
        built,
        f"select kind, sentence from marts.fct_findings where study = '{ASKED}' "
        "order by finding_rank",
    )
    headlines = [s for k, s in found if k == "sweep_headline"]
    assert len(headlines) == 4
    for (scen, model), (_rate, rt) in _expected_headlines().items():
        assert (
            f"{scen}, {model}: encrypted against unencrypted, single-thread round trip {rt:+.1f}%."
            in headlines
        )
    assert query(
        built, f"select question_measures from marts.dim_study where study = '{ASKED}'"
    ) == [("single_thread_round_trip_us",)]


def test_sweep_summary_pairs_each_series_with_the_series_its_runs_name(built):
    old, new = _both(
        built,
        """select configuration, scenario, hardware_model, message_bytes, is_baseline,
                  baseline_series_key, baseline_source, round(max_rate_pct_change, 9),
                  round(single_thread_round_trip_pct_change, 9)
           from marts.fct_sweep_summary where study = '{study}' order by all""",
    )
    assert old == new and len(old) == 24
    # No comparison of a baseline with itself; every variant against its own group.
    for cfg, scen, model, size, is_base, base_key, source, rate, _rt in old:
        if cfg == "unencrypted":
            assert (is_base, base_key, rate) == ("True", "None", "None")
        else:
            assert base_key == f"<s>|unencrypted|{scen}|{model}|{size}|persistent"
            assert source == "run_baselines"


def test_reports_of_both_encodings_show_the_same_findings_and_tables(built):
    env = {"MQCAP_WAREHOUSE": str(built.warehouse)}
    qmd = PROJECT / "reports" / "study.qmd"
    bodies = []
    for study in ("encsweep", FIELDS):
        paths = render_report(
            qmd,
            built.reports_out,
            params={"study": study, "failed_checks": "[]"},
            formats=("html",),
            output_stem=study,
            env=env,
        )
        page = paths["html"].read_text(encoding="utf-8")
        start, end = page.index('id="sec-findings"'), page.index('id="sec-appendix"')
        body = page[start:end]
        # What differs by design: the study's name, the hosts' descriptions of runs.
        body = body.replace(study, "<s>")
        tables = re.findall(r"<table.*?</table>", body, flags=re.DOTALL)
        items = re.findall(r"<li>(.*?)</li>", body[: body.index('id="sec-environment"')], re.S)
        bodies.append((items, tables))
    assert bodies[0] == bodies[1]
    items, tables = bodies[0]
    assert len(items) == 5
    # MP16's layout: one table per scenario x model, sizes down, no "+0.0%" baseline rows.
    sweep_tables = [t for t in tables if "Throughput %" in t]
    assert len(sweep_tables) == 4
    for t in sweep_tables:
        assert "+0.0%" not in t
        sizes = re.findall(r"<td[^>]*>(\d+)\s*(?:&nbsp;|\u00a0| )(KB)</td>", t)
        assert [s for s, _ in sizes] == ["2", "20", "200"]


def test_mp16_sweep_tables_hold_the_marts_figures_in_natural_order(built, monkeypatch):
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(built.warehouse))
    tables = tb.sweep_pivot_tables(q.sweep_summary("encsweep"), ["scenario", "hardware_model"])
    assert [t for t, _ in tables] == [
        f"{g}: encrypted against unencrypted"
        for g in ("client, M2002A", "client, M2002B", "local, M2002A", "local, M2002B")
    ]
    rows = query(
        built,
        """select scenario, hardware_model, message_bytes, max_rate_per_s,
                  baseline_max_rate_per_s, max_rate_pct_change,
                  single_thread_round_trip_pct_change
           from marts.fct_sweep_summary where study = 'encsweep' and configuration = 'encrypted'
           order by scenario, hardware_model, message_bytes""",
    )
    cells = [r for _, df in tables for r in df.to_dict("records")]
    assert len(cells) == len(rows) == 12
    for cell, (_s, _m, size, rate, base_rate, rate_pct, rt_pct) in zip(cells, rows, strict=True):
        assert cell["Size"].replace("\u00a0", " ") == f"{size // 1024} KB"
        assert cell["encrypted max /s"] == f"{rate:,.0f}"
        assert cell["unencrypted max /s"] == f"{base_rate:,.0f}"
        # % from the unrounded values, to the places shown
        assert cell["throughput %"] == f"{round(rate_pct, 1) + 0.0:+.1f}%"
        assert cell["latency %"] == f"{round(rt_pct, 1) + 0.0:+.1f}%"
    # One time unit per column: the 2 KB single-thread round trips are hundreds of µs.
    assert [c for c in tables[0][1].columns if "1-thread" in c] == [
        "unencrypted 1-thread µs",
        "encrypted 1-thread µs",
    ]


def test_an_undecided_baseline_names_its_candidates_and_is_a_problem(built):
    (problem,) = query(
        built, "select baseline_problem from marts.dim_study where study = 'undecided'"
    )[0:1]
    assert problem[0] is not None
    assert '"Z" name no baseline' in problem[0] and "(A, B)" in problem[0]
    assert query(
        built,
        "select configuration, compared_by, baseline_configuration from marts.dim_configuration "
        "where study = 'undecided' order by configuration",
    ) == [
        ("A", "is_baseline", None),
        ("B", "is_baseline", None),
        ("X", "run_baselines", "A"),
        ("Y", "run_baselines", "B"),
        ("Z", "undecided", None),
    ]
    problems = pipeline_state(built).problems(())
    assert [p for p in problems if p.startswith("study undecided: baseline undecided: ")] == [
        f"study undecided: baseline undecided: {problem[0]}"
    ]
    # The studies whose baselines are decided have none.
    assert not [p for p in problems if "encsweep" in p]


def test_the_study_files_baseline_stands_in_for_runs_that_name_none(built):
    """A run naming no baseline is paired with the one run of the study file's baseline
    configuration at its point, never shown as a baseline itself; without such a run it is
    compared with nothing, and the study says so (docs/modelling.md)."""
    assert query(
        built,
        "select run_id, baseline_run_key, is_baseline, baseline_declared from marts.dim_run "
        "where study = 'standin' order by run_id",
    ) == [
        ("a-2k", "standin/a-2k", True, False),
        ("a-64k", "standin/a-64k", True, False),
        ("x-1m", None, False, False),
        ("x-2k", "standin/a-2k", False, False),
        ("x-64k", "standin/a-64k", False, True),
    ]
    ((problem,),) = query(
        built, "select baseline_problem from marts.dim_study where study = 'standin'"
    )
    assert problem == (
        'runs of configuration "X" name no baseline and the study baseline configuration "A" '
        "has no single run at their point: x-1m; they are compared with nothing until each "
        "names its `baseline:`"
    )


def test_a_sweeps_question_naming_a_measure_its_headline_lacks_is_answered(built):
    """A thread sweep's declared pairs are told by its headline (maximum throughput,
    single-thread round trip); a question naming another measure of fct_run_measures is
    answered by the pairs' findings for that measure, not left with no finding."""
    found = query(
        built,
        f"select kind, sentence from marts.fct_findings where study = '{RATE_ASKED}' "
        "order by finding_rank",
    )
    pairs = [s for k, s in found if k == "pair_change"]
    assert all("transaction rate" in s and "round trip" not in s for s in pairs), pairs
    # One finding per group (scenario, model), never an average over groups (DOMAIN.md), with
    # the mean change of the group's runs at the smallest and the largest size.
    means = query(
        built,
        "select concat_ws(', ', r.scenario, r.hardware_model), c.message_bytes, "
        "avg(c.pct_change) from marts.fct_comparison c join marts.dim_run r using (run_key) "
        f"where c.study = '{RATE_ASKED}' and c.measure = 'rate_per_s' group by all",
    )
    groups = sorted({g for g, _, _ in means})
    assert len(groups) == 4 and len(pairs) == 4
    for group in groups:
        at = {size: pct for g, size, pct in means if g == group}
        small, large = at[min(at)], at[max(at)]
        sentence = (
            f"{group}: encrypted against unencrypted: transaction rate {small:+.2f}% at 2 KB "
            f"to {large:+.2f}% at 200 KB."
        )
        assert sentence in pairs, (sentence, pairs)
    assert "sweep_headline" not in {k for k, _ in found}
    # The study that asks for a sweep figure keeps its headline and gets no pair finding.
    asked = query(
        built, f"select distinct kind from marts.fct_findings where study = '{ASKED}' order by 1"
    )
    assert asked == [("saturation",), ("sweep_headline",)]


def test_a_pair_within_a_configuration_across_sizes_says_which_size_it_is_against(built):
    """A run named against a run of its own configuration at another size: "against its runs
    at 1,000 bytes", as recipients and thread counts are said, not "Integrity against
    Integrity" with the baseline's size left out."""
    found = [
        s
        for (s,) in query(
            built,
            "select sentence from marts.fct_findings where study = 'protection' "
            "and kind = 'pair_change' and sentence like 'Integrity against its runs%'",
        )
    ]
    ((cpu,),) = query(
        built,
        "select pct_change from marts.fct_comparison where run_key = "
        "'protection/integrity-100000b' and measure = 'cpu_us_per_txn' and subject = 'TOTAL'",
    )
    # round trip 14,300 us against 3,100 us (the two runs' results.csv)
    assert found == [
        "Integrity against its runs at 1,000 bytes: round trip +361% at 100,000 bytes; "
        f"CPU per transaction +{cpu:.0f}% at 100,000 bytes."
    ]
