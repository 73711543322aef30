"""hloscope.hlo.stablehlo: every op of a StableHLO text with its MLIR location resolved.

The oracle for what jax prints is MLIR itself: jax's MLIR bindings print each op's location
with every ``#locN`` alias expanded, and the op_name and frames are read off that print with a
plain regular expression, not with hloscope's reader of the alias table. The names of the ops
of private functions are checked against what XLA's call inliner writes into the optimized
module. jax prints no ``fused[...]`` location for ordinary programs (MLIR passes make them when
they merge ops), so those are written here by hand in MLIR's syntax.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from frameworks_needed import needs_framework

import hloscope.analysis.explain
from hloscope.analysis.explain import explain
from hloscope.backends.record import Capture
from hloscope.hlo import stablehlo
from hloscope.hlo.metadata import StackFrame
from hloscope.hlo.stablehlo import join_scope, stablehlo_ops
from hloscope.stages import Stage

HERE = Path(__file__).resolve()


# ---- programs jax lowers: nested jit, a scan (a while with regions), reduces ---------------------


def inner(x):
    import jax.numpy as jnp

    return jnp.sin(x) * 2.0


def outer(x):
    import jax
    import jax.numpy as jnp

    y = jax.jit(inner)(x)

    def body(carry, _):
        return carry + jnp.cos(carry), None

    carry, _ = jax.lax.scan(body, y, None, length=3)
    return carry.sum() + jnp.max(y) + jnp.argmax(y)


def scaled_sine(x, y):
    import jax.numpy as jnp

    z = x * y
    return z + jnp.sin(z)


def _lowered(fn, *args):
    jax = needs_framework("jax")
    return jax.jit(fn).lower(*args)


def _ones():
    import jax.numpy as jnp

    return jnp.ones(4, jnp.float32)


# ---- the oracle: MLIR's own print of each location ---------------------------------------------

_STRING = r'"(?:[^"\\]|\\.)*"'
# "function"("file":line:col ...): one frame, as jax writes them.
_FRAME = re.compile(rf"(?P<fn>{_STRING})\((?P<file>{_STRING}):(?P<line>\d+):(?P<col>\d+)")
# loc("name"(...)) where the name does not wrap a file location: the op_name.
_NAME = re.compile(rf"^loc\((?P<name>{_STRING})\((?!{_STRING}:\d)")


def mlir_location(location: str) -> tuple[str, list[StackFrame]]:
    """``(op_name, stack)`` of a location MLIR printed with its aliases expanded."""
    name = _NAME.match(location)
    frames = [
        StackFrame(f["file"][1:-1], int(f["line"]), f["fn"][1:-1], int(f["col"]))
        for f in _FRAME.finditer(location)
    ]
    return (name["name"][1:-1] if name else ""), frames


def mlir_ops(module) -> list[tuple[str, str, str]]:
    """``(function, op, location)`` of every op MLIR holds, in the order the text prints them
    (terminators, structure, and the body of a reduce printed in its short form
    ``applies stablehlo.add`` left out: the text shows one op)."""
    out: list[tuple[str, str, str]] = []

    def walk(operations, function: str) -> None:
        for op in operations:
            name = op.operation.name
            if name == "func.func":
                function = str(op.attributes["sym_name"]).strip('"')
            elif not name.endswith("return") and name != "builtin.module":
                out.append((function, name, str(op.location)))
            if " applies " in str(op).split("\n", 1)[0]:
                continue
            for region in op.regions:
                for block in region.blocks:
                    walk(block.operations, function)

    walk(module.body.operations, "")
    return out


# ---- what jax prints ----------------------------------------------------------------------------


def _paired(fn, *args):
    """The reader's ops of ``fn``'s StableHLO beside MLIR's ``(function, op, location)``, and
    the lowered program."""
    lowered = _lowered(fn, *args)
    expected = mlir_ops(lowered.compiler_ir("stablehlo"))
    ops = sorted(stablehlo_ops(lowered.as_text(debug_info=True)), key=lambda op: op.line)
    # Inside a function MLIR prints `call` for `func.call` (func is the default dialect there).
    assert [(op.function, op.op.removeprefix("func.")) for op in ops] == [
        (function, name.removeprefix("func.")) for function, name, _ in expected
    ]
    return list(zip(ops, [location for _, _, location in expected], strict=True)), lowered


def test_every_op_of_a_public_function_has_the_location_mlir_prints():
    pairs, lowered = _paired(outer, _ones())
    text = lowered.as_text(debug_info=True)
    assert re.search(r"^#loc\d+ = loc\(callsite\(#loc\d+ at #loc\d+\)\)$", text, re.M)
    public = [(op, location) for op, location in pairs if not op.private]
    assert {op.op for op, _ in public} >= {"call", "func.call", "stablehlo.while"}
    for op, location in public:
        assert (op.op_name, op.stack) == mlir_location(location), (op.text, location)
    # A while prints its location after its regions' closing brace, and keeps its first line.
    loop = next(op for op, _ in public if op.op == "stablehlo.while")
    assert loop.op_name == "jit(outer)/while"
    assert text.splitlines()[loop.line - 1].strip() == loop.text


def test_ops_of_private_functions_are_named_and_stacked_as_xla_inlines_them():
    pairs, lowered = _paired(outer, _ones())
    sites = {op.callee: mlir_location(location) for op, location in pairs if op.callee}
    private = [(op, location) for op, location in pairs if op.private]
    assert {op.function for op, _ in private} == {"inner", "closed_call", "argmax"}
    optimized = lowered.compile().as_text()
    named = 0
    for op, location in private:
        own_name, own_stack = mlir_location(location)
        if not own_name:  # no location of its own (a constant): left as it is
            assert (op.op_name, op.stack) == ("", own_stack)
            continue
        site_name, site_stack = sites[op.function]
        # The op's own frames, then its call site's; the call's name, then its own.
        assert op.stack == own_stack + site_stack
        assert op.op_name == f"{site_name}/{own_name}"
        named += f'op_name="{op.op_name}"' in optimized
    sine = next(op for op, _ in private if op.op == "stablehlo.sine")
    assert sine.op_name == "jit(outer)/jit(inner)/sin"
    assert [f.function for f in sine.stack[:2]] == ["inner", "outer"]
    assert named >= 2, "XLA's call inliner writes the same op_names"
    # A reduce of two values prints its body after `reducer(...)`, on the line below it.
    reduce = next(op for op, _ in private if op.op == "stablehlo.reduce")
    assert reduce.function == "argmax" and reduce.name == "%1"


def test_stablehlo_locations_name_the_op_and_its_line():
    needs_framework("jax")
    import jax.numpy as jnp

    from hloscope.backends._jaxlib import stablehlo_text

    lines, first = inspect.getsourcelines(scaled_sine)
    product = first + next(i for i, text in enumerate(lines) if "x * y" in text)
    result = first + next(i for i, text in enumerate(lines) if "jnp.sin" in text)
    text = stablehlo_text(_lowered(scaled_sine, jnp.ones(4), jnp.ones(4)))
    ops = {op.op: op for op in stablehlo_ops(text)}
    assert ops["stablehlo.multiply"].op_name == "jit(scaled_sine)/mul"
    assert ops["stablehlo.sine"].op_name == "jit(scaled_sine)/sin"
    for op, line in (("stablehlo.multiply", product), ("stablehlo.sine", result)):
        frame = ops[op].stack[0]
        assert (Path(frame.file).name, frame.line, frame.function) == (
            HERE.name,
            line,
            "scaled_sine",
        )
    assert ops["stablehlo.sine"].stack[0].column == lines[result - first].index("jnp.sin")


def test_escaped_file_names_are_unquoted(tmp_path):
    jax = needs_framework("jax")
    path = str(tmp_path / 'we"ird\\name.py')
    scope: dict = {}
    source = "import jax.numpy as jnp\ndef f(x):\n    return jnp.sin(x)\n"
    exec(compile(source, path, "exec"), scope)
    text = jax.jit(scope["f"]).lower(_ones()).as_text(debug_info=True)
    assert "\\22" in text  # MLIR writes the quote as two hex digits
    sine = next(op for op in stablehlo_ops(text) if op.op == "stablehlo.sine")
    assert (sine.stack[0].file, sine.stack[0].line) == (path, 3)


# ---- MLIR's syntax, written by hand ---------------------------------------------------------


def test_inline_locations_and_regions():
    text = "\n".join(
        [
            "module @m {",
            '  func.func public @main(%arg0: tensor<f32> loc("x")) -> tensor<f32> {',
            '    %0 = stablehlo.add %arg0, %arg0 : tensor<f32> loc(callsite("f"("a.py":3:4 to :9)'
            ' at "<module>"("a.py":7:0)))',
            '    %1 = "stablehlo.reduce"(%0, %0) ({',
            "    ^bb0(%a: tensor<f32> loc(unknown), %b: tensor<f32> loc(unknown)):",
            '      %2 = stablehlo.max %a, %b : tensor<f32> loc("jit(f)/max"(#loc9))',
            "      stablehlo.return %2 : tensor<f32> loc(#loc9)",
            '    }) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc("jit(f)/reduce_max"(#loc9))',
            "    return %1 : tensor<f32> loc(#loc)",
            "  } loc(#loc)",
            "} loc(#loc)",
            "#loc = loc(unknown)",
            '#loc8 = loc("a.py":5:2)',
            '#loc9 = loc("g"(#loc8))',
        ]
    )
    ops = stablehlo_ops(text)
    assert [(op.name, op.op) for op in ops] == [
        ("%0", "stablehlo.add"),
        ("%2", "stablehlo.max"),
        ("%1", "stablehlo.reduce"),
    ]
    add, maximum, reduce = ops
    assert [(f.file, f.line, f.function) for f in add.stack] == [
        ("a.py", 3, "f"),
        ("a.py", 7, "<module>"),
    ]
    assert maximum.op_name == "jit(f)/max" and maximum.stack[0].function == "g"
    assert reduce.op_name == "jit(f)/reduce_max" and reduce.line == 4
    assert reduce.text == '%1 = "stablehlo.reduce"(%0, %0) ({'
    assert all(op.function == "main" for op in ops)


def _one_op(location: str, *aliases: str) -> stablehlo.StableHloOp:
    text = "\n".join(
        [
            "module @m {",
            "  func.func public @main(%arg0: tensor<f32>) -> tensor<f32> {",
            f"    %0 = stablehlo.negate %arg0 : tensor<f32> loc({location})",
            "    return %0 : tensor<f32> loc(#loc)",
            "  } loc(#loc)",
            "} loc(#loc)",
            "#loc = loc(unknown)",
            *aliases,
        ]
    )
    (op,) = stablehlo_ops(text)
    return op


@pytest.mark.parametrize(
    ("location", "op_name", "frames"),
    [
        # Several locations merged: the first name and the first stack.
        ('fused["a.py":1:2, "b.py":3:4]', "", [("a.py", 1, "", 2)]),
        (
            'fused<"xla">["jit(f)/neg"("f"("a.py":1:2)), "other"("g"("b.py":3:4))]',
            "jit(f)/neg",
            [("a.py", 1, "f", 2)],
        ),
        ('fused[unknown, "late"(#loc2)]', "late", [("c.py", 9, "h", 1)]),
        (
            'fused[callsite("f"("a.py":1:2) at "g"("b.py":3:4))]',
            "",
            [
                ("a.py", 1, "f", 2),
                ("b.py", 3, "g", 4),
            ],
        ),
        # A name alone, unknown, and text that is no location at all.
        ('"jit(f)/neg"', "jit(f)/neg", []),
        ("unknown", "", []),
        ("#loc404", "", []),
        ("what is this", "", []),
    ],
)
def test_location_forms(location, op_name, frames):
    op = _one_op(location, '#loc1 = loc("c.py":9:1)', '#loc2 = loc("h"(#loc1))')
    assert op.op_name == op_name
    assert [(f.file, f.line, f.function, f.column) for f in op.stack] == frames


def test_aliases_resolve_through_chains_in_any_order():
    op = _one_op(
        "#loc5",
        '#loc5 = loc("jit(f)/neg"(#loc4))',  # refers to aliases printed after it
        "#loc4 = loc(callsite(#loc3 at #loc2))",
        '#loc3 = loc("f"(#loc1))',
        '#loc2 = loc("<module>"("main.py":20:0))',
        '#loc1 = loc("model.py":7:3 to 9:1)',
    )
    assert op.op_name == "jit(f)/neg"
    assert [str(f) for f in op.stack] == ["model.py:7 (f)", "main.py:20 (<module>)"]
    assert op.stack[0].column == 3


def test_an_alias_cycle_resolves_to_nothing():
    op = _one_op("#loc1", "#loc1 = loc(#loc2)", "#loc2 = loc(#loc1)")
    assert (op.op_name, op.stack) == ("", [])


def test_a_long_op_keeps_its_whole_text_and_explain_cuts_it():
    operands = ", ".join(f"%arg{i}" for i in range(40))
    text = "\n".join(
        [
            "module @m {",
            "  func.func public @main(%arg0: tensor<f32>) -> tensor<f32> {",
            f"    %0 = stablehlo.custom_call @wide({operands}) : (tensor<f32>) -> tensor<f32>"
            ' loc("jit(f)/wide"("f"("a.py":1:2)))',
            "    return %0 : tensor<f32> loc(#loc)",
            "  } loc(#loc)",
            "} loc(#loc)",
            "#loc = loc(unknown)",
        ]
    )
    (op,) = stablehlo_ops(text)
    assert op.text.endswith("-> tensor<f32>") and len(op.text) > 300
    assert op.text.startswith("%0 = stablehlo.custom_call @wide(%arg0, %arg1,")
    # explain shows the op beside its line cut short (the whole text is in the stage itself).
    hlo = "HloModule m\n\nENTRY main {\n  ROOT p = f32[] parameter(0)\n}\n"
    capture = Capture("jax", "m", {Stage.STABLEHLO: text, Stage.HLO: hlo})
    (line,) = explain(capture).lines
    (shown,) = line.stage_ops(Stage.STABLEHLO)
    assert len(shown.text) == 160 and shown.text == op.text[:159] + "\u2026"


# ---- the call inliner's names ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("prefix", "name", "joined"),
    [
        ("jit(f)/while/body/closed_call", "mul", "jit(f)/while/body/closed_call/mul"),
        ("", "mul", "mul"),
        ("jit(f)/jit(g)", "", "jit(f)/jit(g)"),
        # Named in full already (some jax versions write a body's ops so): not doubled.
        ("jit(f)/jit(g)", "jit(f)/jit(g)/cos", "jit(f)/jit(g)/cos"),
        ("jit(f)/jit(g)", "jit(f)", "jit(f)"),
    ],
)
def test_join_scope(prefix, name, joined):
    assert join_scope(prefix, name) == joined


def test_a_private_function_op_keeps_its_call_site_stack():
    text = "\n".join(
        [
            "module @m {",
            "  func.func public @main(%arg0: tensor<f32>) -> tensor<f32> {",
            "    %0 = func.call @inner(%arg0) : (tensor<f32>) -> tensor<f32> loc(#loc5)",
            "    %1 = func.call @inner(%0) : (tensor<f32>) -> tensor<f32> loc(#loc6)",
            "    return %1 : tensor<f32> loc(#loc)",
            "  } loc(#loc)",
            "  func.func private @inner(%arg0: tensor<f32>) -> tensor<f32> {",
            "    %0 = stablehlo.sine %arg0 : tensor<f32> loc(#loc4)",
            "    %1 = stablehlo.cosine %0 : tensor<f32> loc(#loc7)",
            "    return %1 : tensor<f32> loc(#loc)",
            "  } loc(#loc)",
            "} loc(#loc)",
            "#loc = loc(unknown)",
            '#loc1 = loc("a.py":3:4)',
            '#loc2 = loc("a.py":9:1)',
            '#loc3 = loc("a.py":10:1)',
            '#loc4 = loc("sin"("g"(#loc1)))',
            '#loc5 = loc("jit(f)/jit(g)"("f"(#loc2)))',
            '#loc6 = loc("jit(f)/jit(g)"("f"(#loc3)))',
            # Named in full already (as some jax versions write a body's ops): not doubled.
            '#loc7 = loc("jit(f)/jit(g)/cos"("g"(#loc1)))',
        ]
    )
    ops = stablehlo_ops(text)
    assert [op.callee for op in ops if op.op == "func.call"] == ["inner", "inner"]
    sine = next(op for op in ops if op.op == "stablehlo.sine")
    assert sine.private and sine.op_name == "jit(f)/jit(g)/sin"
    assert [(f.line, f.function) for f in sine.stack] == [(3, "g"), (9, "f")]
    assert [(name, [f.line for f in stack]) for name, stack in sine.other_sites] == [
        ("jit(f)/jit(g)/sin", [3, 10])
    ]
    cosine = next(op for op in ops if op.op == "stablehlo.cosine")
    assert cosine.op_name == "jit(f)/jit(g)/cos"


def test_explain_reexports_the_reader():
    assert hloscope.analysis.explain.stablehlo_ops is stablehlo_ops
    assert hloscope.analysis.explain.StableHloOp is stablehlo.StableHloOp
    assert explain is hloscope.analysis.explain.explain
