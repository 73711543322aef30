"""explain: ops inside private functions and called computations get their lines, and kernels
XLA made without metadata get theirs from the ops next to them.

The oracles are jax's and XLA's own: the MLIR location jax prints for every op of the
lowered module (its MLIR bindings, not hloscope's reader of the text), the op_names XLA's call
inliner writes into the optimized module, and the metadata XLA keeps on the ops a bare kernel
feeds.
"""

from __future__ import annotations

import inspect
import re
from collections import Counter
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

import hloscope
from hloscope.analysis.explain import explain
from hloscope.analysis.fusions import op_source
from hloscope.stages import Stage

HERE = Path(__file__).resolve()


# ---- programs of the shapes the issue names ---------------------------------------------------


def scan_body(carry, x):
    decayed = carry * 0.5
    mixed = decayed + jnp_sin(x)
    squared = mixed * mixed
    return mixed, squared


def jnp_sin(x):
    import jax.numpy as jnp

    return jnp.sin(x)


def scanned(xs):
    import jax
    import jax.numpy as jnp

    last, stacked = jax.lax.scan(scan_body, jnp.zeros(xs.shape[1:]), xs)
    return last.sum() + stacked.sum()


def loop_step(i, value):
    grown = value * 1.5
    return grown + i


def looped(x):
    import jax

    return jax.lax.fori_loop(0, 7, loop_step, x)


def positive_branch(v):
    import jax.numpy as jnp

    return jnp.exp(v) - 1.0


def negative_branch(v):
    import jax.numpy as jnp

    return jnp.log1p(v * v)


def branchy(p, x):
    import jax

    return jax.lax.cond(p > 0, positive_branch, negative_branch, x)


def _helper(a):
    import jax.numpy as jnp

    b = jnp.tanh(a)
    return b * 3.0


def calls_a_jitted_helper(x):
    import jax

    y = x + 1.0
    return jax.jit(_helper)(y) - 2.0


def nested_step(h, x):
    import jax

    h = jax.jit(_helper)(h + x)
    return h, h.sum()


def scan_calling_a_jitted_helper(xs):
    import jax
    import jax.numpy as jnp

    _, sums = jax.lax.scan(nested_step, jnp.zeros(xs.shape[1:]), xs)
    return sums


def spread(x):
    import jax.numpy as jnp

    centred = x - jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(centred * centred, axis=-1)
    return jnp.tanh(jnp.exp(jnp.sin(var + 1.0) * 2.0) - 3.0) * jnp.cos(var)


def matmul_relu(a, b):
    import jax

    c = a @ b
    return jax.nn.relu(c + 1.0)


def _args(name):
    import jax.numpy as jnp

    return {
        "scanned": (jnp.ones((6, 4, 4)),),
        "looped": (jnp.ones((16,)),),
        "branchy": (jnp.float32(1.0), jnp.ones((16,))),
        "calls_a_jitted_helper": (jnp.ones((16,)),),
        "scan_calling_a_jitted_helper": (jnp.ones((5, 3)),),
        "spread": (jnp.ones((2, 16, 64)),),
        "matmul_relu": (jnp.ones((32, 32)), jnp.ones((32, 32))),
    }[name]


PROGRAMS = {
    "scanned": (scanned, [scan_body, jnp_sin]),
    "looped": (looped, [loop_step]),
    "branchy": (branchy, [positive_branch, negative_branch]),
    "calls_a_jitted_helper": (calls_a_jitted_helper, [_helper]),
    # A private function calling another: the inner one's ops take both call sites' scopes.
    "scan_calling_a_jitted_helper": (scan_calling_a_jitted_helper, [nested_step, _helper]),
}


def body_lines(functions) -> set[int]:
    """The lines of these functions' bodies (after the ``def`` line)."""
    lines = set()
    for fn in functions:
        source, first = inspect.getsourcelines(fn)
        lines.update(range(first + 1, first + len(source)))
    return lines


_FRAME = re.compile(r'"(?P<file>[^"]+)":(?P<line>\d+):')


def jax_locations_per_line(fn, args) -> Counter:
    """Ops of the lowered module per line of this file, from jax's MLIR objects: each op's
    location printed by MLIR, its innermost frame in this file (terminators, and the body of a
    reduce printed in its short form `applies stablehlo.add`, left out: the text shows one
    op)."""
    import jax

    module = jax.jit(fn).lower(*args).compiler_ir("stablehlo")
    counts: Counter = Counter()

    def walk(operations):
        for op in operations:
            name = op.operation.name
            if not name.endswith("return") and name not in ("func.func", "builtin.module"):
                for frame in _FRAME.finditer(str(op.location)):
                    if Path(frame["file"]).resolve() == HERE:
                        counts[int(frame["line"])] += 1
                        break
            if " applies " in str(op).split("\n", 1)[0]:
                continue  # a reduce printed in its short form: its body is not in the text
            for region in op.regions:
                for block in region.blocks:
                    walk(block.operations)

    walk(module.body.operations)
    return counts


