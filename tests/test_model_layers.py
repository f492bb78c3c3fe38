"""The dbt models' layers (docs/developer.md "Layout", dbt's structure guide): staging reads the
sources, intermediates read staging and intermediates, marts read intermediates; a fact reads
no other fact, and no mart reads a mart except a dimension (facts and dimensions may read
dimensions). A mart that another model needs is built from an intermediate that holds its logic
(``fct_run_measures`` is a copy of ``int_run_measures``, which the fits, comparisons, replicate
statistics and change points read), so that no chain of marts grows behind a report's back.
"""

from __future__ import annotations

import re

from helpers import PROJECT

# ref('x') in SQL, dbt.ref("x") in a Python model.
_REF = re.compile(r"""\bref\(\s*['"]([^'"]+)['"]\s*\)""")


def _models() -> dict[str, tuple[str, set[str]]]:
    """name -> (layer folder, the models and seeds it reads)."""
    out = {}
    for path in (PROJECT / "models").rglob("*"):
        if path.suffix in (".sql", ".py"):
            layer = path.relative_to(PROJECT / "models").parts[0]
            out[path.stem] = (layer, set(_REF.findall(path.read_text())))
    return out


def _violations(models: dict[str, tuple[str, set[str]]]) -> list[str]:
    seeds = {p.stem for p in (PROJECT / "seeds").glob("*.csv")}
    allowed = {
        "staging": {"staging"},
        "intermediate": {"staging", "intermediate"},
        # dim_ and fct_ alike: intermediates, staging, and dimensions (below).
        "marts": {"staging", "intermediate"},
    }
    out = []
    for name, (layer, reads) in sorted(models.items()):
        for dep in sorted(reads):
            if dep in seeds:
                continue
            dep_layer = models[dep][0] if dep in models else "?"
            ok = dep_layer in allowed[layer] or (
                layer == "marts" and dep_layer == "marts" and dep.startswith("dim_")
            )
            if not ok:
                out.append(f"{layer}/{name} reads {dep_layer}/{dep}")
    return out


def test_marts_read_intermediates_and_no_fact_reads_a_fact():
    models = _models()
    assert sum(layer == "marts" for layer, _ in models.values()) >= 30
    assert _violations(models) == []


def test_the_rule_finds_a_fact_that_reads_a_fact_and_an_intermediate_that_reads_a_mart():
    models = _models()
    models["fct_new"] = ("marts", {"fct_run_measures", "dim_run", "int_runs"})
    models["int_new"] = ("intermediate", {"dim_run", "stg_meta__files"})
    assert _violations(models) == [
        "marts/fct_new reads marts/fct_run_measures",
        "intermediate/int_new reads marts/dim_run",
    ]


def test_the_measure_hub_is_an_intermediate_read_by_the_statistics():
    models = _models()
    readers = {n for n, (_, reads) in models.items() if "int_run_measures" in reads}
    assert models["int_run_measures"][0] == "intermediate"
    assert {
        "int_fit_points",
        "int_comparison",
        "int_replicate_stats",
        "int_change_points",
        "fct_run_measures",
    } <= readers


def test_the_variant_summary_tries_the_detail_columns_the_series_do():
    # int_configurations' variant_summary keeps its own copy of mqcap.series.DETAIL_COLUMNS
    # (Jinja cannot import it): the same names in the same order, or the configurations table
    # and the series would describe runs by different labels.
    from mqcap.series import DETAIL_COLUMNS

    sql = (PROJECT / "models" / "intermediate" / "int_configurations.sql").read_text()
    listed = re.search(r"\{%\s*set details = \[(.*?)\]\s*%\}", sql, flags=re.S)
    assert listed is not None
    assert re.findall(r"'([a-z_]+)'", listed.group(1)) == DETAIL_COLUMNS
