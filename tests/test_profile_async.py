"""``profile`` and ``bench --per-kernel`` on real XLA:TPU traces (TPU v5e, tests/data/profiles/tpu):
async ops carry no roofline, their transfer is overlap; every other kernel with bytes or FLOPs
has a bound; steps are the module's own in a trace of two modules; the step wall time against
the device's busy time, and a host-bound program said to be one; a TPU module with a trace
that names no chip says which --device the bounds need. Oracles: the Chrome trace's own events,
read here with gzip + json (tests/profile_traces.py)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.fusions import fusion_report
from hloscope.analysis.op_profile import op_profile, read_trace
from hloscope.analysis.op_profile.overlap import is_async
from hloscope.analysis.peaks import vendor_peak
from hloscope.bench.traced import traced_kernels
from hloscope.capture.target import Target
from hloscope.cli import cli
from hloscope.devices import for_kind
from hloscope.units import format_duration

sys.path.insert(0, str(Path(__file__).resolve().parent))
import profile_traces as traces  # noqa: E402

TPU = traces.TPU
V5E = for_kind("TPU v5 lite")
CASES = ("conv_step", "matmul", "elementwise", "lm_step")


def module_of(case: str):
    return Target.resolve(str(TPU / case / "dump")).choose_module("after", None).module


def module_of_file(path: Path):
    return Target.resolve(str(path)).choose_module("after", None).module


def profile_of(case: str, **options):
    return op_profile(read_trace(TPU / case), module_of(case), **options)


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "100"})


def ops_by_name(case: str) -> dict[str, list[dict]]:
    """The XLA Ops line's events by op name, in time order, read without hloscope."""
    out: dict[str, list[dict]] = {}
    for e in sorted(traces.device_events(traces.chrome(case))["XLA Ops"], key=lambda e: e["ts"]):
        out.setdefault(e["name"], []).append(e)
    return out


def span_ns(e: dict) -> tuple[float, float]:
    start = int(e["args"]["device_offset_ps"]) / 1000
    return start, start + int(e["args"]["device_duration_ps"]) / 1000


# ---- 1. async ops: no roofline, overlap instead -------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_no_kernel_of_any_share_is_above_a_roof(case: str) -> None:
    """The LM step's copy-starts read up to 7,700x the HBM roof as kernels; as async ops they
    have no bound, and no kernel of any share is above a roof, in profile and in bench."""
    profile = profile_of(case, device=V5E)
    assert all(k.fraction is None or k.fraction <= 1 for k in profile.kernels)
    assert not any("above 100% of a roof" in n for n in profile.notes)
    rows = traced_kernels(profile, module_of(case), vendor_peak("TPU v5 lite"))
    assert not [k.name for k in rows if k.roofline.beaten]
    for kernel, row in zip(profile.kernels, rows):
        if kernel.asynchronous:
            assert kernel.bound is None and kernel.fraction is None
            assert row.roofline.bound is None and row.contract()["bytes_per_s"] is None


