"""``hloscope profile TRACE [TARGET]``: real profiler traces read offline (tests/data/profiles).

The traces are XLA:CPU's, recorded by ``tests/data/profiles/regenerate.py``; ``facts.json``
beside each is what the recording knows (steps marked, executions, XLA's ``cost_analysis()``)
and is the oracle here, with the trace's raw events read by plain gzip + json.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.errors import OpProfileMismatch
from hloscope.analysis.op_profile import compare_profiles, op_profile, read_trace
from hloscope.capture.target import Target
from hloscope.cli import cli
from hloscope.profile import TraceFormat, TracePathError, read_chrome_trace, trace_file

ROOT = Path(__file__).resolve().parents[1]
CPU = ROOT / "tests" / "data" / "profiles" / "cpu"
CASES = ("mlp", "loop", "two_modules")
MODULE_FILE = {"mlp": "step", "loop": "run", "two_modules": "heavy"}


def facts(case: str) -> dict:
    return json.loads((CPU / case / "facts.json").read_text())


def module_of(case: str, name: str | None = None):
    path = CPU / case / f"{name or MODULE_FILE[case]}.hlo"
    return Target.resolve(str(path)).choose_module("after", None).module


def invoke(*args: str, columns: int = 80):
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns)})


def raw_ops(case: str, module: str) -> list[dict]:
    """The trace's kernel events of ``module``, read without hloscope: XLA:CPU's events that
    carry an ``hlo_op`` argument."""
    path = CPU / case / "trace" / "plugins" / "profile" / "run" / "host.trace.json.gz"
    events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
    return [
        e
        for e in events
        if e.get("ph") == "X"
        and e.get("args", {}).get("hlo_module") == module
        and "hlo_op" in e.get("args", {})
        and not e["name"].startswith("end: ")
    ]


def busy_us(events: list[dict]) -> float:
    """The time the threads were busy with ``events`` (the union of their intervals per
    thread, summed over threads), in microseconds."""
    by_thread: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for e in events:
        by_thread[e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
    total = 0.0
    for spans in by_thread.values():
        spans.sort()
        end = -1.0
        for start, stop in spans:
            if stop > end:
                total += stop - max(start, end)
                end = stop
    return total


# ---- steps, sums and the join ---------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_steps_are_counted_as_the_recording_marked_or_ran_them(case: str) -> None:
    known = facts(case)
    profile = op_profile(read_trace(CPU / case), module_of(case))
    expected = known["steps"] or known["runs"][MODULE_FILE[case]]
    assert profile.steps == expected
    assert profile.runs == known["runs"][MODULE_FILE[case]]


@pytest.mark.parametrize("case", CASES)
def test_every_trace_op_is_joined_to_the_module(case: str) -> None:
    module = module_of(case)
    profile = op_profile(read_trace(CPU / case), module)
    assert profile.unjoined == []
    assert all(k.joined for k in profile.kernels)
    names = {e["args"]["hlo_op"] for e in raw_ops(case, module.name)}
    assert {k.name for k in profile.kernels} == names


@pytest.mark.parametrize("case", CASES)
def test_kernels_sum_to_the_device_time_per_step(case: str) -> None:
    module = module_of(case)
    profile = op_profile(read_trace(CPU / case), module)
    assert profile.kernel_time_s == pytest.approx(profile.device_time_s, rel=1e-12)
    assert sum(k.share for k in profile.kernels) == pytest.approx(1.0)
    busy = busy_us(raw_ops(case, module.name)) * 1e-6 / profile.steps
    assert profile.device_time_s == pytest.approx(busy, rel=1e-9)


def test_occurrences_count_every_execution_of_a_loop_body() -> None:
    profile = op_profile(read_trace(CPU / "loop"), module_of("loop"))
    runs = facts("loop")["runs"]["run"]
    body = [k for k in profile.kernels if "body" in (k.scope or "")]
    assert body
    # fori_loop(0, 4, ...): each body kernel runs 4 times per run.
    assert all(k.occurrences == 4 * runs for k in body if k.kind != "while")


def test_flops_per_step_add_up_to_xla_cost_analysis() -> None:
    """A program without loops: its kernels' FLOPs per step are XLA's count for one run."""
    profile = op_profile(read_trace(CPU / "mlp"), module_of("mlp"))
    xla = facts("mlp")["modules"]["step"]["flops"]
    assert sum(k.flops or 0 for k in profile.kernels) == pytest.approx(xla)


def test_the_json_gz_and_the_xplane_give_the_same_profile() -> None:
    pytest.importorskip("jax.profiler")
    for case in CASES:
        module = module_of(case)
        chrome = op_profile(read_trace(CPU / case), module).to_dict()
        xplane = op_profile(read_trace(CPU / case, TraceFormat.XPLANE), module).to_dict()
        assert xplane == chrome
        folder = op_profile(read_trace(CPU / case / "trace"), module).to_dict()
        assert folder == chrome


def test_one_entry_reads_every_trace_and_loads_jax_only_for_the_xplane() -> None:
    """hloscope.profile.read_trace reads the *.trace.json.gz without jax; of an *.xplane.pb
    without jax it says so in one line naming the extra (CLI: exit 1, no traceback)."""
    xplane = next((CPU / "mlp").rglob("*.xplane.pb"))
    probe = (
        "import sys\n"
        "sys.modules['jax'] = None  # as if jax were not installed\n"
        "from hloscope.profile import TraceError, TraceFormat, read_trace\n"
        f"trace = read_trace({str(CPU / 'mlp')!r})\n"
        "print(len(trace.ops) > 0)\n"
        "try:\n"
        f"    read_trace({str(xplane)!r})\n"
        "except TraceError as error:\n"
        "    print(error)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["True", "jax is not installed: pip install 'hloscope[jax]'"]


# ---- modules ------------------------------------------------------------------------------


def test_a_trace_of_another_module_is_refused_not_joined() -> None:
    with pytest.raises(OpProfileMismatch, match="jit_step.*another module"):
        op_profile(read_trace(CPU / "loop"), module_of("mlp"))
    done = invoke("profile", str(CPU / "loop"), str(CPU / "mlp" / "step.hlo"))
    assert done.exit_code == 2
    assert "another module" in done.output


def test_ops_missing_from_a_module_of_the_same_name_are_refused(tmp_path: Path) -> None:
    """Same module name, other instructions: most op names are not found, so no join."""
    text = (CPU / "loop" / "run.hlo").read_text().replace("HloModule jit_run", "HloModule jit_step")
    other = tmp_path / "renamed.hlo"
    other.write_text(text)
    module = Target.resolve(str(other)).choose_module("after", None).module
    with pytest.raises(OpProfileMismatch, match="not instructions of TARGET's module jit_step"):
        op_profile(read_trace(CPU / "mlp"), module)


def test_the_heaviest_module_is_profiled_and_others_named() -> None:
    trace = read_trace(CPU / "two_modules")
    assert set(trace.modules()) == {"jit_heavy", "jit_light"}
    profile = op_profile(trace)
    assert profile.module == "jit_heavy"
    assert set(profile.modules) == {"jit_heavy", "jit_light"}
    assert any("jit_light" in note for note in profile.notes)
    light = op_profile(trace, module_name="jit_light")
    assert light.module == "jit_light"
    assert {k.name for k in light.kernels} == {
        e["args"]["hlo_op"] for e in raw_ops("two_modules", "jit_light")
    }


def test_a_target_dump_of_the_light_module_joins_that_module() -> None:
    done = invoke(
        "profile", str(CPU / "two_modules"), str(CPU / "two_modules" / "light.hlo"), "--json"
    )
    assert done.exit_code == 0, done.output
    names = {k["name"] for k in json.loads(done.stdout)["kernels"]}
    assert names == {e["args"]["hlo_op"] for e in raw_ops("two_modules", "jit_light")}


# ---- the command --------------------------------------------------------------------------


def test_json_has_exactly_the_documented_keys() -> None:
    done = invoke("profile", str(CPU / "mlp"), str(CPU / "mlp" / "step.hlo"), "--json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert list(data) == [
        "device", "steps", "device_time_s", "kernels", "by_source", "async", "step_times",
    ]  # fmt: skip
    assert data["device"] == "/host:CPU" and data["steps"] == 3
    for row in data["kernels"]:
        assert list(row) == [
            "name", "kind", "time_s", "share", "occurrences", "flops", "hbm_bytes", "bound",
            "source", "async",
        ]  # fmt: skip
    assert sum(r["time_s"] for r in data["by_source"]) == pytest.approx(data["device_time_s"])
    sort = next(r for r in data["kernels"] if r["name"].startswith("sort"))
    programs = (CPU.parent / "programs.py").read_text().splitlines()
    line = next(i for i, text in enumerate(programs, 1) if "jnp.sort(" in text)
    assert sort["kind"] == "sort"
    assert sort["source"] == f"/home/user/profiles/programs.py:{line} (mlp.<locals>.step)"


def test_csv_has_one_row_per_kernel() -> None:
    done = invoke("profile", str(CPU / "mlp"), "--csv")
    assert done.exit_code == 0, done.output
    lines = done.stdout.strip().splitlines()
    assert lines[0].split(",")[:3] == ["name", "kind", "time_s"]
    assert len(lines) - 1 == len({e["args"]["hlo_op"] for e in raw_ops("mlp", "jit_step")})


@pytest.mark.parametrize("case", CASES)
def test_the_text_fits_80_columns(case: str) -> None:
    done = invoke("profile", str(CPU / case), str(CPU / case / f"{MODULE_FILE[case]}.hlo"))
    assert done.exit_code == 0, done.output
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    for heading in ("kernel", "by kind", "by source line", "by op_name scope"):
        assert heading in done.stdout


def test_top_limits_the_kernel_rows() -> None:
    done = invoke("profile", str(CPU / "mlp"), "--top", "2")
    assert done.exit_code == 0, done.output
    assert "(2 of " in done.stdout


def test_vs_compares_per_kernel_and_per_line() -> None:
    step = str(CPU / "mlp" / "step.hlo")
    same = invoke("profile", str(CPU / "mlp"), step, "--vs", str(CPU / "mlp"), "--vs-target", step,
                  "--json")  # fmt: skip
    assert same.exit_code == 0, same.output
    data = json.loads(same.stdout)
    assert data["ratio"] == pytest.approx(1.0)
    assert all(row["delta_s"] == 0 for row in data["kernels"] + data["by_source"])
    a = op_profile(read_trace(CPU / "mlp"))
    b = op_profile(read_trace(CPU / "loop"))
    comparison = compare_profiles(a, b)
    assert comparison.ratio == pytest.approx(b.device_time_s / a.device_time_s)
    only_b = {d.key for d in comparison.kernels if d.a_s is None}
    assert only_b == {k.name for k in b.kernels} - {k.name for k in a.kernels}
    text = invoke("profile", str(CPU / "mlp"), "--vs", str(CPU / "loop"))
    assert text.exit_code == 0, text.output
    assert "B/A" in text.stdout and max(map(len, text.stdout.splitlines())) <= 80


def test_the_device_option_gives_bounds_and_roofline_positions() -> None:
    done = invoke("profile", str(CPU / "mlp"), str(CPU / "mlp" / "step.hlo"), "--json",
                  "--device", "tpu-v5e")  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = {r["name"]: r for r in json.loads(done.stdout)["kernels"]}
    # The 128x256x256 product does 32 FLOPs per byte, left of the v5e's ridge (197 TFLOP/s
    # over 819 GB/s: 240 FLOPs per byte); tanh does no FLOPs by XLA's count.
    product = rows["ynn_fusion.2"]
    assert product["flops"] / product["hbm_bytes"] == pytest.approx(32)
    assert product["bound"] == "memory" and rows["wrapped_tanh"]["bound"] == "memory"
    # On a chip whose ridge is left of 32 FLOPs per byte, the product is compute-bound.
    from hloscope import devices

    slow = devices.Device(
        "test-slow-chip", devices.Platform.TPU, "test slow chip", "test slow chip",
        flops_per_s={"f32": 1e12}, memory_bytes_per_s=1e12,
    )  # fmt: skip
    devices.register(slow)
    try:
        profile = op_profile(read_trace(CPU / "mlp"), module_of("mlp"), device=slow)
    finally:
        devices.unregister("test-slow-chip")
    kernel = next(k for k in profile.kernels if k.name == "ynn_fusion.2")
    assert kernel.bound == "compute"
    assert kernel.fraction == pytest.approx(kernel.flops / 1e12 / kernel.time_s)
    assert kernel.fraction < 1


def test_trace_paths_that_name_no_trace_are_usage_errors(tmp_path: Path) -> None:
    assert invoke("profile", str(tmp_path / "nothing")).exit_code == 2
    assert invoke("profile", str(tmp_path)).exit_code == 2  # a folder with no trace
    broken = tmp_path / "x.trace.json.gz"
    broken.write_bytes(b"\x1f\x8bnot gzip")
    done = invoke("profile", str(broken))
    assert done.exit_code == 1 and "cannot read the trace" in done.output
    with pytest.raises(TracePathError):
        trace_file(tmp_path / "a.txt") if (tmp_path / "a.txt").write_text("x") else None


def test_a_folder_holding_both_files_reads_the_json_gz_unless_asked() -> None:
    assert trace_file(CPU / "mlp").name == "host.trace.json.gz"
    assert trace_file(CPU / "mlp", TraceFormat.XPLANE).name == "host.xplane.pb"


def test_the_json_gz_is_read_without_jax() -> None:
    """The core install: with every import of jax refused, the profile still reads."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('jax', 'jaxlib', 'tensorflow'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from hloscope.cli import main\n"
        "sys.argv = ['hloscope', 'profile', sys.argv[1], sys.argv[2], '--json']\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(CPU / "mlp"), str(CPU / "mlp" / "step.hlo")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["steps"] == 3


