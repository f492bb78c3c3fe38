"""The run manifest (docs/formats.md section 8): ``run.yaml`` in each run folder.

It says what a run measured: study, run id, interval, workload point, configuration labels,
baseline run and which job names are which address space. Every error names the file, the line,
the field and what was expected. The full format is documented in the README.

Example::

    study: attls
    run: ssl-chacha-2k
    configuration: MQ + System SSL
    interval: {start: 2021-06-01T10:00:00, end: 2021-06-01T10:05:00}
    workload: {type: request_reply, message_bytes: 2048, persistence: nonpersistent, threads: 1}
    labels: {protection: system_ssl, cipher: TLS_CHACHA20_POLY1305_SHA256, tls_version: "1.3"}
    baseline: ssl-chacha-2k
    jobs: {QML1MSTR: MSTR, QML1CHIN: CHIN, TCPIP: TCPIP}
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, time
from functools import lru_cache
from typing import Any

from mqcap.errors import InputError
from mqcap.parsers import _clock
from mqcap.parsers._lazy import lazy_module
from mqcap.parsers.base import (
    TEXT_LINEAGE,
    Batch,
    ParseContext,
    Parser,
    Table,
    open_input,
    read_text_upto,
)

yaml = lazy_module("yaml", __name__, "yaml")

MANIFEST_NAMES = ("run.yaml", "run.yml")
# A manifest is a page of YAML; these bounds keep a hostile one cheap to refuse.
MAX_MANIFEST_BYTES = 64 << 10
MAX_YAML_NODES = 10_000
ROLES = ("MSTR", "CHIN", "TCPIP", "AMSM", "APP", "OTHER")
WORKLOAD_TYPES = ("request_reply", "streaming", "put_get", "channel_start", "channel_stop", "other")
PERSISTENCE = ("persistent", "nonpersistent")
PLATFORMS = ("zos", "distributed", "appliance")
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,79}$")

TOP_FIELDS = {
    "study": "the study name (letters, digits, _ . + -)",
    "run": "the run id, unique in the study",
    "description": "free text",
    "configuration": "the configuration's display name",
    "interval": "a mapping with start and end timestamps",
    "system": "the z/OS system id (SMF SID), 1-4 characters",
    "platform": "zos, distributed or appliance",
    "host": "the host name of the measured system (distributed, appliance)",
    "hardware_model": "the hardware model (e.g. an appliance model or a z/OS machine type)",
    "scenario": "the test scenario (e.g. local or client bindings); a grouping dimension",
    "series": "a driver series file (cphtestp CSV) of the study this run takes its row from",
    "qmgr": "the queue manager name",
    "workload": "a mapping: type, message_bytes, persistence, threads, target_rate_per_s, ...",
    "labels": "a mapping of configuration labels (protection, cipher, tls_version, key_bits...)",
    "baseline": "the run id of the baseline run in the same study",
    "jobs": "a mapping of job name -> role (MSTR, CHIN, TCPIP, AMSM, APP, OTHER)",
    "transactions": "transactions in the interval (when the driver does not give a rate)",
    "channels": "channels started or stopped (channel start/stop runs)",
    **_clock.FIELDS,
    # Noise and history (README "Replicates and history"): all optional text labels.
    "replicate": "a replicate set's name: runs of a configuration sharing it are repeats",
    "build": "the build (driver, fix pack, commit) measured; runs over builds form a history",
    "version": "the product version measured (e.g. 9.3.0.5); a history label like build",
}
WORKLOAD_FIELDS = (
    "type",
    "message_bytes",
    "persistence",
    "threads",
    "target_rate_per_s",
    "recipients",
)

RUN_TABLE = Table(
    "run_manifest",
    {
        **TEXT_LINEAGE,
        "study": "VARCHAR",
        "run_id": "VARCHAR",
        "description": "VARCHAR",
        "configuration": "VARCHAR",
        "interval_start": "TIMESTAMP",
        "interval_end": "TIMESTAMP",
        "system_id": "VARCHAR",
        "qmgr": "VARCHAR",
        "platform": "VARCHAR",
        "host": "VARCHAR",
        "hardware_model": "VARCHAR",
        "scenario": "VARCHAR",
        "series_file": "VARCHAR",
        "workload_type": "VARCHAR",
        "message_bytes": "BIGINT",
        "persistence": "VARCHAR",
        "threads": "BIGINT",
        "target_rate_per_s": "DOUBLE",
        "recipients": "BIGINT",
        "transactions": "BIGINT",
        "channels": "BIGINT",
        "baseline_run_id": "VARCHAR",
        "labels_json": "VARCHAR",
        "utc_offset_minutes": "BIGINT",  # the local clock's offset from UTC, if stated
        "timezone": "VARCHAR",  # the IANA zone of the local clock, if stated
        "replicate": "VARCHAR",
        "build": "VARCHAR",
        "version": "VARCHAR",
    },
    "One row per run manifest.",
)
LABEL_TABLE = Table(
    "run_label",
    {
        **TEXT_LINEAGE,
        "study": "VARCHAR",
        "run_id": "VARCHAR",
        "label": "VARCHAR",
        "value": "VARCHAR",
    },
    "One row per run and configuration label.",
)
ROLE_TABLE = Table(
    "run_job_role",
    {
        **TEXT_LINEAGE,
        "study": "VARCHAR",
        "run_id": "VARCHAR",
        "jobname": "VARCHAR",
        "role": "VARCHAR",
    },
    "One row per run and job name mapped to an address-space role.",
)


def _line(mark: yaml.Mark) -> int:
    """The 1-based line of a YAML mark, counted as everything else in mqcap counts lines: by
    ``\\n``. YAML also breaks lines at a lone ``\\r`` (and U+0085, U+2028, U+2029), so its own
    ``mark.line`` can name a line past the file's last one."""
    if mark.buffer is None:
        return mark.line + 1
    return mark.buffer.count("\n", 0, mark.index) + 1


