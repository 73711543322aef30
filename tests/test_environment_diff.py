"""``hloscope diff`` of two environments: one function compiled under two jax/jaxlib/libtpu
versions, the versions and the compile time per stage and per pass side by side.

The oracles: each interpreter's own ``importlib.metadata`` for the versions, and JAX's own
stage durations (``jax.monitoring``, as the capture folder kept them) for the stages. The
oldest supported jax lives in the virtual environment ``.ci/run`` builds
(``/tmp/hloscope-oldjax``); the tests that need it are marked ``oldest_jax`` and run there after
it is built (they skip without it, and fail under ``CI=true``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu

from hloscope.analysis.compile_time import CompileTime, Stages, pass_times
from hloscope.analysis.diff.environment import (
    CompileStage,
    environment_diff,
    version_changes,
)
from hloscope.cli import cli
from hloscope.dump.metadata import parse_module_metadata

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "environment_programs.py"
SAMPLE = ROOT / "samples" / "fusion_refactor.py"
METADATA = HERE / "data" / "compile_time" / "xla_tpu_dump" / "module_0000.metadata.textproto"
OLD_VENV = Path(os.environ.get("HLOSCOPE_OLD_JAX_VENV", "/tmp/hloscope-oldjax"))
OLD_PYTHON = OLD_VENV / "bin" / "python"


# ---- the comparison itself -----------------------------------------------------------------------


def test_the_versions_that_changed_are_named_a_package_on_one_side_too():
    a = {"jax": "0.5.0", "jaxlib": "0.5.0", "python": "3.11.7"}
    b = {"jax": "0.10.2", "jaxlib": "0.5.0", "libtpu": "0.0.42.1", "python": "3.11.7"}
    changed = [(c.package, c.a, c.b) for c in version_changes(a, b)]
    assert changed == [("jax", "0.5.0", "0.10.2"), ("libtpu", None, "0.0.42.1")]
    assert version_changes(a, dict(a)) == []


def test_passes_are_ranked_by_how_much_their_time_changed_a_pass_of_one_side_included():
    """XLA:TPU's own metadata of one compile as A; B is the same compile without the runs of
    A's slowest pass and with every run of its second slowest twice as long."""
    runs = parse_module_metadata(METADATA.read_text()).passes
    ranked = pass_times(runs)
    gone, doubled = ranked[0].name, ranked[1].name
    b_runs = []
    for run in runs:
        if run.name == gone:
            continue
        if run.name == doubled:
            run = replace(run, end_usec=run.end_usec * 2 - run.start_usec)
        b_runs.append(run)

    def report(passes):
        return CompileTime("m", None, None, Stages(), passes, [], [], [])

    result = environment_diff({}, {}, report(ranked), report(pass_times(b_runs)), top=0)
    by_name = {p.name: p for p in result.passes}
    assert by_name[gone].b_s is None and by_name[gone].a_s == pytest.approx(ranked[0].time_s)
    assert by_name[doubled].ratio == pytest.approx(2.0, rel=1e-6)
    assert {result.passes[0].name, result.passes[1].name} == {gone, doubled}
    assert result.pass_names == len(ranked)
    deltas = [abs(p.delta_s) for p in result.passes]
    assert deltas == sorted(deltas, reverse=True)


# ---- a capture folder records its environment ----------------------------------------------------


def test_a_function_capture_folder_records_versions_and_stage_times(tmp_path):
    out = tmp_path / "new"
    result = CliRunner().invoke(cli, ["capture", f"{PROGRAMS}:norm_mlp", "-o", str(out)])
    assert result.exit_code == 0, result.output
    index = json.loads((out / "capture" / "capture.json").read_text())
    assert index["versions"]["jax"] == metadata.version("jax")
    assert index["versions"]["jaxlib"] == metadata.version("jaxlib")
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["versions"]) >= {"jax", "jaxlib", "libtpu", "tensorflow"}
    stages = {e["stage"] for e in index["compile_time"]["events"]}
    assert stages == {"trace_s", "lower_s", "backend_compile_s"}
    # The folder is a TARGET like any other: its kernels, and its compile time.
    timed = CliRunner().invoke(cli, ["compile-time", str(out), "--json"])
    assert timed.exit_code == 0, timed.output
    assert json.loads(timed.stdout)["stages"]["trace_s"] > 0