@pytest.mark.parametrize("case", ["lm_step", "conv_step"])
def test_every_async_pair_is_overlap_measured_from_the_trace(case: str) -> None:
    """Each start/done pair of the trace (paired by the done's operand in its HLO text): its
    span from the start's beginning to the done's end, per step, and the hidden part, the
    union of the other (non-async, leaf) ops' intervals within it."""
    profile = profile_of(case, device=V5E)
    events = ops_by_name(case)
    dones = {
        name: re.search(r"%([\w.\-]+)\)$", evs[0]["args"]["long_name"]).group(1)
        for name, evs in events.items()
        if evs[0]["args"]["hlo_category"] in ("copy-done", "async-done")
    }
    assert {(o.start, o.done) for o in profile.overlaps} == {(s, d) for d, s in dones.items()}
    assert {k.name for k in profile.kernels if k.asynchronous} == {
        n
        for n, evs in events.items()
        if evs[0]["args"]["hlo_category"].endswith(("-start", "-done"))
    }
    leaves = sorted(
        span_ns(e)
        for evs in events.values()
        for e in evs
        if not e["args"]["hlo_category"].endswith(("-start", "-done")) and e["name"] != "while"
    )
    for overlap in profile.overlaps[:12]:
        spans = [
            (span_ns(s)[0], span_ns(d)[1])
            for s, d in zip(events[overlap.start], events[overlap.done])
        ]
        assert overlap.pairs == len(spans)
        whole = sum(hi - lo for lo, hi in spans) * 1e-9 / profile.steps
        assert overlap.span_s == pytest.approx(whole, rel=1e-9)
        hidden = 0.0
        for lo, hi in spans:  # brute force: each instant covered once
            covered, end = 0.0, lo
            for a, b in leaves:
                a, b = max(a, end), min(b, hi)
                if b > a:
                    covered += b - a
                    end = b
            hidden += covered
        assert overlap.hidden_s == pytest.approx(hidden * 1e-9 / profile.steps, rel=1e-6)
        assert overlap.hidden_s + overlap.exposed_s == pytest.approx(overlap.span_s)
    # Over all pairs: the union of their spans, and the part no leaf op covered.
    merged = _union(
        [
            (span_ns(begun)[0], span_ns(waited)[1])
            for done, start in dones.items()
            for begun, waited in zip(events[start], events[done])
        ]
    )
    in_flight = sum(hi - lo for lo, hi in merged)
    covered = sum(max(0.0, min(b, hi) - max(a, lo)) for lo, hi in merged for a, b in _union(leaves))
    assert profile.async_in_flight_s == pytest.approx(in_flight * 1e-9 / profile.steps)
    assert profile.async_exposed_s == pytest.approx(
        (in_flight - covered) * 1e-9 / profile.steps, rel=1e-6
    )


def _union(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(a, b) for a, b in out]


def test_the_lm_steps_prefetches_are_mostly_hidden_and_carry_their_bytes() -> None:
    profile = profile_of("lm_step")
    copies = [o for o in profile.overlaps if o.opcode == "copy-start"]
    assert len(copies) > 100
    big = next(o for o in copies if o.start == "copy-start.20")
    assert big.bytes == 12 * 2**20  # bf16[16,512,768] through HBM once
    assert sum(o.hidden_s for o in copies) > 0.9 * sum(o.span_s for o in copies)


@pytest.mark.parametrize("case", ["lm_step", "conv_step"])
def test_profile_and_bench_output_show_the_overlap(case: str, tmp_path: Path) -> None:
    trace, dump = TPU / case, TPU / case / "dump"
    done = invoke("profile", str(trace), str(dump), "--device", "tpu-v5e", "--top", "5")
    assert done.exit_code == 0, done.output
    assert "async transfers:" in done.output and "exposed" in done.output
    data = json.loads(invoke("profile", str(trace), str(dump), "--json").stdout)
    assert data["async"] and all(
        set(a) >= {"start", "done", "span_s", "hidden_s", "exposed_s"} for a in data["async"]
    )
    assert all(k["bound"] is None for k in data["kernels"] if k["async"])
    text, result = bench_of(case)
    assert "async pair" in text and "async     " in text
    assert result.to_dict()["per_kernel"]["async"] == [o.row() for o in result.overlaps]
    assert all(
        k["bound"] is None and k["roofline_fraction"] is None
        for k in result.to_dict()["kernels"]
        if k["async"]
    )


def bench_of(case: str, top: int | None = 20, width: int = 100):
    """The bench result ``bench --per-kernel`` builds from this trace, and its text."""
    import io

    from rich.console import Console

    from hloscope.analysis.roofline import NO_ROOFLINE
    from hloscope.bench.api import IN_PROGRAM, BenchResult
    from hloscope.bench.profile import ProgramProfile
    from hloscope.bench.timing import Timing
    from hloscope.render.bench_text import render_bench

    profile = profile_of(case)
    wall = json.loads((TPU / case / "facts.json").read_text())["median_s"]
    peak = vendor_peak("TPU v5 lite")
    result = BenchResult(
        device="TPU_0 (TPU v5 lite)",
        module=profile.module,
        timing=Timing([wall], median_s=wall, min_s=wall, p10_s=wall, p90_s=wall),
        flops=0,
        bytes=0,
        roofline=NO_ROOFLINE,
        peak=peak,
        kernels=list(traced_kernels(profile, module_of(case), peak)),
        per_kernel=True,
        timed=IN_PROGRAM,
        traced=ProgramProfile(True, "", profile, profile.steps, wall),
    )
    out = io.StringIO()
    render_bench(result, Console(file=out, width=width), top=top)
    return out.getvalue(), result