@lru_cache(maxsize=1)
def _line_loader() -> type:
    """A SafeLoader that remembers the line of every mapping key (1-based). Made on first use:
    PyYAML compiles its resolver's patterns as it is imported (about 0.1 s), and a run that
    settles every manifest from its stat reads no YAML."""

    class _LineLoader(yaml.SafeLoader):
        pass

    _LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    return _LineLoader


@lru_cache(maxsize=1)
def _c_line_loader() -> type | None:
    """:func:`_line_loader` on libyaml's parser (``yaml.CSafeLoader``), or None without it."""
    if not hasattr(yaml, "CSafeLoader"):
        return None

    class _CLineLoader(yaml.CSafeLoader):
        pass

    _CLineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    return _CLineLoader


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict:
    mapping = {}
    lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
        lines[key] = _line(key_node.start_mark)
    return _Mapping(mapping, lines, _line(node.start_mark))


class _Mapping(dict):
    def __init__(self, data: dict, lines: dict, line: int) -> None:
        super().__init__(data)
        self.lines = lines
        self.line = line


class _Checker:
    """Collects every problem of a file: ``fail`` records one and leaves the current
    ``section`` (a field whose later checks would build on the failed one); ``done`` raises one
    InputError naming them all, at the first one's line.

    Example:
        check = _Checker(ctx)
        with check.section():
            check.fail(doc, "threads", "workload.threads", "a positive whole number", "many")
        check.done()  # InputError: ... field workload.threads: expected ...
    """

    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.errors: list[InputError] = []

    def fail(self, where: _Mapping, key: str | None, field: str, expected: str, got: Any) -> None:
        line = where.lines.get(key, where.line) if key is not None else where.line
        if got is None:
            shown = "nothing"
        elif isinstance(got, (date, time)):  # (a datetime is a date)
            shown = got.isoformat()  # as the run.yaml writes it, not datetime.datetime(...)
        else:
            shown = repr(got)
        err = InputError(
            f"field {field}: expected {expected}, got {shown}",
            file=self.ctx.source_file,
            line=line,
            field=field,
        )
        self.errors.append(err)
        raise err

    @contextmanager
    def section(self) -> Iterator[None]:
        """Checks that stop at their first problem; the file's other checks go on."""
        try:
            yield
        except InputError as exc:
            if not any(exc is e for e in self.errors):
                raise

    def done(self) -> None:
        """Raise the problems found (none: nothing)."""
        if not self.errors:
            return
        errors = sorted(self.errors, key=lambda e: e.line or 0)  # in the file's order
        first = errors[0]
        if len(errors) == 1:
            raise first
        rest = "; ".join(f"line {e.line}: {e.reason}" for e in errors[1:])
        raise InputError(
            f"{len(errors)} problems: {first.reason}; {rest}",
            file=first.file,
            line=first.line,
            field=first.field,
        )


