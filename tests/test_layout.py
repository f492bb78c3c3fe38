"""The package's layering: what ingest loads, what the generator and tests alone use."""

from __future__ import annotations

import subprocess
import sys


def test_ingest_imports_no_encoder():
    # Parsers only parse: loading every parser (what ingest does) must not load mqcap.synth.
    code = (
        "import sys; from mqcap.parsers import all_parsers; from mqcap import ingest; "
        "all_parsers(); print(sorted(m for m in sys.modules if m.startswith('mqcap.synth')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_generator_writes_smf_with_the_synth_encoder():
    code = "import sys; import mqcap.generate.registry; print('mqcap.synth.smf_mq' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