# ---- 2. a bound for every kernel with bytes or FLOPs ---------------------------------------


@pytest.mark.parametrize("case", ["lm_step", "conv_step"])
def test_every_kernel_with_bytes_or_flops_has_a_bound(case: str) -> None:
    """Kernels whose operands and result all live on chip (S(1)) move no HBM byte: with no
    FLOP either they had no bound; they are bound on-chip (no position: no roof for VMEM)."""
    module = module_of(case)
    work = {
        k.name
        for k in fusion_report(module).kernels
        if (k.cost.flops > 0 or k.cost.bytes_accessed > 0) and not is_async(k.opcode)
    }
    profile = profile_of(case, device=V5E)
    ran = [k for k in profile.kernels if k.name in work]
    assert ran and all(k.bound is not None for k in ran), [k.name for k in ran if not k.bound]
    on_chip = [k for k in ran if k.bound == "on-chip"]
    assert on_chip and all(k.fraction is None and not k.hbm_bytes for k in on_chip)
    rows = traced_kernels(profile, module, vendor_peak("TPU v5 lite"))
    assert all(r.roofline.bound is not None for r in rows if r.name in work)


# ---- 5. two modules run in turn --------------------------------------------------------------


@pytest.mark.parametrize("pair", [("lm_step", "conv_step"), ("matmul", "elementwise")])
def test_a_trace_of_two_modules_counts_each_modules_own_steps(
    pair: tuple[str, str], tmp_path: Path
) -> None:
    """A train step and an eval step run in turn, two steps each (two real traces' events,
    interleaved): four steps on the Steps line, two of each module."""
    traces.write(traces.interleaved(*pair), tmp_path)
    for case in pair:
        alone = profile_of(case)
        mixed = op_profile(read_trace(tmp_path), module_of(case))
        assert mixed.steps == 2 and "2 of the trace's 4 steps" in mixed.step_rule
        other = next(c for c in pair if c != case)
        note = next(n for n in mixed.notes if n.startswith("other modules"))
        per_step = format_duration(profile_of(other).device_time_s)
        assert f"jit_{other} {per_step}" in note  # in its unit, like every duration
        own = sum(
            span_ns(e)[1] - span_ns(e)[0]
            for e in traces.device_events(traces.chrome(case))["XLA Ops"]
        )
        assert mixed.device_time_s == pytest.approx(alone.device_time_s, rel=0.01)
        assert mixed.device_time_s == pytest.approx(own * 1e-9 / 5, rel=0.01)
        done = invoke("profile", str(tmp_path), str(TPU / case / "dump"), "--json")
        assert json.loads(done.stdout)["steps"] == 2


# ---- 6. a TPU module, a trace that names no chip ---------------------------------------------


@pytest.mark.parametrize("case", ["lm_step", "matmul"])
def test_a_tpu_module_without_device_names_the_device_bounds_need(case: str) -> None:
    bare = profile_of(case)
    assert all(k.bound is None for k in bare.kernels)
    assert any("--device tpu-v5e" in n and "TPU module" in n for n in bare.notes)
    assert bare.needs_device == "tpu-v5e" and profile_of(case, device=V5E).needs_device == ""
    done = invoke("profile", str(TPU / case), str(TPU / case / "dump"))
    head = next(line for line in done.output.splitlines() if line.startswith("device "))
    assert done.exit_code == 0 and "bounds need --device tpu-v5e" in head