def _timestamp(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            # Interval times are the measured system's local time: a written offset is the
            # local clock's (it becomes the run's utc_offset), the wall-clock time is kept.
            return value.replace(tzinfo=None)
        return value
    if isinstance(value, date):
        return None
    if isinstance(value, str):
        try:
            return _timestamp(datetime.fromisoformat(value.strip()))
        except ValueError:
            return None
    return None


def _interval_offset(check: _Checker, doc: _Mapping, interval: _Mapping, out: dict) -> None:
    """Interval times written with an offset (10:00:00+01:00) state the run's utc_offset."""
    stamped = {k: _clock.stamp_offset(interval.get(k)) for k in ("start", "end")}
    offsets = {v for v in stamped.values() if v is not None}
    if not offsets:
        return
    key = "end" if stamped["end"] is not None else "start"
    if len(offsets) > 1 or None in stamped.values():
        check.fail(
            interval, key, f"interval.{key}", "the same UTC offset on start and end (or none)",
            interval.get(key),
        )  # fmt: skip
    (minutes,) = offsets
    if out["timezone"] is not None or out["utc_offset_minutes"] not in (None, minutes):
        check.fail(
            interval, key, f"interval.{key}",
            "no offset, or the one utc_offset states (times are local; the offset says how "
            "local relates to UTC)",
            interval.get(key),
        )  # fmt: skip
    out["utc_offset_minutes"] = minutes


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value


def validate(doc: Any, ctx: ParseContext) -> dict:
    """A checked manifest as a plain dict; raises InputError naming line and field, with every
    problem of the file at once (each field is checked whatever the others hold).

    Long because: one check per run.yaml field, in the field order."""
    check = _Checker(ctx)
    if not isinstance(doc, _Mapping):
        raise ctx.error("a run manifest must be a YAML mapping (key: value lines)", line=1)
    for key in doc:
        with check.section():
            if key not in TOP_FIELDS:
                check.fail(doc, key, str(key), f"one of {', '.join(TOP_FIELDS)}", key)
    out: dict[str, Any] = {}
    for key in ("study", "run"):
        out[key] = None
        with check.section():
            value = doc.get(key)
            if value is None:
                check.fail(doc, None, key, TOP_FIELDS[key] + " (required)", None)
            if not isinstance(value, str | int) or not NAME_RE.match(str(value)):
                check.fail(doc, key, key, TOP_FIELDS[key], value)
            out[key] = str(value)
    for key in (
        "description",
        "configuration",
        "system",
        "qmgr",
        "baseline",
        "platform",
        "host",
        "hardware_model",
        "scenario",
        "series",
        "replicate",
        "build",
        "version",
    ):
        out[key] = None
        with check.section():
            value = doc.get(key)
            if value is not None and not isinstance(value, str | int | float):
                check.fail(doc, key, key, "a text value", value)
            out[key] = None if value is None else str(value)
    with check.section():
        if out["system"] is not None and not re.fullmatch(r"[A-Za-z0-9@#$]{1,4}", out["system"]):
            check.fail(doc, "system", "system", "a z/OS system id of 1-4 characters", out["system"])
    with check.section():
        if out["platform"] is not None:
            out["platform"] = out["platform"].lower().replace("/", "")
            if out["platform"] not in PLATFORMS:
                check.fail(doc, "platform", "platform", TOP_FIELDS["platform"], doc.get("platform"))
        elif out["system"] is not None:
            out["platform"] = "zos"  # an SMF system id means z/OS
    with check.section():
        series = out["series"]
        if series is not None and (
            series.startswith("/") or ".." in series.split("/") or not series.strip()
        ):
            check.fail(doc, "series", "series", "a file path inside the study folder", series)
    with check.section():
        if out["baseline"] is not None and not NAME_RE.match(out["baseline"]):
            check.fail(doc, "baseline", "baseline", TOP_FIELDS["baseline"], out["baseline"])

    out["utc_offset_minutes"] = out["timezone"] = None
    with check.section():
        _clock.validate(doc, check, out)
    _interval(check, doc, out)
    _workload(check, doc, out)

    for key in ("transactions", "channels"):
        out[key] = None
        with check.section():
            value = doc.get(key)
            if value is not None and _positive_int(value) is None:
                check.fail(doc, key, key, "a positive whole number", value)
            out[key] = value

    out["labels"] = {}
    with check.section():
        labels = doc.get("labels") or _Mapping({}, {}, doc.line)
        if not isinstance(labels, _Mapping):
            check.fail(doc, "labels", "labels", TOP_FIELDS["labels"], labels)
        for key, value in labels.items():
            with check.section():
                if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,62}", key):
                    check.fail(
                        labels, key, f"labels.{key}", "a label name (letters, digits, _)", key
                    )
                if isinstance(value, dict | list) or value is None:
                    check.fail(labels, key, f"labels.{key}", "a single text or number value", value)
                out["labels"][key] = str(value).lower() if isinstance(value, bool) else str(value)

    out["jobs"] = {}
    with check.section():
        jobs = doc.get("jobs") or _Mapping({}, {}, doc.line)
        if not isinstance(jobs, _Mapping):
            check.fail(doc, "jobs", "jobs", TOP_FIELDS["jobs"], jobs)
        for job, role in jobs.items():
            with check.section():
                if not isinstance(job, str) or not re.fullmatch(r"[A-Za-z0-9@#$*]{1,8}", job):
                    check.fail(jobs, job, f"jobs.{job}", "a job name of 1-8 characters", job)
                if not isinstance(role, str) or role.upper() not in ROLES:
                    check.fail(jobs, job, f"jobs.{job}", f"a role: {', '.join(ROLES)}", role)
                out["jobs"][job.upper()] = role.upper()
    check.done()
    if out["configuration"] is None:
        out["configuration"] = ", ".join(f"{k}={v}" for k, v in sorted(out["labels"].items())) or (
            "default"
        )
    return out