# ---- two environments ----------------------------------------------------------------------------


def _old_python() -> Path:
    """The oldest-jax interpreter ``.ci/run`` builds; a skip without it, a failure under CI."""
    if OLD_PYTHON.is_file():
        return OLD_PYTHON
    why = f"the oldest-jax virtual environment {OLD_VENV} is absent (.ci/run builds it)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {why}")
    pytest.skip(why)


def _versions_in(python: Path) -> dict[str, str]:
    """What ``python``'s own importlib.metadata says of jax and jaxlib."""
    code = (
        "import json; from importlib.metadata import version as v; "
        "print(json.dumps({p: v(p) for p in ('jax', 'jaxlib')}))"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _this_tree_env() -> dict[str, str]:
    """Both interpreters import this tree's hloscope (the old environment's own copy may be
    from another commit)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def _hloscope(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hloscope", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env or _this_tree_env(),
    )


def _jax_events(folder: Path) -> dict[str, float]:
    """JAX's own durations of the capture's compile, per stage (the longest of each)."""
    index = json.loads((folder / "capture" / "capture.json").read_text())
    found: dict[str, float] = {}
    for event in index["compile_time"]["events"]:
        found[event["stage"]] = max(found.get(event["stage"], 0.0), event["seconds"])
    return found


def _stages(environment: dict) -> dict[str, dict]:
    return {s["stage"]: s for s in environment["stages"]}


@pytest.mark.slow
@pytest.mark.oldest_jax
def test_a_function_of_the_oldest_jax_against_the_newest_names_versions_and_stages():
    """``diff F F --python-a OLD``: A is captured by the oldest supported jax's interpreter."""
    old = _old_python()
    old_versions, new_versions = _versions_in(old), _versions_in(Path(sys.executable))
    assert old_versions != new_versions, "the old environment has the newest jax"
    spec = f"{SAMPLE}:fused"
    done = _hloscope("diff", spec, spec, "--python-a", str(old), "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    environment = payload["environment"]
    changed = {c["package"]: (c["a"], c["b"]) for c in environment["changed"]}
    assert changed["jax"] == (old_versions["jax"], new_versions["jax"])
    assert changed["jaxlib"] == (old_versions["jaxlib"], new_versions["jaxlib"])
    stages = _stages(environment)
    for stage in ("trace_s", "lower_s", "backend_s", "total_s"):
        a_s, b_s = stages[stage]["a_s"], stages[stage]["b_s"]
        assert a_s > 0 and b_s > 0, stage
        assert stages[stage]["ratio"] == pytest.approx(b_s / a_s)
    # XLA:CPU writes no pass times on either side: no pass row is made up.
    assert stages["hlo_passes_s"]["a_s"] is None and environment["passes"] == []
    # Then the usual diff of the kernels, for the same function.
    assert payload["a"]["kernels"] >= 1 and payload["b"]["kernels"] >= 1
    text = _hloscope("diff", spec, spec, "--python-a", str(old))
    assert text.returncode == 0, text.stderr
    assert f"jax {old_versions['jax']} -> {new_versions['jax']}" in text.stdout
    assert "backend (XLA, rest)" in text.stdout
    assert max(map(len, text.stdout.splitlines())) <= 80


@pytest.mark.slow
@pytest.mark.oldest_jax
def test_a_capture_folder_of_the_oldest_jax_against_one_of_the_newest(tmp_path):
    """The two-step way, on this suite's own scan program: ``OLD -m hloscope capture F -o
    old/``, ``hloscope capture F -o new/``, ``hloscope diff old/ new/``; the stages are JAX's
    own durations as each environment measured them."""
    old = _old_python()
    spec = f"{PROGRAMS}:scan_rnn"
    made = subprocess.run(
        [str(old), "-m", "hloscope", "capture", spec, "-o", str(tmp_path / "old")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**_this_tree_env(), "PYTHONSAFEPATH": "1"},
    )
    assert made.returncode == 0, made.stderr
    new = _hloscope("capture", spec, "-o", str(tmp_path / "new"))
    assert new.returncode == 0, new.stderr
    done = _hloscope("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--json")
    assert done.returncode == 0, done.stderr
    environment = json.loads(done.stdout)["environment"]
    assert {c["package"] for c in environment["changed"]} >= {"jax", "jaxlib"}
    assert environment["versions"]["a"]["jax"] == _versions_in(old)["jax"]
    stages = _stages(environment)
    for side, folder in (("a_s", tmp_path / "old"), ("b_s", tmp_path / "new")):
        jax_own = _jax_events(folder)
        assert stages["trace_s"][side] == pytest.approx(jax_own["trace_s"])
        assert stages["lower_s"][side] == pytest.approx(jax_own["lower_s"])
        # Without pass times the backend stage is JAX's whole backend compile.
        assert stages["backend_s"][side] == pytest.approx(jax_own["backend_compile_s"])


@pytest.mark.slow
@pytest.mark.oldest_jax
def test_script_captures_of_the_oldest_jax_keep_their_stage_times(tmp_path):
    """jax 0.5 names no function in its compile events: a script capture's k-th compile is
    paired with the k-th module XLA dumped, so the old side has its stages too."""
    old = _old_python()
    script = str(SAMPLE)
    made = subprocess.run(
        [str(old), "-m", "hloscope", "capture", script, "-o", str(tmp_path / "old")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**_this_tree_env(), "PYTHONSAFEPATH": "1"},
    )
    assert made.returncode == 0, made.stderr
    assert _hloscope("capture", script, "-o", str(tmp_path / "new")).returncode == 0
    done = _hloscope(
        "diff", str(tmp_path / "old"), str(tmp_path / "new"), "--module", "jit_split", "--json"
    )
    assert done.returncode == 0, done.stderr
    environment = json.loads(done.stdout)["environment"]
    events = json.loads((tmp_path / "old" / "compile_time.json").read_text())["events"]
    backends = [e["seconds"] for e in events if e["stage"] == "backend_compile_s"]
    dumped = sorted(p.name for p in (tmp_path / "old" / "dump").glob("*.before_optimizations.txt"))
    assert len(backends) == len(dumped)
    k = next(i for i, name in enumerate(dumped) if ".jit_split." in name)
    assert _stages(environment)["backend_s"]["a_s"] == pytest.approx(backends[k])
    assert _stages(environment)["trace_s"]["a_s"] > 0


@pytest.mark.slow
def test_two_xla_tpu_compiles_name_libtpu_and_compare_their_passes(tmp_path):
    """A captured for a TPU v5e into a folder, B by another interpreter (this one) with
    --python-b and --device-b: libtpu's version on both sides, the HLO passes timed on both,
    and A's pass times those ``compile-time`` reads from XLA:TPU's own metadata file."""
    needs_libtpu()
    spec = f"{PROGRAMS}:norm_mlp"
    made = _hloscope("capture", spec, "-o", str(tmp_path / "a"), "--device", "tpu-v5e")
    assert made.returncode == 0, made.stderr
    done = _hloscope(
        "diff", str(tmp_path / "a"), spec, "--device-b", "tpu-v5e",
        "--python-b", sys.executable, "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    environment = json.loads(done.stdout)["environment"]
    libtpu = metadata.version("libtpu")
    assert (
        environment["versions"]["a"]["libtpu"] == environment["versions"]["b"]["libtpu"] == libtpu
    )
    assert environment["compiled_for"] == {"a": "TPU v5 lite", "b": "TPU v5 lite"}
    hlo_passes = _stages(environment)["hlo_passes_s"]
    assert hlo_passes["a_s"] > 0 and hlo_passes["b_s"] > 0
    timed = _hloscope("compile-time", str(tmp_path / "a"), "--json")
    assert timed.returncode == 0, timed.stderr
    passes_a = {p["name"]: p["time_s"] for p in json.loads(timed.stdout)["passes"]}
    assert environment["passes"] and environment["pass_names"] >= len(passes_a)
    for change in environment["passes"]:
        if change["a_s"] is None:  # a pass that ran in B only
            assert change["name"] not in passes_a
        else:
            assert change["a_s"] == pytest.approx(passes_a[change["name"]])


# ---- another interpreter, refused in one line ----------------------------------------------------


def test_an_interpreter_that_is_not_there_is_a_usage_error(tmp_path):
    spec = f"{PROGRAMS}:norm_mlp"
    done = _hloscope("diff", spec, spec, "--python-a", str(tmp_path / "nowhere" / "python"))
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no such Python interpreter" in done.stderr


@pytest.mark.slow
def test_an_interpreter_without_hloscope_says_so_in_one_line(tmp_path):
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    spec = f"{PROGRAMS}:norm_mlp"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = _hloscope("diff", spec, spec, "--python-b", str(bare / "bin" / "python"), env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0
    assert "has no hloscope installed" in done.stderr


def test_another_interpreter_captures_functions_only(tmp_path):
    hlo = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"
    done = _hloscope("diff", str(hlo), str(hlo), "--python-a", sys.executable)
    assert done.returncode == 2
    assert "SCRIPT.py:FUNCTION" in done.stderr and done.stderr.strip().count("\n") == 0


def test_same_versions_show_no_environment_unless_asked(tmp_path):
    spec = f"{PROGRAMS}:norm_mlp"
    plain = CliRunner().invoke(cli, ["diff", spec, spec, "--json"])
    assert plain.exit_code == 0, plain.output
    assert "environment" not in json.loads(plain.stdout)
    stage_names = {str(s) for s in CompileStage}
    asked = _hloscope("diff", spec, spec, "--python-b", sys.executable, "--json")
    assert asked.returncode == 0, asked.stderr
    environment = json.loads(asked.stdout)["environment"]
    assert environment["changed"] == []
    assert {s["stage"] for s in environment["stages"]} == stage_names


def test_capturing_a_function_refuses_what_does_not_apply_in_one_line(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(cli, ["capture", f"{PROGRAMS}:nope", "-o", str(tmp_path / "a")])
    assert missing.exit_code == 2 and "has no function 'nope'" in missing.stderr
    script = runner.invoke(
        cli, ["capture", str(SAMPLE), "-o", str(tmp_path / "b"), "--device", "tpu-v5e"]
    )
    assert script.exit_code == 2 and "SCRIPT.py:FUNCTION" in script.stderr
    extra = runner.invoke(cli, ["capture", f"{PROGRAMS}:norm_mlp", "x", "-o", str(tmp_path / "c")])
    assert extra.exit_code == 2 and "takes no script arguments" in extra.stderr
    for result in (missing, script, extra):
        assert result.stderr.strip().count("\n") == 0


@pytest.mark.slow
def test_a_side_without_stage_times_says_why_and_keeps_its_pass_times():
    """An XLA:TPU dump made without hloscope holds XLA's pass times only: its stage columns
    stay empty with the reason, its HLO passes span is the metadata file's."""
    dump = METADATA.parent
    spec = f"{PROGRAMS}:norm_mlp"
    done = _hloscope("diff", str(dump), spec, "--python-b", sys.executable, "--json")
    assert done.returncode == 0, done.stderr
    environment = json.loads(done.stdout)["environment"]
    assert environment["versions"]["a"] == {}
    stages = _stages(environment)
    assert stages["trace_s"]["a_s"] is None and stages["backend_s"]["a_s"] is None
    runs = parse_module_metadata(METADATA.read_text()).passes
    span = (max(r.end_usec for r in runs) - min(r.start_usec for r in runs)) / 1e6
    assert stages["hlo_passes_s"]["a_s"] == pytest.approx(span)
    assert any(n.startswith("A: a dump holds XLA's pass times only") for n in environment["notes"])