def test_a_cpu_module_is_not_told_to_use_a_tpu() -> None:
    cpu = Path(__file__).resolve().parent / "data" / "profiles" / "cpu" / "mlp"
    done = invoke("profile", str(cpu), str(cpu / "step.hlo"))
    assert done.exit_code == 0, done.output
    assert "tpu-v5e" not in done.output
    assert op_profile(read_trace(cpu), module_of_file(cpu / "step.hlo")).needs_device == ""


# ---- 7. step wall time against device busy time ---------------------------------------------


@pytest.mark.parametrize(("case", "gap_us"), [("lm_step", 60_000.0), ("elementwise", 5_000.0)])
def test_a_host_bound_trace_says_the_question_is_the_host(
    case: str, gap_us: float, tmp_path: Path
) -> None:
    traces.write(traces.host_bound(case, gap_us), tmp_path)
    profile = op_profile(read_trace(tmp_path), module_of(case))
    assert profile.step_times and all(t.idle_share > 0.5 for t in profile.step_times)
    assert "question is the host" in profile.notes[0]
    done = invoke("profile", str(tmp_path), str(TPU / case / "dump"))
    out = " ".join(done.output.split())
    assert out.index("per step wall") < out.index("question is the host") < out.index("time/step")


@pytest.mark.parametrize("case", ["lm_step", "elementwise"])
def test_a_device_bound_trace_shows_its_steps_and_no_host_question(case: str) -> None:
    profile = profile_of(case)
    steps = traces.device_events(traces.chrome(case))["Steps"]
    if steps:  # the Steps line's spans are the walls
        walls = sorted(int(e["args"]["device_duration_ps"]) * 1e-12 for e in steps)
        assert sorted(t.wall_s for t in profile.step_times) == pytest.approx(walls)
    assert all(t.idle_share < 0.5 for t in profile.step_times)
    assert not any("question is the host" in n for n in profile.notes)
    done = invoke("profile", str(TPU / case), str(TPU / case / "dump"))
    assert "per step wall" in done.output and "question is the host" not in done.output


# ---- 8. bench --per-kernel: the top N by default ---------------------------------------------


@pytest.mark.parametrize("case", ["lm_step", "conv_step"])
def test_bench_per_kernel_shows_the_top_20_and_says_what_is_left_out(case: str) -> None:
    text, result = bench_of(case)
    rows = result.kernel_rows()
    left = rows[20:]
    share = sum(r["share"] for r in left)
    said = " ".join(text.split())
    assert f"(20 of {len(rows)} kernels shown; the other {len(left)} hold {share:.1%}" in said
    every, _ = bench_of(case, top=None, width=400)
    assert all(r["name"] in every for r in rows[:60]) and "kernels shown" not in every


def test_bench_top_and_all_exclude_each_other() -> None:
    done = invoke("bench", "x.hlo", "--per-kernel", "--all", "--top", "3")
    assert done.exit_code != 0 and "exclude each other" in done.output


@pytest.mark.parametrize("case", ["lm_step", "conv_step"])
def test_the_roofline_chart_places_no_async_op(case: str) -> None:
    from hloscope.render.roofline_svg import bench_points

    _, result = bench_of(case)
    rows = result.kernel_rows()
    names = {p.name for p in bench_points(result.to_dict(), rows)}
    assert not {r["name"] for r in rows if r["async"]} & names
    assert {r["name"] for r in rows if not r["async"]} <= names


@pytest.mark.parametrize("case", ["lm_step", "conv_step"])
def test_without_target_the_trace_text_pairs_the_async_ops(case: str) -> None:
    """No module joined: each op's HLO text in the trace names its opcode and a done's start,
    so the pairs and their overlap are the same as with TARGET."""
    bare = op_profile(read_trace(TPU / case), device=V5E)
    joined = profile_of(case, device=V5E)
    assert [(o.start, o.done, o.pairs, o.span_s, o.hidden_s) for o in bare.overlaps] == [
        (o.start, o.done, o.pairs, o.span_s, o.hidden_s) for o in joined.overlaps
    ]
    assert all(k.bound is None for k in bare.kernels if k.asynchronous)
    assert {k.name for k in bare.kernels if k.asynchronous} == {
        k.name for k in joined.kernels if k.asynchronous
    }