def _interval(check: _Checker, doc: _Mapping, out: dict) -> None:
    interval = doc.get("interval")
    out["interval_start"] = out["interval_end"] = None
    if interval is None:
        return
    with check.section():
        if not isinstance(interval, _Mapping):
            check.fail(doc, "interval", "interval", TOP_FIELDS["interval"], interval)
    if not isinstance(interval, _Mapping):
        return
    for key in interval:
        with check.section():
            if key not in ("start", "end"):
                check.fail(interval, key, f"interval.{key}", "start or end", key)
    for key in ("start", "end"):
        with check.section():
            raw = interval.get(key)
            value = _timestamp(raw)
            if value is None:
                check.fail(
                    interval,
                    key if key in interval else None,
                    f"interval.{key}",
                    "an ISO timestamp like 2021-06-01T10:00:00",
                    raw,
                )
            out[f"interval_{key}"] = value
    if out["interval_start"] is None or out["interval_end"] is None:
        return
    with check.section():
        _interval_offset(check, doc, interval, out)
    with check.section():
        if out["interval_end"] <= out["interval_start"]:
            check.fail(
                interval,
                "end",
                "interval.end",
                f"a time after interval.start ({out['interval_start'].isoformat()})",
                interval.get("end"),
            )


def _workload(check: _Checker, doc: _Mapping, out: dict) -> None:
    for key in ("workload_type", "message_bytes", "threads", "recipients", "persistence"):
        out[key] = None
    out["workload_type"] = "request_reply"
    out["target_rate_per_s"] = None
    workload = doc.get("workload")
    if workload is None:
        workload = _Mapping({}, {}, doc.line)
    elif not isinstance(workload, _Mapping):
        with check.section():
            check.fail(doc, "workload", "workload", TOP_FIELDS["workload"], workload)
        return
    for key in workload:
        with check.section():
            if key not in WORKLOAD_FIELDS:
                check.fail(
                    workload, key, f"workload.{key}", f"one of {', '.join(WORKLOAD_FIELDS)}", key
                )
    with check.section():
        wtype = workload.get("type", "request_reply")
        if wtype not in WORKLOAD_TYPES:
            check.fail(
                workload, "type", "workload.type", f"one of {', '.join(WORKLOAD_TYPES)}", wtype
            )
        out["workload_type"] = wtype
    for key in ("message_bytes", "threads", "recipients"):
        with check.section():
            value = workload.get(key)
            if value is not None and _positive_int(value) is None:
                check.fail(workload, key, f"workload.{key}", "a positive whole number", value)
            out[key] = value
    with check.section():
        persistence = workload.get("persistence")
        if persistence is not None and persistence not in PERSISTENCE:
            check.fail(
                workload,
                "persistence",
                "workload.persistence",
                "persistent or nonpersistent",
                persistence,
            )
        out["persistence"] = persistence
    with check.section():
        target = workload.get("target_rate_per_s")
        if target is not None and (
            isinstance(target, bool) or not isinstance(target, int | float) or target <= 0
        ):
            check.fail(
                workload,
                "target_rate_per_s",
                "workload.target_rate_per_s",
                "a positive number",
                target,
            )
        out["target_rate_per_s"] = None if target is None else float(target)


