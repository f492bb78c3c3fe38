"""Land raw files in DuckDB: discover, detect the format, parse, land; the ledger records each.

Guarantees (README "Dropping files" and "Reliability"):
- raw files are only read, never moved or modified, and only inside the raw root;
- a file's rows and its ledger row commit together or not at all: small files land in batches
  (one transaction for many), and a file the batch cannot take is landed (or set aside) on its
  own, so a bad file never costs the others;
- files are hashed, sniffed and parsed by ``settings.jobs`` processes (``mqcap.ingest_pool``)
  while this process alone writes, in the same order whatever the number of jobs;
- re-dropping an identical file is a no-op; a changed file under the same path replaces its
  own rows atomically; the same content under another name is set aside as a duplicate;
- bad input is set aside with a reason naming the file and the position, and the next file loads;
- environment errors are not bad input: a file that vanishes, turns into a folder or cannot be
  read is skipped with a message and retried by the next ingest; a warehouse that cannot be
  written (disk full) stops the batch, keeping everything committed before;
- deletions follow the raw folder: the rows of a file that is gone leave landing;
- any byte sequence is a file name (stored escaped, printed safely: ``mqcap.names``).

One module per concern, lowest first (none imports this package's ``__init__``):
- ``report``: :class:`FileOutcome` and :class:`IngestReport`, what an ingest did;
- ``discovery``: which raw files, in which order, under which stored names;
- ``sweep``: deletions (a ledger file whose raw file is gone leaves landing);
- ``changes``: what needs work (stat, then sha256, against the ledger);
- ``parsing``: where files are parsed (the ``--jobs`` pool, Spark, or here);
- ``landing``: the writer (the batch transaction, one file alone when it fails, set-asides);
- ``manifests``: run manifests read once and checked (run ids, baselines);
- ``flow``: the conductor, taking each file through the others in the batch's order;
- here: :func:`ingest`, the entry point (the warehouse opened, environment errors stated).

Every read and write of ``meta.ingest_ledger`` is in :mod:`mqcap.ledger.files`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import duckdb

from mqcap import duplicates, faults, warehouse
from mqcap.errors import EnvironmentProblem
from mqcap.ingest.discovery import discover, discover_names
from mqcap.ingest.flow import Ingestor
from mqcap.ingest.landing import WarehouseFailed
from mqcap.ingest.report import FileOutcome, IngestReport
from mqcap.ingest_pool import clear_spool
from mqcap.ledger import schema
from mqcap.names import printable
from mqcap.parsers.base import OutsideRoot, ReadRules, reading, sha256_of
from mqcap.progress import Progress
from mqcap.settings import Settings

__all__ = ["FileOutcome", "IngestReport", "discover", "ingest", "sha256_of"]

INGEST_MEMORY_LIMIT = "512MB"


def _stopped(settings: Settings, report: IngestReport, rel: str | None, exc: BaseException) -> str:
    first = (str(exc).splitlines() or [type(exc).__name__])[0]
    where = f" while landing {rel}" if rel else ""
    return printable(
        f"the warehouse {settings.warehouse} could not be written{where} "
        f"({type(exc).__name__}: {first}). Nothing was set aside; the {len(report.landed)} "
        "file(s) landed before stay. Free space (or make the warehouse writable) and run the "
        "command again: the rest of the batch is retried."
    )


def _repeated_records(con: duckdb.DuckDBPyConnection, report: IngestReport) -> list[str]:
    """The sentences of ``duplicates.describe_landed``; when the warehouse cannot answer (out of
    memory, say), one note saying so: every file has landed by then, and the build's
    ``fct_duplicate_records`` counts each copy once whether or not ingest described it."""
    try:
        return duplicates.describe_landed(con, report.landed)
    except Exception as exc:
        if not faults.is_warehouse_problem(exc):
            raise
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        note = (
            f"the new files could not be compared with earlier ones ({type(exc).__name__}: "
            f"{first}); every file landed, and marts.fct_duplicate_records lists the copies"
        )
        report.notes.append(note)
        return [note]


def ingest(
    settings: Settings,
    paths: Iterable[str | os.PathLike] | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Land every new or changed file under ``paths`` (default: the whole raw root).

    Raises :class:`EnvironmentProblem` when the warehouse cannot be written (disk full).

    Example:
        report = ingest(Settings.load(), ["data/raw/attls/ssl-2k"])
        print(report.summary())
    """
    progress = progress or Progress()
    if settings.engine == "spark":  # what the engine needs, before any work (exit 3)
        from mqcap.spark import check_ready

        check_ready(settings.spark_master)
    unreadable: list[Path] = []
    outside: list[Path] = []
    files = discover_names(settings, paths, unreadable, outside)
    # Every raw file is opened beneath the raw root (a link re-pointed out of it while this
    # runs is refused when opened), and gzip expansion is held to the settings' limits.
    rules = ReadRules(
        root=str(settings.raw_root.resolve()),
        max_expanded_bytes=settings.max_expanded_bytes,
        max_gzip_ratio=settings.max_gzip_ratio,
    )
    with warehouse.connect(settings.warehouse) as con, reading(rules):
        # Rows of large files wait in the spool between parsing and landing (one ingest at a
        # time holds the warehouse, so what is there was left by a killed one).
        spool = settings.outputs / "spool"
        ing = Ingestor(settings, con, progress, spool)
        clear_spool(spool)
        for folder in unreadable:
            note = f"folder {folder} cannot be listed (permission denied): its files are kept as they are"
            progress.log(printable(note))
            ing.report.notes.append(note)
        for link in outside:  # (never read; said on every ingest while it stays so)
            rel = ing.rel(link)
            ing.skip(rel, OutsideRoot(link, os.path.realpath(link)))
        try:
            schema.ensure(con)
            # DuckDB's own memory (it spills past this, into <warehouse>.tmp/): a large file's
            # rows stream through it, so ingest stays within about 1 GB whatever the file size
            # (bench/RESULTS.md); DuckDB's default is 80 % of the machine.
            con.execute(
                f"set memory_limit = '{INGEST_MEMORY_LIMIT}'"
            )  # (this instance's: closed after)
            ing.run(files)
            # Records the new files repeat from earlier-loaded files: said here, counted once.
            for note in _repeated_records(con, ing.report):
                progress.log(printable(note))
        except WarehouseFailed as failed:
            if warehouse.damaged(failed.exc):  # (a block of the file is missing: not the disk)
                raise warehouse.damaged_error(settings.warehouse, failed.exc) from None
            raise EnvironmentProblem(_stopped(settings, ing.report, failed.rel, failed.exc)) from (
                failed.exc
            )
        except Exception as exc:
            if not faults.is_warehouse_problem(exc):
                raise
            if warehouse.damaged(exc):
                raise warehouse.damaged_error(settings.warehouse, exc) from None
            raise EnvironmentProblem(_stopped(settings, ing.report, None, exc)) from exc
        finally:
            clear_spool(spool)
    return ing.report
