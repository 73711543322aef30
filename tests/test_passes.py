"""hloscope.analysis.passes: the pass timeline of per-pass snapshots.

The oracle is the snapshot files themselves: each step's counts are those of parsing that
step's file with hloscope.parse, the pass where an instruction first sits in a fusion is
found by parsing every step in order, and the passes that changed nothing are read off the
file names (``after_A.before_B`` followed by no ``after_B``).
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis.fusions import fusion_report
from hloscope.analysis.passes import (
    FollowEventKind,
    PassesError,
    Quiet,
    instruction_count,
)
from hloscope.drivers.passes import pass_timeline

ROOT = Path(__file__).resolve().parent.parent
# module_0004.jit_small.0013.HLO_passes_after_layout_assignment.after_fusion.before_fusion-wrapper
_BETWEEN = re.compile(
    r"\.(?P<step>\d{4})\.(?P<pipeline>[^.]+)\.after_(?P<after>[^.]+)\.before_(?P<before>[^.]+)\.txt$"
)
_DURING = re.compile(r"\.(?P<step>\d{4})\.(?P<pass>[^.]+)\.(?P<name>[^.]+)\.txt$")
_STEP = re.compile(r"\.(?P<step>\d{4})\.")


@pytest.fixture(scope="module")
def dumps(corpus):
    return corpus / "generated" / "jax_pass_dumps"


def step_files(folder: Path, module: str) -> list[Path]:
    """The per-pass files of ``module``, in step order (by the number in their names)."""
    files = [p for p in folder.glob(f"module_*.{module}.*.txt") if _STEP.search(p.name)]
    return sorted(files, key=lambda p: int(_STEP.search(p.name).group("step")))


def ran(path: Path) -> tuple[int, str]:
    """(step, the pass whose changes the file shows) read from its name."""
    between = _BETWEEN.search(path.name)
    if between:
        after = between.group("after")
        return int(between.group("step")), "" if after == "pipeline-start" else after
    during = _DURING.search(path.name)
    return int(during.group("step")), during.group("pass")


def first_fused(files: list[Path], opcode: str) -> Path:
    """The first step file in which an instruction of ``opcode`` lies in a fusion computation."""
    for path in files:
        module = hloscope.parse(path)
        if any(
            inst.opcode == opcode
            for comp in module.computations
            if comp.is_fusion_computation
            for inst in comp.instructions
        ):
            return path
    raise AssertionError(f"no {opcode} is ever fused")


# ---- the corpus dump -----------------------------------------------------------------------------


def test_rows_are_the_steps_in_order_with_each_files_instruction_count(dumps):
    timeline = pass_timeline(hloscope.load_dump(dumps), module="jit_small")
    files = step_files(dumps, "jit_small")
    assert timeline.module == "jit_small"
    assert [(row.step, row.ran) for row in timeline.rows] == [ran(p) for p in files]
    for row, path in zip(timeline.rows, files):
        module = hloscope.parse(path)
        assert row.instructions == instruction_count(module)
        assert row.instructions == sum(len(c.instructions) for c in module.computations)
        assert row.fusions == sum(1 for i in module.instructions() if i.opcode == "fusion")
        assert row.filename == path.name
    deltas = [b.instructions - a.instructions for a, b in zip(timeline.rows, timeline.rows[1:])]
    assert [row.d_instructions for row in timeline.rows[1:]] == deltas


def test_small_multiply_is_fused_by_the_pass_the_files_say(dumps):
    files = step_files(dumps, "jit_small")
    fused_at = first_fused(files, "multiply")
    step, expected = ran(fused_at)
    first = hloscope.parse(files[0])
    (multiply,) = [i for i in first.instructions() if i.opcode == "multiply"]
    timeline = pass_timeline(dumps)  # the module with the most snapshots: jit_small
    follow = timeline.follow(multiply.name)
    assert follow.events[0].kind is FollowEventKind.PRESENT
    event = follow.first(FollowEventKind.FUSED)
    assert (event.step, event.ran) == (step, expected)
    fused = hloscope.parse(fused_at)
    clone = next(i for i in fused.instructions() if i.name == event.name)
    assert clone.opcode == "multiply" and clone.computation.is_fusion_computation
    assert event.fusion in {caller.name for caller in clone.computation.callers}


def test_created_and_removed_instructions(dumps):
    files = step_files(dumps, "jit_small")
    timeline = pass_timeline(dumps, module="jit_small")
    names = [{i.name for i in hloscope.parse(p).instructions()} for p in files]
    # The fusion instruction appears in one step: created by that step's pass.
    fused_step = next(i for i, found in enumerate(names) if any("fusion" in n for n in found))
    fusion = next(n for n in names[fused_step] if "fusion" in n and n not in names[0])
    (created,) = timeline.follow(fusion).events
    assert created.kind is FollowEventKind.CREATED
    assert (created.step, created.ran) == ran(files[fused_step])
    with pytest.raises(PassesError, match="no snapshot"):
        timeline.follow("no-such-instruction.7")


def test_passes_that_changed_nothing_are_read_off_the_names(dumps):
    files = step_files(dumps, "jit_small")
    expected = []
    for path, following in zip(files, [*files[1:], None]):
        between = _BETWEEN.search(path.name)
        if between is None or between.group("before") == "pipeline-end":
            continue
        upcoming = between.group("before")
        nxt = _BETWEEN.search(following.name) if following is not None else None
        if not (
            nxt
            and nxt.group("pipeline") == between.group("pipeline")
            and nxt.group("after") == upcoming
        ):
            expected.append(upcoming)
    timeline = pass_timeline(dumps, module="jit_small")
    quiet = [q.pass_name for q in timeline.unchanged if q.reason is Quiet.NO_SNAPSHOT]
    assert quiet == expected and "algsimp" in quiet
    same = [q.step for q in timeline.unchanged if q.reason is Quiet.SAME_TEXT]
    texts = [p.read_text() for p in files]
    assert same == [
        ran(p)[0] for i, p in enumerate(files) if i and texts[i] == texts[i - 1] and ran(p)[1]
    ]
    narrow = pass_timeline(dumps, module="jit_small", every_pass=False)
    assert all(q.reason is Quiet.SAME_TEXT for q in narrow.unchanged)


def test_text_diff_is_the_unified_diff_of_the_two_files(dumps):
    files = step_files(dumps, "jit_small")
    timeline = pass_timeline(dumps, module="jit_small")
    at = next(i for i, p in enumerate(files) if ran(p)[1] == "fusion")
    expected = difflib.unified_diff(
        files[at - 1].read_text().splitlines(keepends=True),
        files[at].read_text().splitlines(keepends=True),
        n=3,
    )
    body = list(expected)[2:]  # the two header lines name files differently
    diff = timeline.text_diff("fusion")
    assert diff.splitlines(keepends=True)[2:] == body
    assert "+%fused_computation" in diff
    assert timeline.text_diff(str(timeline.rows[at].step)) == diff
    # A pass the dump shows running but never changing the module (read off the file names:
    # no snapshot comes from it) has no diff, and the error says so.
    ran_passes = {ran(p)[1] for p in files}
    quiet = next(q.pass_name for q in timeline.unchanged if q.pass_name not in ran_passes)
    with pytest.raises(PassesError, match="changed nothing"):
        timeline.text_diff(quiet)
    with pytest.raises(PassesError, match="no snapshot"):
        timeline.text_diff("no-such-pass")


def test_other_module_and_json(dumps):
    timeline = pass_timeline(hloscope.Target.resolve(str(dumps)), module="jit_broadcast_in_dim")
    assert timeline.module == "jit_broadcast_in_dim"
    assert len(timeline.rows) == len(step_files(dumps, "jit_broadcast_in_dim"))
    data = json.loads(json.dumps(timeline.to_dict()))
    assert [r["step"] for r in data["rows"]] == [r.step for r in timeline.rows]
    with pytest.raises(PassesError, match="no module named"):
        pass_timeline(dumps, module="jit_nothing")


def test_a_dump_without_snapshots_and_a_single_file_are_refused(tmp_path):
    hlo = ROOT / "samples" / "hlo"
    shutil.copy(
        hlo / "transformer_train.after_optimizations.txt",
        tmp_path / "module_0001.jit_train_step.cpu_after_optimizations.txt",
    )
    with pytest.raises(PassesError, match="no per-pass snapshots"):
        pass_timeline(tmp_path)
    with pytest.raises(PassesError, match="one HLO file"):
        pass_timeline(str(hlo / "transformer_train.after_optimizations.txt"))


# ---- a live capture with every pass --------------------------------------------------------------


def scaled_exp(x, y):
    import jax.numpy as jnp

    return jnp.exp(x * y + 1.0).sum(axis=0)


@pytest.fixture(scope="module")
def captured():
    jax = needs_framework("jax")
    import jax.numpy as jnp

    return hloscope.capture(jax.jit(scaled_exp), jnp.ones((8, 8)), jnp.ones((8, 8)), passes=".*")


def test_live_capture_timeline_end_to_end(captured, tmp_path):
    timeline = pass_timeline(captured)
    assert timeline.module == captured.name
    assert len(timeline.rows) == len(captured.passes)
    for row, snapshot in zip(timeline.rows, captured.passes):
        assert row.step == snapshot.step
        assert row.instructions == instruction_count(snapshot.module())
    # Before any pass, each op is its own kernel; in the end, what the fusion report counts.
    final = fusion_report(captured.module("after")).summary
    assert timeline.rows[-1].fusions == final.fusion_count
    assert timeline.rows[0].fusions == 0
    # The multiply is fused where the snapshots say.
    modules = [snapshot.module() for snapshot in captured.passes]
    index = next(
        i
        for i, module in enumerate(modules)
        if any(
            inst.opcode == "multiply"
            for comp in module.computations
            if comp.is_fusion_computation
            for inst in comp.instructions
        )
    )
    (multiply,) = [i for i in modules[0].instructions() if i.opcode == "multiply"]
    event = timeline.follow(multiply.name).first(FollowEventKind.FUSED)
    assert event.step == captured.passes[index].step
    assert event.ran == timeline.rows[index].ran
    assert timeline.text_diff(event.ran)
    # A saved capture reads the same.
    loaded = hloscope.Capture.load(captured.save(tmp_path / "cap"))
    assert pass_timeline(loaded).to_dict() == timeline.to_dict()


def test_capture_without_passes_is_refused():
    jax = needs_framework("jax")
    import jax.numpy as jnp

    plain = hloscope.capture(jax.jit(scaled_exp), jnp.ones((4, 4)), jnp.ones((4, 4)))
    with pytest.raises(PassesError, match="passes='.\\*'"):
        pass_timeline(plain)


def test_a_module_without_a_name_is_listed_by_its_id(tmp_path):
    # XLA leaves the module name out of a file name that would pass 255 characters.
    text = (ROOT / "samples" / "hlo" / "fusion_refactor_fused.before_optimizations.txt").read_text()
    step = "0001.pipeline.after_pipeline-start.before_dce.txt"
    (tmp_path / f"module_0001.jit_f.{step}").write_text(text)
    (tmp_path / f"module_0002.{step}").write_text(text)
    with pytest.raises(PassesError, match=r"modules: #2, jit_f\)"):
        pass_timeline(tmp_path, module="nothing like it")
    assert len(pass_timeline(tmp_path, module="#2").rows) == 1