def load(ctx: ParseContext) -> dict:
    """Read and validate one manifest file."""
    return validate(read_yaml(ctx, "a run manifest"), ctx)


def read_yaml(ctx: ParseContext, what: str) -> object:
    """One small YAML document (a run manifest, a study file), read within bounds.

    gzip, a BOM, a size cap and the alias expansion limit apply; every error names the line.

    Example:
        doc = read_yaml(ParseContext(path=p, source_file="s/r1/run.yaml"), "a run manifest")
    """
    with open_input(ctx.path, ctx.source_file) as fh:
        data = read_text_upto(fh, MAX_MANIFEST_BYTES + 1)
    if len(data) > MAX_MANIFEST_BYTES:
        raise ctx.error(
            f"larger than {MAX_MANIFEST_BYTES} bytes: not {what}",
            line=data.count(b"\n", 0, MAX_MANIFEST_BYTES) + 1,
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ctx.error(f"not UTF-8 text (byte offset {exc.start})", line=1) from None
    try:
        return _load_yaml(text, ctx)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = _line(mark) if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ctx.error(f"not valid YAML: {problem}", line=line) from None
    except (ValueError, TypeError, RecursionError) as exc:
        # PyYAML builds dates and keys as it reads: 2021-02-30, a list used as a key or deep
        # nesting fail inside it, without a position.
        raise ctx.error(f"not valid YAML: {type(exc).__name__}: {exc}", line=1) from None


def _load_yaml(text: str, ctx: ParseContext) -> object:
    """``yaml.load`` with the alias expansion checked between composing and constructing.

    Plain text (printable ASCII, LF line ends, no tab) is read by libyaml's parser when PyYAML
    has it (0.19 ms a manifest against 1.25 ms; the nodes, their lines and the construction are
    the same); anything else, and any text libyaml refuses, by PyYAML's own parser, so what is
    accepted and every error's message and line stay PyYAML's."""
    fast = _c_line_loader()
    if fast is not None and _PLAIN_YAML.fullmatch(text):
        with contextlib.suppress(Exception):
            return _compose_construct(fast(text), ctx)
    return _compose_construct(_line_loader()(text), ctx)


_PLAIN_YAML = re.compile(r"[\x20-\x7e\n]*")


def _compose_construct(loader, ctx: ParseContext) -> object:
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_expansion(node, ctx)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return node.value
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_expansion(root: yaml.Node, ctx: ParseContext) -> None:
    """Refuse YAML whose aliases expand to more than ``MAX_YAML_NODES`` values (or recurse).

    PyYAML shares an aliased node instead of copying it, so a few hundred bytes of nested
    aliases ("billion laughs") build a tiny graph that every later walk (validation, a
    message quoting the value) expands to billions of values. Sizes are counted once per
    distinct node, so this check costs as much as the file is long.
    """
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node: yaml.Node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise ctx.error("YAML alias refers to itself", line=_line(node.start_mark))
        open_nodes.add(key)
        total = 1 + sum(size(child) for child in _children(node))
        open_nodes.discard(key)
        sizes[key] = total
        return total

    if size(root) <= MAX_YAML_NODES:
        return
    node = root
    while True:  # the smallest node that alone exceeds the limit: where the aliases pile up
        bigger = [c for c in _children(node) if sizes[id(c)] > MAX_YAML_NODES]
        if not bigger:
            break
        node = bigger[0]
    raise ctx.error(
        f"YAML aliases expand to {size(root):,} values (at most {MAX_YAML_NODES:,} in a manifest)",
        line=_line(node.start_mark),
    )


def sniff(head: bytes, name: str) -> bool:
    # The name decides: a run.yaml that is not a valid manifest must be reported as one (and
    # hold its folder's files back), not be taken for some other format or nothing.
    return name.lower() in MANIFEST_NAMES


def parse(ctx: ParseContext) -> Iterator[Batch]:
    m = load(ctx)
    base = {
        "source_file": ctx.source_file,
        "source_line": 1,
        "study": m["study"],
        "run_id": m["run"],
    }
    yield (
        RUN_TABLE.name,
        [
            {
                **base,
                "description": m["description"],
                "configuration": m["configuration"],
                "interval_start": m["interval_start"],
                "interval_end": m["interval_end"],
                "system_id": m["system"],
                "qmgr": m["qmgr"],
                "platform": m["platform"],
                "host": m["host"],
                "hardware_model": m["hardware_model"],
                "scenario": m["scenario"],
                "series_file": m["series"],
                "workload_type": m["workload_type"],
                "message_bytes": m["message_bytes"],
                "persistence": m["persistence"],
                "threads": m["threads"],
                "target_rate_per_s": m["target_rate_per_s"],
                "recipients": m["recipients"],
                "transactions": m["transactions"],
                "channels": m["channels"],
                "baseline_run_id": m["baseline"],
                "labels_json": json.dumps(m["labels"], sort_keys=True),
                "utc_offset_minutes": m["utc_offset_minutes"],
                "timezone": m["timezone"],
                "replicate": m["replicate"],
                "build": m["build"],
                "version": m["version"],
            }
        ],
    )
    yield LABEL_TABLE.name, [{**base, "label": k, "value": v} for k, v in m["labels"].items()]
    yield ROLE_TABLE.name, [{**base, "jobname": j, "role": r} for j, r in m["jobs"].items()]


PARSER = Parser(
    kind="manifest",
    description="Run manifest (run.yaml): study, run, interval, workload, labels, baseline, jobs",
    tables=(RUN_TABLE, LABEL_TABLE, ROLE_TABLE),
    sniff=sniff,
    parse=parse,
    priority=0,
)
