"""``mqcap init``: a configuration file for a work folder, and study folders with commented
``study.yaml`` and ``run.yaml`` templates to fill in.

The templates are valid as written (only ``study`` and ``run`` are set; every other field is a
comment saying what it takes), so a run folder made by ``init`` and dropped into at once loads.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mqcap.errors import UsageError, os_problem

NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,64}$")

CONFIG_TEMPLATE = """\
# mqcap settings for this folder and the folders below it (see `mqcap --help`).
# Order: command-line flags, then MQCAP_* environment variables, then this file, then defaults.
# Paths here are relative to this file's folder.

# warehouse = "data/warehouse.duckdb"   # the DuckDB file (MQCAP_WAREHOUSE, --warehouse)
# raw = "data/raw"                      # where runs are dropped: <raw>/<study>/<run>/ (MQCAP_RAW, --raw)
# reports = "reports"                   # report folder (MQCAP_REPORTS_OUT, --reports);
#                                       # default: <warehouse stem>.mqcap/reports beside the warehouse
# jobs = 2                              # processes parsing raw files (MQCAP_JOBS, --jobs);
#                                       # default: the cores
"""

STUDY_TEMPLATE = """\
# How the report of study {study} tells it (optional file; every field but `study` may be left out).
study: {study}
# title: One line saying what was measured
# purpose: What the study sets out to show (free text)
# baseline: the configuration the others are compared with (a run.yaml `configuration`)
# group_by: [scenario, hardware_model]   # dimensions: scenario, hardware_model, host, platform,
#                                        # persistence, or a label name
# configurations:                        # report order and display names
#   - configuration: MQ + SSL
#     display_name: MQ System SSL (baseline)
#   - configuration: MQ + AT-TLS
# notes:
#   - Shown in the report's introduction.
# timezone: Europe/Berlin                # the runs' local clock (or utc_offset: "+01:00")
# noise:                                 # thresholds of replicate verdicts and change points
#   min_change_pct: 1                    # smallest % change called better / worse (default 1)
#   change_point_pvalue: 0.001           # significance of a change point over builds (0.001)
"""

RUN_TEMPLATE = """\
# One run of study {study}: put its raw files (SMF dumps, RMF reports, CHSTATUS captures,
# NETSTAT polls, driver results...) in this folder next to this file, then `mqcap run`.
# Only `study` and `run` are required; uncomment and fill in what you know.
study: {study}
run: {run}                          # unique in the study
# description: MQ + AT-TLS, TLS 1.3, 1 MB request/reply
# configuration: MQ + AT-TLS        # display name; one colour per configuration in reports
# interval:                         # optional when the driver results give it
#   start: 2024-06-01T10:00:00      # ISO timestamps, local time of the measured system
#   end: 2024-06-01T10:05:00
# utc_offset: "+01:00"              # the local clock's offset from UTC (amqsrua prints UTC);
# timezone: Europe/Berlin           #   or an IANA zone instead (default: study.yaml, else UTC)
# system: MPX1                      # z/OS system id (SMF SID), to attribute SMF/RMF data
# qmgr: QML1                        # queue manager
# platform: zos                     # zos | distributed | appliance (with study.yaml support)
# host: mqhost1                     # distributed / appliance host name
# hardware_model: z16               # a grouping dimension in reports
# scenario: local-bindings          # a grouping dimension in reports
# workload:
#   type: request_reply             # request_reply | streaming | put_get | channel_start | channel_stop | other
#   message_bytes: 1048576
#   persistence: nonpersistent      # persistent | nonpersistent
#   threads: 1
#   target_rate_per_s: 10000
# labels:                           # free key/values (protection, cipher, tls_version, key_bits...)
#   cipher: TLS_CHACHA20_POLY1305_SHA256
# baseline: other-run-id            # run id in this study this run is compared with
# transactions: 300000              # transactions in the interval, if no driver count
# jobs:                             # job name or RMF report class -> MSTR, CHIN, TCPIP, AMSM, APP, OTHER
#   QML1MSTR: MSTR
#   QML1CHIN: CHIN
# replicate: 1                      # this repeat's name, when the point is measured several times
# build: mq940-b0217                # the build measured: runs over builds form a history
# version: 9.4.0.5                  # the product version (a history label without a build)
"""


def _check_name(kind: str, name: str) -> None:
    if not NAME.match(name) or name in (".", ".."):
        raise UsageError(f"{kind} name {name!r}: use letters, digits and _ . + - (64 at most)")


def reads_study_files() -> bool:
    """Whether this mqcap has the study.yaml parser (else a study.yaml would be set aside)."""
    from mqcap.parsers import parser_for_kind

    try:
        parser_for_kind("study")
    except KeyError:
        return False
    return True


def _create(path: Path, text: str) -> bool:
    """Write ``text`` to a new file ``path``; False when something is already there.

    Never through a symlink (even a dangling one: its target is not ours to write), never over
    a file (``O_EXCL``): what is there is kept.
    """
    if path.is_symlink():
        raise UsageError(
            f"{path} is a symlink (to {os.readlink(path)}): mqcap init does not write through "
            "links; remove it or write the file yourself"
        )
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except FileExistsError:
        return False
    except OSError as exc:
        raise os_problem(exc, "create") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise os_problem(exc, "write") from None
    return True


def make_folder(path: Path) -> None:
    """``path`` as a folder (made with its parents); a file in the way is a usage error."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"cannot make the folder {path}: a file is in the way") from None
    except OSError as exc:
        raise os_problem(exc, "make the folder") from None


def init_config(folder: Path) -> Path | None:
    """Write ``mqcap.toml`` (all settings commented) in ``folder``; None when one exists.

    Example:
        init_config(Path.cwd())  # Path('/work/mqcap.toml')
    """
    path = folder / "mqcap.toml"
    return path if _create(path, CONFIG_TEMPLATE) else None


def init_study(raw_root: Path, study: str, run: str = "run-1") -> list[Path]:
    """Create ``<raw>/<study>/study.yaml`` (when study files are read) and
    ``<raw>/<study>/<run>/run.yaml``; never overwrite, never write through a symlink.

    Returns the files written (an existing file is kept and not listed).

    Example:
        init_study(Path("data/raw"), "attls")
        # [data/raw/attls/study.yaml, data/raw/attls/run-1/run.yaml]
    """
    _check_name("study", study)
    _check_name("run", run)
    files = [(raw_root / study / run / "run.yaml", RUN_TEMPLATE.format(study=study, run=run))]
    if reads_study_files():
        files.insert(0, (raw_root / study / "study.yaml", STUDY_TEMPLATE.format(study=study)))
    written = []
    for path, text in files:
        make_folder(path.parent)
        if _create(path, text):
            written.append(path)
    return written