def test_nested_ops_on_one_line_count_their_own_time_only(tmp_path: Path) -> None:
    """A device line that draws a loop around its body's ops (as XLA:TPU's XLA Ops line can):
    the loop's self time is its span less the body's, and the device time is the span."""
    fusion = "%fusion.2 = f32[] fusion(), kind=kLoop"
    events = [
        {"ph": "M", "pid": 7, "name": "process_name", "args": {"name": "/device:TPU:0"}},
        {"ph": "M", "pid": 7, "tid": 1, "name": "thread_name", "args": {"name": "XLA Ops"}},
        {"ph": "M", "pid": 7, "tid": 2, "name": "thread_name", "args": {"name": "XLA Modules"}},
        {"ph": "X", "pid": 7, "tid": 2, "ts": 0, "dur": 100, "name": "jit_f(3)"},
        {"ph": "X", "pid": 7, "tid": 1, "ts": 0, "dur": 100, "name": "%while.1 = (f32[]) while()"},
        {"ph": "X", "pid": 7, "tid": 1, "ts": 10, "dur": 30, "name": fusion},
        {"ph": "X", "pid": 7, "tid": 1, "ts": 50, "dur": 30, "name": fusion},
    ]  # fmt: skip
    path = tmp_path / "t.trace.json.gz"
    path.write_bytes(gzip.compress(json.dumps({"traceEvents": events}).encode()))
    profile = op_profile(read_chrome_trace(path))
    times = {k.name: k.time_s for k in profile.kernels}
    assert times == pytest.approx({"while.1": 40e-6, "fusion.2": 60e-6})
    assert profile.device_time_s == pytest.approx(100e-6)
    assert profile.module == "jit_f" and profile.steps == 1
    assert {k.name: k.kind for k in profile.kernels} == {"while.1": "while", "fusion.2": "kLoop"}


