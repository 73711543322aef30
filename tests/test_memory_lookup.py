"""hloscope memory reads only the computations it needs: fused bodies stay unbuilt."""

from __future__ import annotations

from pathlib import Path

from hloscope.analysis.memory import memory_of
from hloscope.analysis.memory._lookup import InstructionIndex
from hloscope.hlo.parser import parse

SAMPLES = Path(__file__).parent.parent / "samples" / "hlo"
SAMPLE = SAMPLES / "transformer_train.after_optimizations.txt"


def test_simulated_memory_leaves_fused_bodies_unbuilt() -> None:
    module = parse(SAMPLE.read_text())
    fused = module.fusion_computations()
    assert all(c._body is not None for c in fused)  # the parse builds no fused body
    result = memory_of(module)
    assert result.source == "simulated" and result.savings  # the remat advice ran
    # Bodies that update in place are built to find their operand; the rest stay text.
    unbuilt = [c for c in fused if c._body is not None]
    assert len(unbuilt) > len(fused) // 2


def test_index_finds_scheduled_and_fused_names_as_a_full_index_does() -> None:
    module = parse(SAMPLE.read_text())
    index = InstructionIndex(module)
    everything = {i.name: i for i in parse(SAMPLE.read_text()).instructions()}
    scheduled = [i.name for i in module.entry.instructions]
    assert all(index.get(n).name == n for n in scheduled)
    fused_name = next(n for n in everything if n not in set(scheduled))
    assert index.get(fused_name).name == fused_name  # found by reading the rest
    assert index.get("no-such-instruction") is None
    assert "no-such-instruction" not in index
