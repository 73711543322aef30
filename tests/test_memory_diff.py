"""``hloscope diff A B`` compares peak memory: the peaks, the buffers that left or joined the
peak (matched by what they hold, not by XLA's names), ``--fail-on peak``; and on a transformer
train step dumped with and without ``jax.checkpoint`` on its layers, the remat variant's peak is
lower by exactly the difference of XLA's live-range peaks, and the saved activations are what
left the peak.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SAMPLES
from memory_programs import SCANNED_TRANSFORMER

from hloscope.analysis.memory import LiveBuffer, MemoryResult
from hloscope.analysis.memory_diff import memory_diff
from hloscope.cli import cli
from hloscope.dump.index import load_dump

HLO = SAMPLES / "hlo"
FUSED = HLO / "fusion_refactor_fused.after_optimizations.txt"
SPLIT = HLO / "fusion_refactor_split.after_optimizations.txt"


def _buffer(name: str, nbytes: int, scope: str, source: str = "m.py:3 (f)") -> LiveBuffer:
    return LiveBuffer(name, "f32[4]{0}", nbytes, "temporary", name, source, scope)


def _result(module: str, buffers: list[LiveBuffer]) -> MemoryResult:
    total = sum(b.bytes for b in buffers)
    return MemoryResult(module, "simulated", total, {}, {"index": 0}, buffers, [(0, total)])


def test_buffers_are_matched_by_what_they_hold_not_by_their_names():
    a = _result("a", [_buffer("fusion.3", 16, "jit(f)/jvp(block)"), _buffer("x", 64, "jit(f)/x")])
    # The same activation, another name, the remat variant's scope: still the same buffer.
    b = _result("b", [_buffer("fusion.9", 16, "jit(f_remat)/jvp(block)/checkpoint")])
    found = memory_diff(a, b)
    assert found.delta_bytes == -64
    assert found.percent == pytest.approx(-80.0)
    assert [x.name for x in found.left] == ["x"]
    assert found.joined == []
    assert [(s.key, s.a, s.b) for s in found.by_scope] == [("x", 64, 0)]


def test_buffers_of_another_source_line_left_and_joined():
    # Line 9 is in another function: not the line 3 of f moved.
    a = _result("a", [_buffer("t", 32, "s", "m.py:3 (f)")])
    b = _result("b", [_buffer("t", 32, "s", "m.py:9 (g)"), _buffer("u", 8, "s", "m.py:9 (g)")])
    found = memory_diff(a, b)
    assert [x.source for x in found.left] == ["m.py:3 (f)"]
    assert [x.name for x in found.joined] == ["t", "u"]
    assert [(s.key, s.delta) for s in found.by_source] == [("m.py:9 (g)", 40), ("m.py:3 (f)", -32)]
    assert found.regression(0.0) is not None
    assert found.regression(30.0) is None  # +25%: under the threshold


def _diff(*args: object) -> tuple[int, str, str]:
    out = CliRunner(env={"COLUMNS": "200"}).invoke(cli, ["diff", *map(str, args)])
    return out.exit_code, out.stdout, out.stderr


def test_json_gains_a_memory_key_after_the_kernel_keys():
    code, stdout, _ = _diff("--json", FUSED, SPLIT)
    assert code == 0
    data = json.loads(stdout)
    assert list(data)[-1] == "memory"
    memory = data["memory"]
    assert memory["a"]["module"] == "jit_fused" and memory["b"]["module"] == "jit_split"
    assert memory["a"]["source"] == "simulated"
    assert memory["delta_bytes"] == memory["b"]["peak_bytes"] - memory["a"]["peak_bytes"] > 0
    left = sum(b["bytes"] for b in memory["left_peak"])
    joined = sum(b["bytes"] for b in memory["joined_peak"])
    assert joined - left == memory["delta_bytes"]  # the whole peak is in live_at_peak


def test_text_shows_the_peak_change_and_what_joined_the_peak():
    code, stdout, _ = _diff(FUSED, SPLIT)
    assert code == 0
    assert "peak memory: 112.0 KiB -> 128.0 KiB (+16.0 KiB, +14.3%)" in stdout
    assert "joined the peak:" in stdout
    assert "fusion_refactor.py:" in stdout.split("peak memory:")[1]


def test_same_program_has_the_same_peak():
    code, stdout, _ = _diff(FUSED, FUSED)
    assert code == 0
    assert "peak memory: 112.0 KiB -> 112.0 KiB (=)" in stdout
    assert "left the peak" not in stdout


def test_fail_on_peak_exits_3_when_the_peak_grows_past_the_threshold():
    code, _, stderr = _diff("--fail-on", "peak", FUSED, SPLIT)
    assert code == 3
    assert "peak: 112.0 KiB -> 128.0 KiB (+14.3%, threshold 0%)" in stderr
    code, stdout, _ = _diff("--json", "--fail-on", "peak", "--threshold", "20", FUSED, SPLIT)
    assert code == 0
    assert json.loads(stdout)["fail_on"]["regressions"] == []
    assert _diff("--fail-on", "peak", SPLIT, FUSED)[0] == 0  # a smaller peak is no regression


def test_fail_on_still_refuses_unknown_metrics():
    code, _, stderr = _diff("--fail-on", "peaks", FUSED, SPLIT)
    assert code == 2
    assert "peak" in stderr


# ------------------------------------------------------------------------------------------
# Remat on a real train step
# ------------------------------------------------------------------------------------------

STEP = (
    SCANNED_TRANSFORMER
    + r"""

