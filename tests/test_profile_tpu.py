"""``hloscope profile`` on real XLA:TPU traces (TPU v5e, jax 0.10.2; tests/data/profiles/tpu).

Recorded on the chip by ``benchmarks/tpu_chip_facts.py`` (five steps of each program of
``samples/tpu_programs.py``) and copied by ``tests/data/profiles/regenerate.py --import-tpu``.
The oracles: ``facts.json`` (the traced step count, XLA:TPU's ``cost_analysis()`` on the chip)
and the Chrome trace's own events, read here with gzip + json: the ``XLA Ops`` line's intervals
and XLA:TPU's ``model_flops`` per op.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from pathlib import Path

import pytest

from hloscope.analysis.errors import OpProfileMismatch
from hloscope.analysis.op_profile import op_profile, read_trace
from hloscope.capture.target import Target
from hloscope.devices import for_kind
from hloscope.profile import TraceFormat

TPU = Path(__file__).resolve().parent / "data" / "profiles" / "tpu"
CASES = ("conv_step", "matmul", "elementwise", "lm_step")


def facts(case: str) -> dict:
    return json.loads((TPU / case / "facts.json").read_text())


def module_of(case: str):
    return Target.resolve(str(TPU / case / "dump")).choose_module("after", None).module


def xla_ops(case: str) -> list[dict]:
    """The events of the device's ``XLA Ops`` line, read without hloscope."""
    path = next((TPU / case / "trace").rglob("*.trace.json.gz"))
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    pids = {
        e["pid"] for e in events if e.get("name") == "process_name" and
        e["args"]["name"] == "/device:TPU:0"
    }  # fmt: skip
    tids = {
        (e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name" and
        e["pid"] in pids and e["args"]["name"] == "XLA Ops"
    }  # fmt: skip
    return [e for e in events if e.get("ph") == "X" and (e["pid"], e.get("tid")) in tids]


def profile_of(case: str, fmt: TraceFormat = TraceFormat.CHROME):
    chip = for_kind(facts(case)["device_kind"])
    return op_profile(read_trace(TPU / case, fmt), module_of(case), device=chip)


@pytest.fixture(scope="module", params=CASES)
def case(request: pytest.FixtureRequest) -> str:
    return request.param


def test_steps_are_the_steps_traced(case: str) -> None:
    assert profile_of(case).steps == facts(case)["traced_steps"] == 5


def test_every_trace_op_is_joined_to_the_module(case: str) -> None:
    profile = profile_of(case)
    assert profile.unjoined == []
    assert {k.name for k in profile.kernels} == {e["name"] for e in xla_ops(case)}
    assert all(k.joined for k in profile.kernels)


def test_kernels_sum_to_the_device_time_per_step(case: str) -> None:
    profile = profile_of(case)
    assert profile.kernel_time_s == pytest.approx(profile.device_time_s, rel=1e-12)
    # The XLA Ops line's busy time (the union of its intervals), per step.
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in xla_ops(case))
    busy, end = 0.0, float("-inf")
    for start, stop in spans:
        if stop > end:
            busy += stop - max(start, end)
            end = stop
    assert profile.device_time_s == pytest.approx(busy * 1e-6 / profile.steps, rel=1e-6)
    assert profile.device_time_s < facts(case)["median_s"]  # device time within the wall time


def test_flops_per_kernel_are_xla_tpu_own(case: str) -> None:
    """Each joined kernel's FLOPs per step equal the ``model_flops`` XLA:TPU put on its
    events; for loop-free programs the total is the chip's ``cost_analysis()``."""
    profile = profile_of(case)
    model: dict[str, float] = defaultdict(float)
    for e in xla_ops(case):
        model[e["name"]] += float(e["args"]["model_flops"]) / profile.steps
    for kernel in profile.kernels:
        assert kernel.flops == pytest.approx(model[kernel.name], rel=1e-6, abs=1), kernel.name
    if case in ("matmul", "elementwise"):
        total = sum(k.flops or 0 for k in profile.kernels)
        assert total == pytest.approx(facts(case)["flops"])


def test_the_json_gz_alone_gives_the_folder_and_xplane_answer(case: str) -> None:
    pytest.importorskip("jax.profiler")
    chrome = profile_of(case).to_dict()
    assert op_profile(read_trace(next((TPU / case).rglob("*.trace.json.gz"))), module_of(case),
                      device=for_kind("TPU v5 lite")).to_dict() == chrome  # fmt: skip
    xplane = op_profile(read_trace(TPU / case, TraceFormat.XPLANE), module_of(case))
    assert xplane.chip == "tpu-v5e"  # the XPlane names its chip ("TPU v5 Lite")
    assert xplane.to_dict() == chrome


def test_roofline_positions_on_the_v5e() -> None:
    """A large bf16 product is compute-bound near the MXU peak, a large elementwise op
    memory-bound near 819 GB/s, and nothing is above 100% of a roof."""
    matmul = profile_of("matmul").kernels[0]
    assert matmul.bound == "compute" and 0.8 <= matmul.fraction <= 1.0
    elementwise = profile_of("elementwise").kernels[0]
    assert elementwise.bound == "memory" and 0.7 <= elementwise.fraction <= 1.0


def test_a_trace_of_another_module_is_refused() -> None:
    with pytest.raises(OpProfileMismatch, match="jit_matmul"):
        op_profile(read_trace(TPU / "conv_step"), module_of("matmul"))


def test_the_lm_step_profile() -> None:
    """The LM step: a thousand kernels in 21.5 ms of device time per step."""
    profile = profile_of("lm_step")
    assert len(profile.kernels) == len({e["name"] for e in xla_ops("lm_step")}) > 900
    assert profile.by_source[0].key.endswith(")") and profile.by_source[0].share > 0.05
    assert sum(g.time_s for g in profile.by_kind) == pytest.approx(profile.device_time_s)


def test_nothing_is_above_a_roof_and_an_unnamed_chip_is_said() -> None:
    """The LM step's async copy-starts, whose bytes over their issue time read thousands of
    times the HBM roof, carry no bound (tests/test_profile_async.py): nothing is above a
    roof. A Chrome trace does not name its chip: without --device the profile says which
    device the bounds need."""
    profile = profile_of("lm_step")
    assert not any("above 100% of a roof" in n for n in profile.notes)
    bare = op_profile(read_trace(TPU / "lm_step"), module_of("lm_step"))
    assert bare.chip == "" and all(k.bound is None for k in bare.kernels)
    assert any("--device tpu-v5e" in n for n in bare.notes)
