"""``hloscope diff`` of code replaced by a library call pairs kernels by what they compute.

Two before/after programs of our own (``tests/diff_programs``), compiled by XLA:CPU:

* ``attention``: a two-block GPT train step whose hand-written ``softmax(QK^T)V`` becomes
  ``jax.nn.dot_product_attention`` (one line, other op names, another layout inside);
* ``norm_mlp``: a residual MLP whose hand-written layer norm and tanh GELU become an RMSNorm
  and ``jax.nn.gelu`` from a library module, with the residual block one line shorter and the
  head moved above it.

What each kernel computes is read here from the HLO itself (the opcodes of its fused
computation, nested fusions and reducers opened), not from hloscope's own classifier: a kernel
with an exponential or a max-reduction does softmax work, one with an rsqrt or sqrt
normalizes, one with a dot or convolution multiplies matrices. Which lines were replaced is
read from the program text: the body of ``attention`` in A, the library call in B.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import hloscope
from hloscope.analysis.diff import ChangeStatus, KernelDiff, diff, parse_where
from hloscope.cli import cli
from hloscope.render.diff_text import describe

PROGRAMS = Path(__file__).resolve().parent / "diff_programs"
PAIRS = {
    "attention": ("attention_a.py", "attention_b.py"),
    "norm_mlp": ("norm_mlp_a.py", "norm_mlp_b.py"),
}
REGROUPINGS = (ChangeStatus.SPLIT, ChangeStatus.MERGED, ChangeStatus.REGROUPED)


def _target(name: str) -> str:
    return f"{PROGRAMS / name}:train_step"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Iterator[None]:
    """One capture cache for the module: each program is compiled once."""
    patch = pytest.MonkeyPatch()
    patch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.mktemp("cache")))
    yield
    patch.undo()


@pytest.fixture(scope="module")
def results(cache) -> dict[str, KernelDiff]:
    return {}


def _compared(results: dict[str, KernelDiff], name: str) -> KernelDiff:
    if name not in results:
        a, b = PAIRS[name]
        results[name] = hloscope.diff(_target(a), _target(b))
    return results[name]


@pytest.fixture(params=sorted(PAIRS))
def compared(request, results) -> tuple[str, KernelDiff]:
    return request.param, _compared(results, request.param)


# -- what a kernel computes, from its HLO ----------------------------------------------------


def _instructions(kernel) -> Iterator:
    if kernel.fused_computation is None:
        yield kernel
        return
    pending = [kernel.fused_computation]
    while pending:
        for inst in pending.pop().instructions:
            if inst.fused_computation is not None:
                pending.append(inst.fused_computation)
            yield inst


def _work(kernel) -> set[str]:
    """``softmax``, ``norm``, ``matmul``: the kinds of work a kernel instruction does."""
    work = set()
    for inst in _instructions(kernel):
        if inst.opcode == "exponential":
            work.add("softmax")
        elif inst.opcode == "reduce":
            reducer = inst.called_computations[0].root
            if reducer is not None and reducer.opcode == "maximum":
                work.add("softmax")
        elif inst.opcode in ("rsqrt", "sqrt"):
            work.add("norm")
        elif inst.opcode in ("dot", "convolution"):
            work.add("matmul")
    return work


def _kernel_work(side) -> dict[int, set[str]]:
    return {id(k): _work(inst) for k, inst in zip(side.kernels, side.instructions)}


def _attention_against_norm(x: set[str], y: set[str]) -> bool:
    return "softmax" in x and "norm" not in x and "norm" in y and "softmax" not in y


def _lines_with_ops(result: KernelDiff, file: str, function: str) -> list[int]:
    side = result.a if file.endswith("_a.py") else result.b
    found = set()
    for op in side.ops:
        parsed = parse_where(op.where) if op.where else None
        if parsed and Path(parsed[0]).name == file and parsed[2] == function:
            found.add(parsed[1])
    return sorted(found)


def _line_of(file: str, code: str) -> int:
    lines = (PROGRAMS / file).read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if code in line)


# -- the tests ---------------------------------------------------------------------------


@pytest.mark.slow
def test_no_attention_kernel_is_paired_with_a_norm_kernel(compared):
    name, result = compared
    work_a, work_b = _kernel_work(result.a), _kernel_work(result.b)
    pairs = 0
    for change in result.changes:
        for ka in change.a:
            for kb in change.b:
                x, y = work_a[id(ka)], work_b[id(kb)]
                assert not _attention_against_norm(x, y), describe(change)
                assert not _attention_against_norm(y, x), describe(change)
                pairs += 1
    # The programs have both kinds of work on both sides, and most kernels are paired.
    assert any("softmax" in w for w in work_a.values()) and any(
        "norm" in w for w in work_a.values()
    )
    assert pairs >= 0.8 * len(result.a.kernels)


@pytest.mark.slow
def test_every_claim_pairs_kernels_that_do_the_same_kind_of_work(compared):
    """Split, merged, regrouped and changed: a kernel that does softmax, norm or matmul work
    has a kernel on the other side that does some of the same work."""
    name, result = compared
    work_a, work_b = _kernel_work(result.a), _kernel_work(result.b)
    claims = [c for c in result.changes if c.a and c.b and c.status is not ChangeStatus.UNCHANGED]
    assert claims
    for change in claims:
        for mine, theirs in ((change.a, change.b), (change.b, change.a)):
            work = work_a if mine is change.a else work_b
            other = work_b if mine is change.a else work_a
            for k in mine:
                if work[id(k)]:
                    assert any(work[id(k)] & other[id(j)] for j in theirs), describe(change)
        assert not change.unrelated, describe(change)


@pytest.mark.slow
def test_replaced_attention_kernels_find_the_library_kernels(results):
    """Every kernel of A's hand-written attention that does softmax or matmul work is paired
    with a kernel of B's library call (none is left removed while B adds its twin)."""
    result = _compared(results, "attention")
    work_a = _kernel_work(result.a)
    attention = set(_lines_with_ops(result, "attention_a.py", "attention"))
    for change in result.changes:
        if change.status is not ChangeStatus.REMOVED:
            continue
        (kernel,) = change.a
        lines = {parse_where(w)[1] for w, _ in kernel.sources if parse_where(w)}
        assert not (lines & attention and work_a[id(kernel)]), describe(change)
    paired = [
        c
        for c in result.changes
        if c.a and c.b and any("attention_b.py:16" in w for k in c.b for w, _ in k.sources)
    ]
    assert len(paired) >= 10


