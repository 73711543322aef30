"""Diff pairing by identity: which kernel of B the diff says a kernel of A became.

A model of identical blocks is the hard case: block 0's and block 1's kernels are the same
code, with the same source lines, ops and shapes. The programs here are real (samples/blocks.py,
compiled by XLA); the ground truth of which block a kernel belongs to is read off the HLO
directly, never off the diff: the ``block<i>`` named scope in the op_name of its dot, or, for a
model without named scopes, which block's weights (entry parameters) the kernel or its
consumers read.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import defaultdict
from types import ModuleType

import pytest
from click.testing import CliRunner
from conftest import ROOT, SAMPLES
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis.diff import ChangeStatus, KernelDiff, diff, provenance_name
from hloscope.analysis.diff import _matching as diff_matching
from hloscope.analysis.fusions import fusion_report
from hloscope.cli import cli
from hloscope.render.diff_text import describe, diff_to_dict, kernel_where, pair_where

BLOCKS_PY = SAMPLES / "blocks.py"


# ------------------------------------------------------------------------------------------
# Op names: what jax.checkpoint adds is not provenance
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "plain, checkpointed",
    [
        (
            "jit(train_step)/transpose(jvp(block0))/dot_general",
            "jit(train_step_remat)/transpose(jvp(block0))/jvp(block0)/checkpoint/dot_general",
        ),
        (
            "jit(train_step)/transpose(jvp())/dot_general",
            "jit(train_step_remat)/transpose(jvp(jvp()))/checkpoint/dot_general",
        ),
        ("jit(f)/jvp(block1)/tanh", "jit(g)/jvp(block1)/remat/tanh"),
    ],
)
def test_checkpoint_components_are_normalized_away(plain, checkpointed):
    assert provenance_name(plain) == provenance_name(checkpointed)


def test_provenance_names_keep_what_tells_ops_apart():
    block0 = provenance_name("jit(f)/transpose(jvp(block0))/dot_general")
    assert block0 != provenance_name("jit(f)/transpose(jvp(block1))/dot_general")
    assert block0 != provenance_name("jit(f)/jvp(block0)/dot_general")  # forward vs backward
    # Recomputed forward ops are new work, not the backward ops of their line.
    recomputed = (
        "jit(f)/transpose(jvp(block0))/jvp(block0)/checkpoint/rematted_computation/dot_general"
    )
    assert provenance_name(recomputed) != block0
    # Names without JAX transforms (TensorFlow's) are kept as they are.
    assert provenance_name("sequential/dense_1/MatMul") == "sequential/dense_1/MatMul"


# ------------------------------------------------------------------------------------------
# The sample: two identical blocks, with and without jax.checkpoint
# ------------------------------------------------------------------------------------------


def load_blocks() -> ModuleType:
    """Import samples/blocks.py (samples/ is a folder of scripts, not a package)."""
    name = "hloscope_sample_blocks"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BLOCKS_PY)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def optimized(fn, args) -> hloscope.Module:
    return hloscope.capture(fn, *args).module("optimized_hlo")


@pytest.fixture(scope="module")
def scoped() -> tuple[hloscope.Module, hloscope.Module]:
    needs_framework("jax")
    blocks = load_blocks()
    args = blocks.example_args()
    return optimized(blocks.train_step, args), optimized(blocks.train_step_remat, args)


def dot_of(inst: hloscope.Instruction) -> hloscope.Instruction | None:
    """The dot a kernel computes (the kernel itself, or the dot of its fused computation)."""
    if inst.opcode == "dot":
        return inst
    if inst.opcode == "fusion":
        return next((i for i in inst.fused_computation.instructions if i.opcode == "dot"), None)
    return None


def dot_kernels(module: hloscope.Module) -> dict[str, hloscope.Instruction]:
    return {i.name: d for i in module.entry.instructions if (d := dot_of(i)) is not None}


def scope_label(dot: hloscope.Instruction) -> tuple[str, int, str, bool, bool]:
    """What a dot is, from its own metadata: block (named scope), source line, what JAX named
    it (``dot_general``, or ``transpose`` for a weight gradient), backward or forward, and
    whether it is a recomputation."""
    name = dot.metadata.op_name
    block = re.search(r"\bblock(\d+)\b", name)
    return (
        block.group(1) if block else "head",
        dot.stack[0].line,
        name.rsplit("/", 1)[-1],
        "transpose(" in name,
        "rematted_computation" in name,
    )


def dot_pairs(d: KernelDiff) -> dict[str, tuple[ChangeStatus, list[str]]]:
    """Each dot kernel of A: the status of its change and the dot kernels of B in it."""
    dots_a, dots_b = dot_kernels_by_side(d)
    out = {}
    for change in d.changes:
        for k in change.a:
            if k.name in dots_a:
                out[k.name] = (change.status, [j.name for j in change.b if j.name in dots_b])
    return out


def dot_kernels_by_side(d: KernelDiff) -> tuple[set[str], set[str]]:
    return (
        {k.name for k, i in zip(d.a.kernels, d.a.instructions) if dot_of(i) is not None},
        {k.name for k, i in zip(d.b.kernels, d.b.instructions) if dot_of(i) is not None},
    )


def assert_pairs_match(d: KernelDiff, label_a: dict, label_b: dict) -> None:
    """Every dot kernel of A is paired one to one with the dot kernel of B that has its label."""
    assert len(set(label_a.values())) == len(label_a), "the labels must tell A's dots apart"
    by_label_b = {label: name for name, label in label_b.items()}
    wrong = {}
    for name, (status, partners) in dot_pairs(d).items():
        expected = by_label_b.get(label_a[name])
        if status not in (ChangeStatus.UNCHANGED, ChangeStatus.CHANGED) or partners != [expected]:
            wrong[name] = (label_a[name], status.value, [(p, label_b[p]) for p in partners])
    assert not wrong, wrong
    assert len(dot_pairs(d)) == len(label_a)


def test_every_dot_is_paired_with_its_own_block_and_line(scoped):
    a, b = scoped
    label_a = {n: scope_label(dot) for n, dot in dot_kernels(a).items()}
    label_b = {n: scope_label(dot) for n, dot in dot_kernels(b).items()}
    blocks = load_blocks()
    lines = BLOCKS_PY.read_text().splitlines()
    matmul_lines = {n + 1 for n, text in enumerate(lines) if " @ " in text and "=" in text}
    matmul_lines |= {n + 1 for n, text in enumerate(lines) if "return x @ params" in text}
    # Both blocks' dots, forward and backward, from the sample's matmul lines.
    assert {label[0] for label in label_a.values()} == {"0", "1", "head"}
    assert {label[1] for label in label_a.values()} <= matmul_lines
    assert blocks.BLOCKS == 2

    d = diff(a, b)
    assert_pairs_match(d, label_a, label_b)
    # B's recomputed matmuls have no counterpart in A: they are new kernels.
    recomputed = {n for n, label in label_b.items() if label[4]}
    assert recomputed
    added = {k.name for c in d.changes if c.status is ChangeStatus.ADDED for k in c.b}
    assert recomputed <= added
    # And the converse direction agrees.
    back = diff(b, a)
    assert {
        name: partners for name, (_, partners) in dot_pairs(back).items() if name not in recomputed
    } == {partners[0]: [name] for name, (_, partners) in dot_pairs(d).items()}


def test_the_old_trap_twins_of_one_shape_in_another_block(scoped):
    """The pairs the old matcher made on this sample: block 0's MLP down-projection backward
    dot with block 1's, and block 1's with block 1's recomputed up-projection (same shape and
    cost, so it was called unchanged)."""
    a, b = scoped
    d = diff(a, b)
    label_a = {n: scope_label(dot) for n, dot in dot_kernels(a).items()}
    label_b = {n: scope_label(dot) for n, dot in dot_kernels(b).items()}
    for name, (_, partners) in dot_pairs(d).items():
        for partner in partners:
            assert label_b[partner][0] == label_a[name][0], (name, partner)  # same block
            assert not label_b[partner][4], (name, partner)  # never a recomputation


# ------------------------------------------------------------------------------------------
# Without named scopes: the blocks differ only in the weights they read
# ------------------------------------------------------------------------------------------


def unscoped_steps(blocks: ModuleType):
    """train_step / train_step_remat of the sample's blocks, looped without named scopes:
    each block's op names and source lines are then exactly alike."""
    import jax
    import jax.numpy as jnp

    def loss(params, x, target, remat):
        apply = jax.checkpoint(blocks.block) if remat else blocks.block
        for p in params["blocks"]:
            x = apply(p, x)
        return jnp.mean((x @ params["head"] - target) ** 2)

    def step(params, x, target, remat):
        value, grads = jax.value_and_grad(loss)(params, x, target, remat)
        return value, jax.tree.map(lambda w, g: w - 0.01 * g, params, grads)

    train = jax.jit(lambda params, x, target: step(params, x, target, False))
    train_remat = jax.jit(lambda params, x, target: step(params, x, target, True))
    return train, train_remat


