"""benchmarks/replicate_module.py writes the 200 MB module of RESULTS.md: N renamed copies of a
module under an entry that calls each. XLA's parser must read it, and every hloscope report
must see N times the original's kernels."""

from __future__ import annotations

import importlib.util

from conftest import ROOT, SAMPLES
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis.fusions import fusion_report

SCRIPT = ROOT / "benchmarks" / "replicate_module.py"
SAMPLE = SAMPLES / "hlo" / "transformer_train.after_optimizations.txt"


def _script():
    spec = importlib.util.spec_from_file_location("replicate_module", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_three_copies_have_three_times_the_kernels():
    text = _script().replicate(SAMPLE.read_text(), 3)
    original, copied = hloscope.parse(SAMPLE), hloscope.parse(text)
    assert len(copied.computations) == 3 * len(original.computations) + 1
    assert fusion_report(copied).summary.kernel_count == 3 * (
        fusion_report(original).summary.kernel_count
    )
    entry = copied.entry
    assert [i.opcode for i in entry.instructions].count("call") == 3
    assert len(entry.parameters) == len(original.entry.parameters)


def test_xla_reads_the_copies_as_hloscope_does():
    needs_framework("jax")
    from hloscope.backends._jaxlib import xla_parse

    text = _script().replicate(SAMPLE.read_text(), 2)
    theirs = {c.name: [i.name for i in c.instructions()] for c in xla_parse(text).computations()}
    ours = {c.name: [i.name for i in c.instructions] for c in hloscope.parse(text).computations}
    assert {k: sorted(v) for k, v in ours.items()} == {k: sorted(v) for k, v in theirs.items()}