@pytest.mark.slow
def test_old_lines_are_said_to_become_the_new_ones(compared):
    name, result = compared
    groups = [
        ([Path(w).name for w in a], [Path(w).name for w in b]) for a, b in result.replaced_lines
    ]
    if name == "attention":
        old = _lines_with_ops(result, "attention_a.py", "attention")
        call = _line_of("attention_b.py", "return jax.nn.dot_product_attention(")
        assert len(old) >= 4
        assert (
            [f"attention_a.py:{n} (attention)" for n in old],
            [f"attention_b.py:{call} (attention)"],
        ) in groups
    else:
        norm = _lines_with_ops(result, "norm_mlp_a.py", "layer_norm")
        gelu = _lines_with_ops(result, "norm_mlp_a.py", "gelu")
        (a, b) = next(g for g in groups if any("layer_norm" in w for w in g[0]))
        assert {f"norm_mlp_a.py:{n} (layer_norm)" for n in norm} <= set(a)
        assert {f"norm_mlp_a.py:{n} (gelu)" for n in gelu} <= set(a)
        assert any("(rms_norm)" in w for w in b) and any("(dense_gelu)" in w for w in b)
        assert all(w.startswith("norm_library.py") for w in b if "residual" not in w)
    # Lines that moved without an edit are not "replaced": the head moved above the block.
    head_lines = {w for a, _ in groups for w in a if "(head)" in w}
    assert not head_lines


@pytest.mark.slow
def test_the_changes_name_their_replaced_lines(compared):
    name, result = compared
    said = [
        describe(c)
        for c in result.changes
        if c.replaced_a and c.replaced_b and c.status is not ChangeStatus.UNCHANGED
    ]
    assert said and all(" became " in text for text in said)
    # An unchanged kernel whose line was replaced says its two lines once, in its name.
    same = [c for c in result.changes if c.replaced_a and c.status is ChangeStatus.UNCHANGED]
    assert all(" became " not in describe(c) for c in same)