# ---- the report's section -----------------------------------------------------------------


def test_the_report_has_a_profile_section_with_escaped_names(tmp_path: Path) -> None:
    from hloscope.reporting import build_report

    text = (CPU / "mlp" / "step.hlo").read_text()
    evil = "/home/user/<script>alert(1)</script>.py"
    assert "/home/user/profiles/programs.py" in text
    hlo = tmp_path / "step.hlo"
    hlo.write_text(text.replace("/home/user/profiles/programs.py", evil))
    report = build_report(str(hlo), graphs=0, profile=str(CPU / "mlp"))
    assert "profile" in report.section_names()
    assert report.profile is not None
    assert {k.name for k in report.profile.kernels} == {
        e["args"]["hlo_op"] for e in raw_ops("mlp", "jit_step")
    }
    page = report.write(tmp_path / "r.html").read_text()
    assert 'id="' in page and "-profile-table" in page
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)" in page


def test_the_report_says_when_the_trace_is_of_another_module(tmp_path: Path) -> None:
    done = invoke("report", str(CPU / "mlp" / "step.hlo"), "--profile", str(CPU / "loop"),
                  "--graphs", "0", "-o", str(tmp_path / "r.html"))  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "profile left out" in done.output and "another module" in done.output
    assert "-profile-table" not in (tmp_path / "r.html").read_text()
