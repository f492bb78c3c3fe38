"""Which files a run folder gets, in order: one writer per raw format.

A writer takes a :class:`RunPlan` and the run folder and returns the files it wrote (none when
the run's scenario group does not ask for that format).

Example:
    for name, writer in WRITERS: writer(plan, folder)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mqcap.generate.chstatus import write_chstatus
from mqcap.generate.distributed import write_amqsmon, write_amqsrua
from mqcap.generate.driver import write_driver
from mqcap.generate.manifest import write_manifest
from mqcap.generate.netstat import write_netstat
from mqcap.generate.rmf import write_crypto, write_workload
from mqcap.generate.scenario import RunPlan
from mqcap.generate.smf import write_smf

Writer = Callable[[RunPlan, Path], list[Path]]

WRITERS: tuple[tuple[str, Writer], ...] = (
    ("manifest", write_manifest),
    ("driver_csv", write_driver),
    ("rmf_workload", write_workload),
    ("rmf_crypto", write_crypto),
    ("chstatus", write_chstatus),
    ("netstat", write_netstat),
    ("smf_mq", write_smf),
    ("amqsrua", write_amqsrua),
    ("amqsmon", write_amqsmon),
)