@pytest.mark.slow
def test_cli_prints_the_code_replaced(cache, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    a, b = _target("attention_a.py"), _target("attention_b.py")
    text = CliRunner().invoke(cli, ["diff", a, b])
    assert text.exit_code == 0, text.output
    assert "code replaced (old lines -> new lines)" in text.output
    assert "attention_a.py:17-21 (attention) -> attention_b.py:16 (attention)" in text.output
    # The line table says it too, line by line (wrapped rows joined back).
    table = " ".join(" ".join(text.output.split("source lines whose ops")[1].split()).split())
    for line in range(17, 22):
        assert f"attention_a.py:{line} (attention): replaced by attention_b.py:16" in table
    assert "attention_b.py:16 (attention): new, in place of attention_a.py:17-21" in table
    data = json.loads(CliRunner().invoke(cli, ["diff", "--json", a, b]).stdout)
    groups = [(g["a"], g["b"]) for g in data["replaced_lines"]]
    assert any(len(a) == 5 and len(b) == 1 for a, b in groups)
    assert any("replaced_lines" in c for c in data["changes"])


# -- by hand: the rule itself --------------------------------------------------------------

# A: an attention-like kernel (dot, exp, max-reduce). B: a layer-norm kernel (add-reduce,
# rsqrt). They share one op by name and line (the scale multiply), which links them.
UNLIKE_A = """\
HloModule unlike_a, is_scheduled=true

%max (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %m = f32[] maximum(%x, %y)
}

%attn (p0: f32[8,8], p1: f32[8,8]) -> f32[8] {
  %p0 = f32[8,8]{1,0} parameter(0)
  %p1 = f32[8,8]{1,0} parameter(1)
  %d = f32[8,8]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/dot_general" source_file="m.py" source_line=3}
  %s = f32[8,8]{1,0} multiply(%d, %d), metadata={op_name="jit(f)/mul" source_file="m.py" source_line=2}
  %e = f32[8,8]{1,0} exponential(%s), metadata={op_name="jit(f)/exp" source_file="m.py" source_line=4}
  %c = f32[] constant(-inf)
  ROOT %r = f32[8]{0} reduce(%e, %c), dimensions={1}, to_apply=%max, metadata={op_name="jit(f)/reduce_max" source_file="m.py" source_line=4}
}

ENTRY %main (a: f32[8,8], b: f32[8,8]) -> f32[8] {
  %a = f32[8,8]{1,0} parameter(0)
  %b = f32[8,8]{1,0} parameter(1)
  ROOT %k = f32[8]{0} fusion(%a, %b), kind=kOutput, calls=%attn
}
"""  # noqa: E501

UNLIKE_B = """\
HloModule unlike_b, is_scheduled=true

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

%norm (p0: f32[8,8]) -> f32[8] {
  %p0 = f32[8,8]{1,0} parameter(0)
  %s = f32[8,8]{1,0} multiply(%p0, %p0), metadata={op_name="jit(f)/mul" source_file="m.py" source_line=2}
  %c = f32[] constant(0)
  %r = f32[8]{0} reduce(%s, %c), dimensions={1}, to_apply=%add, metadata={op_name="jit(f)/reduce_sum" source_file="m.py" source_line=7}
  ROOT %q = f32[8]{0} rsqrt(%r), metadata={op_name="jit(f)/rsqrt" source_file="m.py" source_line=7}
}

ENTRY %main (a: f32[8,8], b: f32[8,8]) -> f32[8] {
  %a = f32[8,8]{1,0} parameter(0)
  %b = f32[8,8]{1,0} parameter(1)
  ROOT %k = f32[8]{0} fusion(%a), kind=kLoop, calls=%norm
}
"""  # noqa: E501


def test_kernels_that_compute_unrelated_things_are_said_to_be_unrelated():
    from hloscope.backends import _jaxlib as adapter

    for text in (UNLIKE_A, UNLIKE_B):  # real HLO, as XLA reads it
        adapter.xla_parse(text)
    (change,) = diff(hloscope.parse(UNLIKE_A), hloscope.parse(UNLIKE_B)).changes
    # Only the shared multiply's name and line join them: nothing else explains either.
    assert change.status is ChangeStatus.CHANGED and change.unrelated
    assert change.computes_a == ["attention"] and change.computes_b == ["normalization"]
    assert "unrelated computations: attention -> normalization" in describe(change)
    assert change.to_dict()["unrelated"] is True
    assert change.to_dict()["computes"] == {"a": ["attention"], "b": ["normalization"]}
    # With a kernel of B like A's, the attention kernel goes there, the norm kernel is new.
    both = UNLIKE_B.replace(
        "ROOT %k = f32[8]{0} fusion(%a), kind=kLoop, calls=%norm",
        "%k = f32[8]{0} fusion(%a), kind=kLoop, calls=%norm\n"
        "  %k2 = f32[8]{0} fusion(%a, %b), kind=kOutput, calls=%attn\n"
        "  ROOT %t = (f32[8]{0}, f32[8]{0}) tuple(%k, %k2)",
    ).replace("-> f32[8] {\n  %a", "-> (f32[8], f32[8]) {\n  %a")
    both = both.replace(
        "%norm (p0", UNLIKE_A[UNLIKE_A.index("%max (") : UNLIKE_A.index("ENTRY")] + "%norm (p0"
    )
    adapter.xla_parse(both)
    result = diff(hloscope.parse(UNLIKE_A), hloscope.parse(both))
    by_status = {c.status: c for c in result.changes}
    assert [k.name for k in by_status[ChangeStatus.UNCHANGED].b] == ["k2"]
    assert [k.name for k in by_status[ChangeStatus.ADDED].b] == ["k"]
    assert not any(c.unrelated for c in result.changes)


def test_a_fingerprint_does_not_depend_on_the_order_of_dimensions():
    """A softmax over ``[2,4,8]`` and the same over ``[4,2,8]`` (another layout a library
    picks) compute alike; a layer norm over the same sizes does not."""
    from hloscope.analysis.diff import _side, compatible, kernel_computes

    softmax = """\
HloModule s, is_scheduled=true

%max (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %m = f32[] maximum(%x, %y)
}

%f (p0: f32[2,4,8]) -> f32[2,4] {
  %p0 = f32[2,4,8]{2,1,0} parameter(0)
  %e = f32[2,4,8]{2,1,0} exponential(%p0)
  %c = f32[] constant(-inf)
  ROOT %r = f32[2,4]{1,0} reduce(%e, %c), dimensions={2}, to_apply=%max
}

ENTRY %main (a: f32[2,4,8]) -> f32[2,4] {
  %a = f32[2,4,8]{2,1,0} parameter(0)
  ROOT %k = f32[2,4]{1,0} fusion(%a), kind=kLoop, calls=%f
}
"""
    swapped = softmax.replace("f32[2,4,8]", "f32[4,2,8]").replace("f32[2,4]", "f32[4,2]")
    norm = softmax.replace("exponential", "rsqrt").replace("maximum", "add")
    (a,), (b,), (c,) = (
        kernel_computes(_side(hloscope.parse(text), None)) for text in (softmax, swapped, norm)
    )
    assert a.fingerprint == b.fingerprint and compatible(a, b)
    assert a.fingerprint != c.fingerprint and not compatible(a, c)
    assert a.label == "softmax" and c.label == "normalization"


# A: the attention kernel holds the scale multiply (line 2); the layer norm is its own kernel.
# B: the library's attention kernel (its ops named vmap(...), on the call's line 16) kept the
# dot of line 3, and XLA fused the scale multiply into the layer-norm kernel instead. Op by
# op, A's attention kernel is linked to both kernels of B.
GLUED_A = """\
HloModule glued_a, is_scheduled=true

%max (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %m = f32[] maximum(%x, %y)
}

%add (x.1: f32[], y.1: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  %y.1 = f32[] parameter(1)
  ROOT %s = f32[] add(%x.1, %y.1)
}

%attn (p0: f32[8,8], p1: f32[8,8]) -> f32[8] {
  %p0 = f32[8,8]{1,0} parameter(0)
  %p1 = f32[8,8]{1,0} parameter(1)
  %d = f32[8,8]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/dot_general" source_file="m.py" source_line=3}
  %s = f32[8,8]{1,0} multiply(%d, %d), metadata={op_name="jit(f)/mul" source_file="m.py" source_line=2}
  %e = f32[8,8]{1,0} exponential(%s), metadata={op_name="jit(f)/exp" source_file="m.py" source_line=4}
  %c = f32[] constant(-inf)
  ROOT %r = f32[8]{0} reduce(%e, %c), dimensions={1}, to_apply=%max, metadata={op_name="jit(f)/reduce_max" source_file="m.py" source_line=4}
}

%norm (p0.1: f32[8,8]) -> f32[8] {
  %p0.1 = f32[8,8]{1,0} parameter(0)
  %c.1 = f32[] constant(0)
  %r.1 = f32[8]{0} reduce(%p0.1, %c.1), dimensions={1}, to_apply=%add, metadata={op_name="jit(f)/reduce_sum" source_file="m.py" source_line=7}
  ROOT %q = f32[8]{0} rsqrt(%r.1), metadata={op_name="jit(f)/rsqrt" source_file="m.py" source_line=7}
}

ENTRY %main (a: f32[8,8], b: f32[8,8]) -> (f32[8], f32[8]) {
  %a = f32[8,8]{1,0} parameter(0)
  %b = f32[8,8]{1,0} parameter(1)
  %att = f32[8]{0} fusion(%a, %b), kind=kOutput, calls=%attn
  %ln = f32[8]{0} fusion(%a), kind=kLoop, calls=%norm
  ROOT %t = (f32[8]{0}, f32[8]{0}) tuple(%att, %ln)
}
"""  # noqa: E501

GLUED_B = """\
HloModule glued_b, is_scheduled=true

%max (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %m = f32[] maximum(%x, %y)
}

%add (x.1: f32[], y.1: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  %y.1 = f32[] parameter(1)
  ROOT %s = f32[] add(%x.1, %y.1)
}

%attn (p0: f32[8,8], p1: f32[8,8]) -> f32[8] {
  %p0 = f32[8,8]{1,0} parameter(0)
  %p1 = f32[8,8]{1,0} parameter(1)
  %d = f32[8,8]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/dot_general" source_file="m.py" source_line=3}
  %e = f32[8,8]{1,0} exponential(%d), metadata={op_name="jit(f)/vmap(exp)" source_file="m.py" source_line=16}
  %c = f32[] constant(-inf)
  ROOT %r = f32[8]{0} reduce(%e, %c), dimensions={1}, to_apply=%max, metadata={op_name="jit(f)/vmap(reduce_max)" source_file="m.py" source_line=16}
}

%norm (p0.1: f32[8,8]) -> f32[8] {
  %p0.1 = f32[8,8]{1,0} parameter(0)
  %s.1 = f32[8,8]{1,0} multiply(%p0.1, %p0.1), metadata={op_name="jit(f)/mul" source_file="m.py" source_line=2}
  %c.1 = f32[] constant(0)
  %r.1 = f32[8]{0} reduce(%s.1, %c.1), dimensions={1}, to_apply=%add, metadata={op_name="jit(f)/reduce_sum" source_file="m.py" source_line=7}
  ROOT %q = f32[8]{0} rsqrt(%r.1), metadata={op_name="jit(f)/rsqrt" source_file="m.py" source_line=7}
}

ENTRY %main (a: f32[8,8], b: f32[8,8]) -> (f32[8], f32[8]) {
  %a = f32[8,8]{1,0} parameter(0)
  %b = f32[8,8]{1,0} parameter(1)
  %att = f32[8]{0} fusion(%a, %b), kind=kOutput, calls=%attn
  %ln = f32[8]{0} fusion(%a), kind=kLoop, calls=%norm
  ROOT %t = (f32[8]{0}, f32[8]{0}) tuple(%att, %ln)
}
"""  # noqa: E501


def test_a_shared_op_does_not_glue_attention_to_layer_norm():
    """Without what the kernels compute, the multiply that moved would make one group of
    A's attention and layer norm and B's two kernels (a regrouping of attention into layer
    norm); with it, each kernel is paired with the one that does its work."""
    from hloscope.backends import _jaxlib as adapter

    for text in (GLUED_A, GLUED_B):
        adapter.xla_parse(text)
    result = diff(hloscope.parse(GLUED_A), hloscope.parse(GLUED_B))
    groups = {
        (c.status, tuple(k.name for k in c.a), tuple(k.name for k in c.b)) for c in result.changes
    }
    assert groups == {("changed", ("att",), ("att",)), ("changed", ("ln",), ("ln",))}
    mirror = diff(hloscope.parse(GLUED_B), hloscope.parse(GLUED_A))
    assert {(c.status, len(c.a), len(c.b)) for c in mirror.changes} == {("changed", 1, 1)}
    assert not any(c.unrelated for c in (*result.changes, *mirror.changes))
    # The attention's changed lines: the scale's line 2 left it, line 16 (the call) is new.
    (att,) = [c for c in result.changes if c.a[0].name == "att"]
    assert att.computes_a == att.computes_b == ["attention"]


# A: the softmax kernel holds the scale multiply of line 3; the mask is a kernel of its own.
# B: the library's softmax kernel (ops named vmap(...)), and XLA fused the scale multiply into
# the mask kernel. The only link of A's softmax kernel goes to B's mask kernel; what relates
# it to B's softmax kernel is the work both do and the line both came from (line 4, the same
# code in both files, though B's ops there have other names).
LOOSE_A = """\
HloModule loose_a, is_scheduled=true

%max (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %m = f32[] maximum(%x, %y)
}

%soft (p0: f32[8,8]) -> f32[8] {
  %p0 = f32[8,8]{1,0} parameter(0)
  %s = f32[8,8]{1,0} multiply(%p0, %p0), metadata={op_name="jit(f)/mul" source_file="FILE" source_line=3}
  %e = f32[8,8]{1,0} exponential(%s), metadata={op_name="jit(f)/exp" source_file="FILE" source_line=4}
  %c = f32[] constant(-inf)
  ROOT %r = f32[8]{0} reduce(%e, %c), dimensions={1}, to_apply=%max, metadata={op_name="jit(f)/reduce_max" source_file="FILE" source_line=4}
}

%mask (p0.1: f32[8,8]) -> f32[8,8] {
  %p0.1 = f32[8,8]{1,0} parameter(0)
  %z = f32[8,8]{1,0} constant({...})
  %g = pred[8,8]{1,0} compare(%p0.1, %z), direction=GE, metadata={op_name="jit(f)/ge" source_file="FILE" source_line=5}
  ROOT %w = f32[8,8]{1,0} select(%g, %p0.1, %z), metadata={op_name="jit(f)/select_n" source_file="FILE" source_line=5}
}

ENTRY %main (a: f32[8,8]) -> (f32[8], f32[8,8]) {
  %a = f32[8,8]{1,0} parameter(0)
  %sm = f32[8]{0} fusion(%a), kind=kLoop, calls=%soft
  %mk = f32[8,8]{1,0} fusion(%a), kind=kLoop, calls=%mask
  ROOT %t = (f32[8]{0}, f32[8,8]{1,0}) tuple(%sm, %mk)
}
"""  # noqa: E501

LOOSE_B = """\
HloModule loose_b, is_scheduled=true

%max (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %m = f32[] maximum(%x, %y)
}

%soft (p0: f32[8,8]) -> f32[8] {
  %p0 = f32[8,8]{1,0} parameter(0)
  %e = f32[8,8]{1,0} exponential(%p0), metadata={op_name="jit(f)/vmap(exp)" source_file="FILE" source_line=16}
  %c = f32[] constant(-inf)
  ROOT %r = f32[8]{0} reduce(%e, %c), dimensions={1}, to_apply=%max, metadata={op_name="jit(f)/vmap(reduce_max)" source_file="FILE" source_line=4}
}

%mask (p0.1: f32[8,8]) -> f32[8,8] {
  %p0.1 = f32[8,8]{1,0} parameter(0)
  %s = f32[8,8]{1,0} multiply(%p0.1, %p0.1), metadata={op_name="jit(f)/mul" source_file="FILE" source_line=3}
  %z = f32[8,8]{1,0} constant({...})
  %g = pred[8,8]{1,0} compare(%s, %z), direction=GE, metadata={op_name="jit(f)/ge" source_file="FILE" source_line=5}
  ROOT %w = f32[8,8]{1,0} select(%g, %s, %z), metadata={op_name="jit(f)/select_n" source_file="FILE" source_line=5}
}

ENTRY %main (a: f32[8,8]) -> (f32[8], f32[8,8]) {
  %a = f32[8,8]{1,0} parameter(0)
  %sm = f32[8]{0} fusion(%a), kind=kLoop, calls=%soft
  %mk = f32[8,8]{1,0} fusion(%a), kind=kLoop, calls=%mask
  ROOT %t = (f32[8]{0}, f32[8,8]{1,0}) tuple(%sm, %mk)
}
"""  # noqa: E501

LOOSE_CODE = [
    "def f(x):",
    "    # the scores",
    "    s = x * x",
    "    p = softmax(s)",
    "    m = jnp.where(s >= 0, s, 0)",
]


def _loose_programs(tmp_path: Path) -> tuple[str, str]:
    file_a, file_b = tmp_path / "a.py", tmp_path / "b.py"
    file_a.write_text("\n".join(LOOSE_CODE) + "\n")
    # B: lines inserted above (the library import) and the call at line 16.
    file_b.write_text("\n".join(["import jax"] * 10 + LOOSE_CODE + ["    return p, m"]) + "\n")
    a = LOOSE_A.replace("FILE", str(file_a))
    b = LOOSE_B.replace("FILE", str(file_b))
    # B's lines: the multiply and the mask moved down by 10, the reduce stays on the same
    # code (line 14 of B is line 4 of A), the exp is on the call's line 16.
    for line in (3, 5):
        b = b.replace(f"source_line={line}}}", f"source_line={line + 10}}}")
    return a, b.replace("source_line=4}", "source_line=14}")


def test_a_softmax_kernel_is_paired_by_its_work_not_by_a_leftover_multiply(tmp_path):
    """Without what kernels compute, A's softmax and mask kernels merge into B's mask kernel
    and B's softmax kernel is new; with it, each is paired with the kernel doing its work."""
    a, b = _loose_programs(tmp_path)
    result = diff(hloscope.parse(a), hloscope.parse(b))
    groups = {
        (c.status, tuple(k.name for k in c.a), tuple(k.name for k in c.b)) for c in result.changes
    }
    assert groups == {("changed", ("sm",), ("sm",)), ("changed", ("mk",), ("mk",))}
    (soft,) = [c for c in result.changes if c.a[0].name == "sm"]
    assert soft.computes_a == soft.computes_b == ["softmax"] and not soft.unrelated


@pytest.mark.slow
def test_the_code_replaced_fits_80_columns(cache, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = CliRunner().invoke(cli, ["diff", _target("norm_mlp_a.py"), _target("norm_mlp_b.py")])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    start = lines.index("code replaced (old lines -> new lines)")
    section = lines[start + 1 : lines.index("", start)]
    assert section and all(len(line) <= 80 for line in section)
    assert section[0].startswith("  norm_mlp_a.py:") and "(layer_norm" in section[0]
    # A wrapped group goes on indented under its first line.
    assert all(line.startswith("      ") for line in section[1:])
    assert "norm_library.py:" in " ".join(section)


def test_too_many_candidates_pair_by_fingerprint_only(tmp_path, monkeypatch):
    """Past the cap, kernels are paired by what they compute only when their fingerprints
    are equal: the softmax kernels (one has the scale multiply, one not) stay apart, and
    the waiting link then merges A's softmax kernel into B's mask kernel."""
    from hloscope.analysis.diff import _matching

    a, b = _loose_programs(tmp_path)
    monkeypatch.setattr(_matching, "_MAX_COMPUTE_PAIRS", 0)
    result = diff(hloscope.parse(a), hloscope.parse(b))
    groups = {
        (c.status, tuple(k.name for k in c.a), tuple(k.name for k in c.b)) for c in result.changes
    }
    assert groups == {("merged", ("sm", "mk"), ("mk",)), ("added", (), ("sm",))}


@pytest.mark.slow
def test_memory_counts_replaced_lines_under_the_line_that_replaced_them(cache, monkeypatch):
    """The peak's bytes of the hand-written attention's lines are compared with those of the
    library call's line, not listed as one line gone and another new."""
    monkeypatch.setenv("COLUMNS", "80")
    a, b = _target("attention_a.py"), _target("attention_b.py")
    data = json.loads(CliRunner().invoke(cli, ["diff", "--json", a, b]).stdout)
    rows = data["memory"]["by_source"]
    attention = [r for r in rows if Path(r["source"]).name.startswith("attention_a.py")]
    assert not [r for r in attention if "(attention)" in r["source"]]
    call = [r for r in rows if "attention_b.py:16 (attention)" in r["source"]]
    assert call and all(r["a"] and "attention_a.py:" in r["source_a"] for r in call)
    # In the text, a long moved-line label folds; the three numbers keep their width.
    text = CliRunner().invoke(cli, ["diff", a, b]).output.splitlines()
    start = text.index("bytes at the peak by source line")
    for line in text[start + 1 :]:
        if line.startswith("  ") and "KiB" in line:
            assert "…" not in line and len(line) <= 80