shapes = {"wq": (D, D), "wk": (D, D), "wv": (D, D), "wo": (D, D), "w1": (D, H), "w2": (H, D)}
ps = {n: jnp.ones((L, *s)) * 0.01 for n, s in shapes.items()}
x = jnp.ones((B, T, D))
jax.jit(train_step).lower(ps, x).compile()
jax.jit(train_step_remat).lower(ps, x).compile()
"""
)


@pytest.fixture(scope="module")
def remat_dumps(tmp_path_factory) -> tuple[Path, Path]:
    """Folders A (plain) and B (remat), each holding one module's dump files."""
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("memory_diff")
    script = folder / "step.py"
    script.write_text(STEP)
    dump = folder / "dump"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text"
    subprocess.run([sys.executable, str(script)], env=env, check=True, timeout=300)
    sides = []
    for name in ("jit_train_step", "jit_train_step_remat"):
        side = folder / name
        side.mkdir()
        for f in dump.glob(f"module_*.{name}.*"):
            if f.is_file():
                (side / f.name).write_bytes(f.read_bytes())
        sides.append(side)
    return sides[0], sides[1]


def _xla_peak(folder: Path) -> int:
    (module,) = [m for m in load_dump(folder).modules if m.after_file is not None]
    peak = module.buffer_assignment().live_range.peak_bytes
    assert peak
    return peak


def test_remat_peak_is_lower_by_xlas_difference_and_the_activations_left(remat_dumps):
    plain, remat = remat_dumps
    code, stdout, _ = _diff("--json", plain, remat)
    assert code == 0
    memory = json.loads(stdout)["memory"]
    assert memory["a"]["source"] == memory["b"]["source"] == "buffer_assignment"
    assert memory["a"]["peak_bytes"] == _xla_peak(plain)
    assert memory["b"]["peak_bytes"] == _xla_peak(remat)
    assert memory["delta_bytes"] == _xla_peak(remat) - _xla_peak(plain) < 0
    left = memory["left_peak"]
    # What the plain step keeps for the backward pass left the peak: the layers' activations,
    # stacked by the scan over the layers (one [L, ...] array each, made on the scan's line).
    scan_line = ":19 (make_step.<locals>.loss)"
    held = [b for b in left if b["source"].endswith(scan_line) and b["shape"].startswith("f32[6,")]
    assert sum(b["bytes"] for b in held) >= 0.8 * -memory["delta_bytes"]
    joined = sum(b["bytes"] for b in memory["joined_peak"])
    assert joined - sum(b["bytes"] for b in left) == memory["delta_bytes"]
    code, text, _ = _diff(plain, remat)
    assert code == 0
    assert "left the peak:" in text and "step.py:19 (make_step.<locals>.loss)" in text
    assert "peak memory:" in text and "%)" in text.split("peak memory:")[1].splitlines()[0]
    assert _diff("--fail-on", "peak", remat, plain)[0] == 3
    assert _diff("--fail-on", "peak", plain, remat)[0] == 0
