"""mqcap.gx_memo: GX validation with its configurations and expectations made once per run and
its freshness checks left out gives the same results, field for
field, as GX on its own: on the mini study's warehouse with rows broken in landing and mart
tables (failures in the first pass and the complete-result detail pass, a suite parameter, a
row count), every suite's whole result compared."""

from __future__ import annotations

import contextlib
import json

import duckdb
import pytest

from mqcap import gx_memo
from mqcap import validate as validate_mod

pytestmark = pytest.mark.e2e

# Fields that differ between any two runs of the same validation.
RUN_FIELDS = {
    "run_id",
    "validation_time",
    "run_time",
    "run_name",
    "checkpoint_id",
    "validation_id",
    "id",
    "ge_load_time",
}


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items()) if k not in RUN_FIELDS}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _diff(a, b, path="") -> list[str]:
    """The paths at which ``a`` and ``b`` differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            d for k in sorted(a.keys() | b.keys()) for d in _diff(a.get(k), b.get(k), f"{path}/{k}")
        ]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _diff(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"[:300]]


def _results(monkeypatch, settings, memo: bool) -> tuple[dict, list]:
    """Every GX result of one ``validate(settings, "all")`` (the suite's name and pass -> the
    result without its run's fields), and the report's suites with their failures."""
    if not memo:
        monkeypatch.setattr(gx_memo, "kept", lambda: contextlib.nullcontext())
    seen: dict[str, dict] = {}
    gx_run = validate_mod._gx_run

    def recording(gx, ctx, source, name, expectations, df, params, fmt, *args, **kwargs):
        result = gx_run(gx, ctx, source, name, expectations, df, params, fmt, *args, **kwargs)
        key = f"{name} {json.dumps(fmt, sort_keys=True)}"
        seen[key] = _plain(json.loads(json.dumps(result.to_json_dict(), default=str)))
        return result

    monkeypatch.setattr(validate_mod, "_gx_run", recording)
    validate_mod._GX.pop("runs", None)
    report = validate_mod.validate(settings, "all", docs=False)
    monkeypatch.undo()
    suites = [
        (s.suite, s.success, s.evaluated, s.rows, [repr(f) for f in s.failures])
        for s in sorted(report.results, key=lambda s: s.suite)
    ]
    return seen, suites


def test_memos_and_the_skipped_freshness_checks_change_no_result(mini_settings, monkeypatch):
    with duckdb.connect(str(mini_settings.warehouse)) as con:
        # Out of range, and a landing row count the ledger does not match.
        con.execute(
            "update marts.fct_driver_results set round_trip_us = -1 "
            "where run_key = (select min(run_key) from marts.fct_driver_results)"
        )
        con.execute(
            "delete from landing.driver_results where source_line = "
            "(select min(source_line) from landing.driver_results)"
        )
    # Each pass makes its suites, validation definitions and checkpoints anew, as a new
    # process does.
    plain, plain_suites = _results(monkeypatch, mini_settings, memo=False)
    kept, kept_suites = _results(monkeypatch, mini_settings, memo=True)
    again, _ = _results(monkeypatch, mini_settings, memo=False)

    failed = [s for s in plain_suites if not s[1]]
    assert {s[0] for s in failed} == {"marts.fct_driver_results", "landing.driver_results"}
    assert all(s[4] for s in failed)  # each names its rows (the detail pass ran)
    assert len(plain) == len(plain_suites) + len(failed) > 40
    assert _diff(plain, again) == []  # runs are told apart only by what changed
    assert kept.keys() == plain.keys()
    for key in plain:
        assert _diff(kept[key], plain[key]) == [], key
    assert kept_suites == plain_suites


def test_gx_is_itself_again_after_a_run():
    import_gx = validate_mod.import_gx
    import_gx()
    from great_expectations.checkpoint.checkpoint import Checkpoint
    from great_expectations.expectations.expectation import Expectation
    from great_expectations.expectations.expectation_configuration import (
        ExpectationConfiguration,
    )

    before = (
        Expectation.__dict__["configuration"],
        ExpectationConfiguration.__dict__["to_domain_obj"],
        Checkpoint.__dict__["is_fresh"],
    )
    with pytest.raises(RuntimeError), gx_memo.kept():
        assert Expectation.__dict__["configuration"] is not before[0]
        raise RuntimeError("a failed run")
    after = (
        Expectation.__dict__["configuration"],
        ExpectationConfiguration.__dict__["to_domain_obj"],
        Checkpoint.__dict__["is_fresh"],
    )
    assert after == before