@pytest.fixture(scope="module", params=sorted(PROGRAMS))
def program(request):
    needs_framework("jax")
    from hloscope.capture.jaxpr_lines import capture_with_sources

    fn, bodies = PROGRAMS[request.param]
    args = _args(request.param)
    return fn, bodies, args, capture_with_sources(fn, *args)


# ---- 15: ops of private functions and called computations ----------------------------------


def test_private_function_ops_count_for_their_lines_as_jax_locates_them(program):
    fn, bodies, args, cap = program
    wanted = body_lines(bodies)
    oracle = {line: n for line, n in jax_locations_per_line(fn, args).items() if line in wanted}
    assert oracle, "the body functions lower to located ops"
    e = explain(cap)
    ours = {
        line.line: len(line.stage_ops(Stage.STABLEHLO))
        for line in e.lines
        if Path(line.file).resolve() == HERE and line.line in wanted
    }
    assert ours == oracle


def test_body_ops_of_every_stage_end_in_the_kernels_xla_put_them_in(program):
    """Each StableHLO and HLO op of a body line links to a kernel whose members have the same
    op_name: the name XLA's call inliner gave the op in the optimized module."""
    _, bodies, _, cap = program
    wanted = body_lines(bodies)
    e = explain(cap)
    after = cap.module("after")
    member_names: dict[str, set[str]] = {}
    for line in e.lines:
        for op in line.stage_ops(Stage.OPTIMIZED_HLO):
            member_names.setdefault(op.kernel, set()).update(op.op_name.split(";"))
    checked = 0
    for line in e.lines:
        if Path(line.file).resolve() != HERE or line.line not in wanted or not line.n_ops:
            continue
        for stage in (Stage.STABLEHLO, Stage.HLO):
            ops = line.stage_ops(stage)
            assert ops, (line.source, stage)
            # The line has kernels, so some of its ops of every stage end in one.
            assert any(op.kernels for op in ops), (line.source, stage)
            for op in ops:
                if op.fate == "inlined":  # a call: XLA inlines it, its ops are linked
                    continue
                if op.fate:  # folded or merged away: not in the optimized module
                    continue
                assert op.kernels, (stage, op.text)
                assert any(op.op_name in member_names.get(k, ()) for k in op.kernels), op.op_name
                checked += 1
    assert checked
    assert any(i.metadata.op_name.count("/") > 1 for i in after.instructions())


@pytest.mark.parametrize(
    "name", ["scanned", "looped", "calls_a_jitted_helper", "scan_calling_a_jitted_helper"]
)
def test_hlo_of_a_called_computation_is_named_as_xla_inlines_it(name):
    """The HLO before optimization names the ops of a called computation relative to it; the
    optimized module (XLA's call inliner) puts the call's op_name before them. explain's HLO
    ops carry the inlined names, each one found among the optimized module's op_names."""
    needs_framework("jax")
    from hloscope.capture.jaxpr_lines import capture_with_sources

    fn, bodies = PROGRAMS[name]
    cap = capture_with_sources(fn, *_args(name))
    before = cap.module("before")
    assert any(i.opcode == "call" for i in before.instructions())
    relative = [i for i in before.instructions() if i.metadata.op_name in ("mul", "tanh")]
    assert relative, "jax names a called computation's ops relative to it"
    optimized = {i.metadata.op_name for i in cap.module("after").instructions()}
    wanted = body_lines(bodies)
    e = explain(cap)
    named = [
        op
        for line in e.lines
        if line.line in wanted
        for op in line.stage_ops(Stage.HLO)
        if not op.fate
    ]
    assert named
    assert all(op.op_name in optimized for op in named), [op.op_name for op in named]


def test_a_while_loop_is_one_stablehlo_op_on_the_loop_line():
    needs_framework("jax")
    from hloscope.capture.jaxpr_lines import capture_with_sources

    result = explain(capture_with_sources(looped, *_args("looped")))
    source, first = inspect.getsourcelines(looped)
    loop_line = first + next(i for i, text in enumerate(source) if "fori_loop" in text)
    ops = [op for line in result.lines for op in line.stage_ops(Stage.STABLEHLO)]
    # The while prints its regions after `cond {`: the keyword is no op of its own.
    assert "cond" not in {op.op for op in ops}
    (loop,) = [op for op in ops if op.op == "stablehlo.while"]
    assert loop.name == "%0" and loop.text.startswith("%0:3 = stablehlo.while(")
    (line,) = [line for line in result.lines if loop in line.stage_ops(Stage.STABLEHLO)]
    assert line.line == loop_line


# ---- 16: kernels without metadata ------------------------------------------------------------


def _line_of(fn, text: str) -> int:
    source, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(source) if text in line)


@pytest.fixture(scope="module")
def split_reduce():
    needs_framework("jax")
    from hloscope.capture.jaxpr_lines import capture_with_sources

    return capture_with_sources(spread, *_args("spread"))