def weight_blocks(inst: hloscope.Instruction, per_block: int, blocks: int) -> set[int]:
    """The blocks whose weights (entry parameters, ``per_block`` of them a block, in order)
    ``inst`` reads directly."""
    out = set()
    for operand in inst.operands:
        while operand.opcode in ("bitcast", "get-tuple-element") and operand.operands:
            operand = operand.operands[0]
        if operand.opcode == "parameter" and operand.parameter_number < per_block * blocks:
            out.add(operand.parameter_number // per_block)
    return out


def weight_labels(module: hloscope.Module, per_block: int, blocks: int) -> dict[str, tuple]:
    """Per dot kernel: the block whose weights it reads (a weight gradient reads none: the
    block of the SGD update that consumes it), its source line, its JAX name, and whether it
    is backward or recomputed."""
    users = defaultdict(list)
    for inst in module.entry.instructions:
        for operand in inst.operands:
            users[operand.name].append(inst)
    out = {}
    for name, dot in dot_kernels(module).items():
        inst = module.entry.get(name)
        owners = weight_blocks(inst, per_block, blocks)
        if not owners:
            owners = set().union(*(weight_blocks(u, per_block, blocks) for u in users[name]))
        out[name] = (tuple(sorted(owners)), *scope_label(dot)[1:])
    return out


@pytest.mark.slow
def test_blocks_without_named_scopes_are_told_apart_by_their_weights():
    needs_framework("jax")
    blocks = load_blocks()
    args = blocks.example_args(blocks=3, width=24, hidden=40)
    train, train_remat = unscoped_steps(blocks)
    a, b = optimized(train, args), optimized(train_remat, args)
    per_block = len(args[0]["blocks"][0])
    label_a = weight_labels(a, per_block, 3)
    label_b = weight_labels(b, per_block, 3)
    # Nothing but the weights says which block a dot is in.
    for dot in list(dot_kernels(a).values()) + list(dot_kernels(b).values()):
        assert "block" not in dot.metadata.op_name
    assert {owners for owners, *_ in label_a.values()} >= {(0,), (1,), (2,)}
    assert_pairs_match(diff(a, b), label_a, label_b)


# ------------------------------------------------------------------------------------------
# Both sides' sources on every change line
# ------------------------------------------------------------------------------------------


def test_pair_lines_show_both_sources(scoped):
    d = diff(*scoped)
    pairs = [c for c in d.changes if len(c.a) == 1 and len(c.b) == 1]
    assert pairs
    for change in pairs:
        message = describe(change)
        where_a, where_b = kernel_where(change.a[0]), kernel_where(change.b[0])
        assert where_a in message and where_b in message, message
        assert pair_where(change.a[0], change.b[0]) in message
    for change in d.changes:  # splits, merges, regroupings: each kernel with its own lines
        message = describe(change)
        for k in (change.a + change.b)[:4]:
            assert kernel_where(k) in message, (kernel_where(k), message)


def test_json_kernels_keep_their_own_sources(scoped):
    d = diff(*scoped)
    report_a, report_b = fusion_report(scoped[0]), fusion_report(scoped[1])
    sources_a = {k.name: [s for s, _ in k.sources] for k in report_a.kernels}
    sources_b = {k.name: [s for s, _ in k.sources] for k in report_b.kernels}
    data = json.loads(json.dumps(diff_to_dict(d)))
    for change in data["changes"]:
        assert all(k["sources"] == sources_a[k["name"]] for k in change["a"])
        assert all(k["sources"] == sources_b[k["name"]] for k in change["b"])


CHANGED_A = """\
HloModule a, is_scheduled=true

%fa (p0: f32[8,8]) -> f32[8,8] {
  %p0 = f32[8,8]{1,0} parameter(0)
  ROOT %t = f32[8,8]{1,0} tanh(%p0),
    metadata={op_name="jit(f)/tanh" source_file="model.py" source_line=59}
}

ENTRY %main (x: f32[8,8]) -> f32[8,8] {
  %x = f32[8,8]{1,0} parameter(0)
  ROOT %k = f32[8,8]{1,0} fusion(%x), kind=kLoop, calls=%fa
}
"""


def test_a_changed_kernel_names_both_lines():
    moved = CHANGED_A.replace("source_line=59", "source_line=63").replace("f32[8,8]", "f32[9,8]")
    (change,) = diff(hloscope.parse(CHANGED_A), hloscope.parse(moved)).changes
    assert change.status is ChangeStatus.CHANGED
    assert "(tanh, model.py:59 -> model.py:63) changed" in describe(change)
    same_line = CHANGED_A.replace("f32[8,8]", "f32[9,8]")
    (change,) = diff(hloscope.parse(CHANGED_A), hloscope.parse(same_line)).changes
    assert "(tanh, model.py:59) changed" in describe(change)  # once when both say the same
    renamed = CHANGED_A.replace("source_line=59", "source_line=63").replace("%k ", "%k2 ")
    (change,) = diff(hloscope.parse(CHANGED_A), hloscope.parse(renamed)).changes
    assert describe(change) == "kernel k (now named k2, model.py:59 -> model.py:63) unchanged"


# ------------------------------------------------------------------------------------------
# Settled kernels stay settled
# ------------------------------------------------------------------------------------------

SETTLE_A = """\
HloModule a, is_scheduled=true

%f1 (p0: f32[8]) -> f32[8] {
  %p0 = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(%p0), metadata={op_name="jit(f)/neg"}
}

%f2 () -> f32[8] {
  %c = f32[] constant(1)
  ROOT %b = f32[8]{0} broadcast(%c), dimensions={}, metadata={op_name="jit(f)/broadcast"}
}

ENTRY %main (x: f32[8]) -> (f32[8], f32[8]) {
  %x = f32[8]{0} parameter(0)
  %k1 = f32[8]{0} fusion(%x), kind=kLoop, calls=%f1
  %k2 = f32[8]{0} fusion(), kind=kLoop, calls=%f2
  ROOT %out = (f32[8]{0}, f32[8]{0}) tuple(%k1, %k2)
}
"""

SETTLE_B = """\
HloModule b, is_scheduled=true

%g1 (q0: f32[8]) -> f32[8] {
  %q0 = f32[8]{0} parameter(0)
  %c = f32[] constant(1)
  %b = f32[8]{0} broadcast(%c), dimensions={}, metadata={op_name="jit(f)/broadcast"}
  ROOT %n = f32[8]{0} negate(%q0), metadata={op_name="jit(f)/neg"}
}

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %j1 = f32[8]{0} fusion(%x), kind=kLoop, calls=%g1
}
"""


def test_ops_left_over_in_a_settled_pair_link_nothing():
    """B's kernel holds a broadcast besides the negate it shares with A's k1; that broadcast
    must not link it to A's broadcast-only kernel too (one kernel in two changes)."""
    d = diff(hloscope.parse(SETTLE_A), hloscope.parse(SETTLE_B))
    assert sorted(k.name for c in d.changes for k in c.b) == ["j1"]
    assert sorted(k.name for c in d.changes for k in c.a) == ["k1", "k2"]
    by_status = {c.status: c for c in d.changes}
    assert [k.name for k in by_status[ChangeStatus.REMOVED].a] == ["k2"]


# ------------------------------------------------------------------------------------------
# A bucket too big to score
# ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_huge_buckets_fall_back_to_schedule_order(monkeypatch):
    """With the cap at 0 every bucket is paired in schedule order, without scoring: a module
    still pairs with itself kernel for kernel, and every kernel is in one change."""
    needs_framework("jax")
    blocks = load_blocks()
    args = blocks.example_args(blocks=3, width=24, hidden=40)
    train, train_remat = unscoped_steps(blocks)
    a, b = optimized(train, args), optimized(train_remat, args)
    monkeypatch.setattr(diff_matching, "_MAX_BUCKET_PAIRS", 0)
    same = diff(a, a)
    assert same.no_change and all(c.a[0].name == c.b[0].name for c in same.changes)
    d = diff(a, b)  # every kernel still in exactly one change
    assert sorted(k.name for c in d.changes for k in c.a) == sorted(k.name for k in d.a.kernels)
    assert sorted(k.name for c in d.changes for k in c.b) == sorted(k.name for k in d.b.kernels)


# ------------------------------------------------------------------------------------------
# The command line, as the sample's docstring shows it
# ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_diff_of_the_blocks_sample(tmp_path, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    a, b = "samples/blocks.py:train_step", "samples/blocks.py:train_step_remat"
    runner = CliRunner(env={"COLUMNS": "200"})
    result = runner.invoke(cli, ["diff", a, b, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["a"]["module"] == "jit_train_step" and data["b"]["module"] == "jit_train_step_remat"
    assert data["delta"]["kernels"] > 0  # the recomputation
    text = runner.invoke(cli, ["diff", a, b, "--limit", "0"])
    assert text.exit_code == 0, text.output
    assert "new kernel" in text.stdout and "blocks.py:" in text.stdout