def test_the_first_half_of_a_split_reduce_gets_the_line_of_the_reduce_it_feeds(split_reduce):
    """XLA splits the variance's reduce in two; the half it made has no metadata and feeds a
    fusion that holds the other half and many ops of the next line. Its line is the reduce's
    (XLA's metadata on the reduce inside that fusion), not the fusion's most common line."""
    after = split_reduce.module("after")
    e = explain(split_reduce)
    variance_line = _line_of(spread, "centred * centred")
    checked = 0
    for kernel in e.kernels:
        if kernel.sources:
            continue
        inst = after.entry.get(kernel.name)
        consumer = inst.users[0]
        fused = consumer.fused_computation
        if fused is None:
            continue
        reduces = [m for m in fused.instructions if m.opcode == "reduce"]
        if not reduces:
            continue
        expected = op_source(reduces[0])
        assert kernel.inferred_sources == [expected], kernel.name
        checked += 1
        majority = next(k for k in e.kernels if k.name == consumer.name).sources[0][0]
        if expected.split(" ")[0].endswith(f":{variance_line}"):
            assert majority != expected  # the case the fusion's majority would get wrong
    assert checked
    assert any(
        k.inferred_sources and k.inferred_sources[0].split(" ")[0].endswith(f":{variance_line}")
        for k in e.kernels
    )


def test_a_loop_counter_copy_gets_the_loop_line():
    needs_framework("jax")
    from hloscope.capture.jaxpr_lines import capture_with_sources

    cap = capture_with_sources(looped, *_args("looped"))
    after = cap.module("after")
    bare_copies = [
        i.name
        for i in after.entry.instructions
        if i.opcode == "copy" and not i.metadata.op_name and not i.stack
    ]
    if not bare_copies:
        pytest.skip("this XLA keeps metadata on the loop's copies")
    e = explain(cap)
    loop_line = _line_of(looped, "fori_loop")
    for name in bare_copies:
        kernel = e.kernel(name)
        assert kernel.inferred_sources, name
        (source,) = kernel.inferred_sources
        assert source.split(" ")[0].endswith(f":{loop_line}"), (name, source)
    assert not any("0 were traced" in note for note in e.notes)
    # Its focus says why no op of the loop's line is in it, instead of an empty table.
    import io

    from rich.console import Console

    from hloscope.render.explain_text import render_explanation

    out = io.StringIO()
    render_explanation(e.focus_kernel(bare_copies[0]), Console(file=out, width=80))
    text = out.getvalue()
    assert "no op of this line ended in it" in text and "\u2503" not in text
    assert f"feeds {e.kernel(bare_copies[0]).inferred_how.rsplit(' ', 1)[-1]}" in text


def test_a_dot_whose_kernel_lost_its_metadata_still_shows_its_kernel():
    """XLA may drop a kernel's metadata (here removed from the optimized text by hand): the
    kernel is traced to the dot's line, and the dot's ops of every earlier stage end in it."""
    needs_framework("jax")
    from hloscope.capture.jaxpr_lines import capture_with_sources

    cap = capture_with_sources(matmul_relu, *_args("matmul_relu"))
    after_text = cap.stages[Stage.OPTIMIZED_HLO]
    assert "metadata" in after_text
    dot_kernels = [
        i.name
        for i in cap.module("after").entry.instructions
        if i.opcode in ("fusion", "dot", "custom-call")
        and any(m.opcode == "dot" for m in _members(i))
    ]
    assert dot_kernels
    stripped = _strip_metadata(after_text, cap, dot_kernels[0])
    after = hloscope.parse(stripped)
    before = cap.module("before")
    e = explain(after, before=before, line=f"{HERE.name}:{_line_of(matmul_relu, 'a @ b')}")
    (line,) = e.lines
    assert dot_kernels[0] in line.inferred_kernels
    dots = [op for op in line.stage_ops(Stage.HLO) if op.op == "dot"]
    assert dots and all(op.kernels == [dot_kernels[0]] for op in dots)
    equations = [op for op in line.stage_ops(Stage.JAXPR) if op.op == "dot_general"]
    assert all(op.kernels == [dot_kernels[0]] for op in equations)


def _members(inst):
    fused = inst.fused_computation
    return list(fused.instructions) if fused is not None else [inst]


def _called(cap, name):
    inst = cap.module("after").entry.get(name)
    return [c.name for c in inst.called_computations]


def _strip_metadata(text: str, cap, kernel: str) -> str:
    """``text`` without the metadata of ``kernel`` and of the computation it calls."""
    called = set(_called(cap, kernel))
    out, in_called = [], False
    for line in text.splitlines():
        header = re.match(r"^%?(?P<name>[\w.-]+) \(", line)
        if header is not None:
            in_called = header["name"] in called
        elif line.startswith("ENTRY") or line.startswith("}"):
            in_called = False
        if in_called or re.match(rf"^\s*(ROOT )?%?{re.escape(kernel)} = ", line):
            line = re.sub(r", metadata=\{[^}]*\}", "", line)
        out.append(line)
    return "\n".join(out) + "\n"
