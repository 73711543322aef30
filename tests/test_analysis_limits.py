"""The analyses at the limits: nesting ten thousand deep, huge convolutions, malformed ops.

* No walk recurses on nesting: a chain of 10,000 nested calls, fusions or loops costs, reports,
  diffs and draws in seconds, with the totals of the same pattern XLA costs at small depths
  (XLA's own analysis recurses, so it is the oracle only where it is shallow).
* A convolution's valid window positions are counted arithmetically, not by a loop over
  kernel x output positions: a 10^6-element window over a 10^6-element output costs in
  milliseconds, and random small convolutions (strides, padding, both dilations, groups)
  equal XLA's FLOPs.
* Text the parser accepts but that breaks an op's invariants costs 0 with a CostWarning that
  names the instruction and its line, never an exception.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hloscope
from hloscope.analysis.cost import (
    CostWarning,
    instruction_cost,
    module_cost,
    placements,
    valid_window_positions,
)
from hloscope.analysis.fusions import fusion_report
from hloscope.hlo.attributes import WindowDimension

DEEP = 10_000
BUDGET_S = 20.0  # CPU seconds per analysis of a 10,000-deep module; they take about 1-3


def xla_costs(text: str) -> dict[str, float]:
    from hloscope.backends._jaxlib import xla_cost_analysis

    return xla_cost_analysis(text)


# --- deep modules, built as text ------------------------------------------------------------


def calls(n: int) -> str:
    """``n`` calls nested in each other, an add at every level (and one at the bottom)."""
    out = ["HloModule deep_calls", "c0 {", "  p = f32[4]{0} parameter(0)"]
    out += ["  ROOT a = f32[4]{0} add(p, p)", "}"]
    for i in range(1, n + 1):
        out += [f"c{i} {{", "  p = f32[4]{0} parameter(0)", "  a = f32[4]{0} add(p, p)"]
        out += [f"  ROOT r = f32[4]{{0}} call(a), to_apply=c{i - 1}", "}"]
    out += ["ENTRY main {", "  x = f32[4]{0} parameter(0)"]
    out += [f"  ROOT r = f32[4]{{0}} call(x), to_apply=c{n}", "}"]
    return "\n".join(out) + "\n"


def fusions(n: int, op_per_level: bool = True) -> str:
    """``n`` fusions nested in each other. With ``op_per_level`` each level multiplies and
    passes its second parameter straight on (so reading it is followed all the way down);
    without, the chain only passes its parameter down to one add at the bottom."""
    params = ["  p0 = f32[4]{0} parameter(0)", "  p1 = f32[4]{0} parameter(1)"]
    out = ["HloModule deep_fusions", "fu0 {", *params, "  ROOT a = f32[4]{0} add(p0, p1)", "}"]
    for i in range(1, n + 1):
        out += [f"fu{i} {{", *params]
        if op_per_level:
            out += ["  m = f32[4]{0} multiply(p0, p1)"]
            out += [f"  ROOT r = f32[4]{{0}} fusion(m, p1), kind=kLoop, calls=fu{i - 1}", "}"]
        else:
            out += [f"  ROOT r = f32[4]{{0}} fusion(p0, p1), kind=kLoop, calls=fu{i - 1}", "}"]
    out += ["ENTRY main {", "  x = f32[4]{0} parameter(0)", "  y = f32[4]{0} parameter(1)"]
    out += [f"  ROOT r = f32[4]{{0}} fusion(x, y), kind=kLoop, calls=fu{n}", "}"]
    return "\n".join(out) + "\n"


def whiles(n: int) -> str:
    """``n`` while loops nested in each other, an add in every body and a shared condition."""
    out = ["HloModule deep_whiles", "cond {", "  p = f32[4]{0} parameter(0)"]
    out += ["  ROOT c = pred[] constant(false)", "}"]
    out += ["b0 {", "  p = f32[4]{0} parameter(0)", "  ROOT a = f32[4]{0} add(p, p)", "}"]
    for i in range(1, n + 1):
        out += [f"b{i} {{", "  p = f32[4]{0} parameter(0)", "  a = f32[4]{0} add(p, p)"]
        out += [f"  ROOT w = f32[4]{{0}} while(a), condition=cond, body=b{i - 1}", "}"]
    out += ["ENTRY main {", "  x = f32[4]{0} parameter(0)"]
    out += [f"  ROOT w = f32[4]{{0}} while(x), condition=cond, body=b{n}", "}"]
    return "\n".join(out) + "\n"


# Each builder's (FLOPs, bytes accessed) at depth n: XLA's numbers at small depths (checked
# below) grow by the same amount per level, so these are XLA's numbers at any depth.
EXPECTED: dict[str, tuple[Callable[[int], str], Callable[[int], tuple[int, int]]]] = {
    "calls": (calls, lambda n: (4 * (n + 1), 48 * (n + 1))),
    "fusions": (fusions, lambda n: (4 * (n + 1), 48)),
    # A parameter passed straight on to a nested fusion is read there (XLA's rule), and the
    # bottom add's operands are the chain's parameters: only the output is counted.
    "fusion-chain": (lambda n: fusions(n, False), lambda n: (4, 48 if n == 0 else 16)),
    "whiles": (whiles, lambda n: (4 * (n + 1), 48 * (n + 1))),
}


@pytest.mark.parametrize("kind", list(EXPECTED))
@pytest.mark.parametrize("depth", [0, 1, 2, 7])
def test_expected_totals_are_xlas_at_small_depths(kind: str, depth: int) -> None:
    build, expected = EXPECTED[kind]
    text = build(depth)
    xla = xla_costs(text)
    assert (xla["flops"], xla["bytes accessed"]) == expected(depth)
    total = module_cost(hloscope.parse(text)).total
    assert (total.flops, total.bytes_accessed) == expected(depth)


def _timed(fn: Callable[[], object]) -> object:
    start = time.process_time()
    out = fn()
    assert time.process_time() - start < BUDGET_S
    return out


@pytest.fixture(scope="module", params=list(EXPECTED))
def deep(request: pytest.FixtureRequest) -> tuple[str, hloscope.Module]:
    build, _ = EXPECTED[request.param]
    return request.param, hloscope.parse(build(DEEP))


def test_deep_module_cost_is_the_pattern(deep: tuple[str, hloscope.Module]) -> None:
    kind, module = deep
    total = _timed(lambda: module_cost(module)).total  # type: ignore[attr-defined]
    assert (total.flops, total.bytes_accessed) == EXPECTED[kind][1](DEEP)


def test_deep_fusion_report_adds_up(deep: tuple[str, hloscope.Module]) -> None:
    kind, module = deep
    report = _timed(lambda: fusion_report(module))
    flops, _ = EXPECTED[kind][1](DEEP)
    assert report.summary.xla_flops == flops  # type: ignore[attr-defined]
    assert report.summary.flops == flops  # type: ignore[attr-defined]


def test_deep_diff_with_itself_finds_no_change(deep: tuple[str, hloscope.Module]) -> None:
    _, module = deep
    changes = _timed(lambda: hloscope.diff(module, module))
    assert changes.no_change  # type: ignore[attr-defined]


def test_deep_graph_expands_every_fusion(deep: tuple[str, hloscope.Module]) -> None:
    kind, module = deep
    graph = _timed(lambda: module.graph(expand_fusions=True))
    if kind == "fusion-chain":
        # x, y and the add at the bottom, fed by both through 10,000 levels of parameters.
        assert graph.number_of_nodes() == 3  # type: ignore[attr-defined]
        root = graph.graph["root"]  # type: ignore[attr-defined]
        assert root.endswith("/a") and root.count("/") == DEEP + 1  # the entry's fusion too
        assert set(graph.predecessors(root)) == {"x", "y"}  # type: ignore[attr-defined]
    elif kind == "fusions":
        # Node ids grow with depth (each names its fusions), so the check stays shallow.
        shallow = hloscope.parse(fusions(50)).graph(expand_fusions=True)
        assert shallow.number_of_nodes() == 2 + 50 + 1
        assert shallow.number_of_edges() == 2 + 2 * 49 + 2  # x, y into each multiply and the add


def test_deep_placements_carry_counts_not_paths() -> None:
    module = hloscope.parse(whiles(DEEP))
    placed = _timed(lambda: placements(module))
    innermost = placed["b0"]  # type: ignore[index]
    assert innermost.depth == DEEP + 1 and innermost.unknown_trip_count
    assert len(innermost.path) == DEEP + 1 and innermost.path[0].instruction is module.entry.root
    assert "b0" in repr(innermost) and innermost == placements(module)["b0"]


def test_deep_where_counts_the_middle_steps() -> None:
    report = fusion_report(hloscope.parse(whiles(12)))
    where = next(k.where for k in report.kernels if k.computation == "b0")
    steps = where.split(" / ")
    # 13 loops: the outer 3 and the inner 4 named, the 6 between counted.
    assert steps[3] == "\u2026 6 more \u2026" and len(steps) == 8
    shallow = next(k.where for k in report.kernels if k.computation == "b6")
    assert "more" not in shallow and len(shallow.split(" / ")) == 7


# --- convolutions ---------------------------------------------------------------------------


def conv_text(
    spatial: list[tuple[int, int, int, int, int, int, int]],
    batch: int = 1,
    features: int = 1,
    out_features: int = 1,
    groups: int = 1,
) -> str:
    """A convolution module; ``spatial`` holds (input, kernel, stride, pad low, pad high,
    lhs_dilate, rhs_dilate) per dimension, and the output extent follows XLA's shape rule."""
    digits = "".join(str(i) for i in range(len(spatial)))
    lhs = [batch, *(s[0] for s in spatial), features]
    rhs = [*(s[1] for s in spatial), features // groups, out_features]
    out = [batch]
    for size, k, stride, lo, hi, lhs_d, rhs_d in spatial:
        padded = (size - 1) * lhs_d + 1 + lo + hi
        out.append(max(0, (padded - ((k - 1) * rhs_d + 1)) // stride + 1))
    out.append(out_features)

    def shape(dims: list[int]) -> str:
        return "f32[" + ",".join(map(str, dims)) + "]"

    def field(values: list[int] | list[str]) -> str:
        return "x".join(map(str, values))

    window = (
        f"size={field([s[1] for s in spatial])} stride={field([s[2] for s in spatial])} "
        f"pad={field([f'{s[3]}_{s[4]}' for s in spatial])} "
        f"lhs_dilate={field([s[5] for s in spatial])} rhs_dilate={field([s[6] for s in spatial])}"
    )
    return (
        "HloModule conv\nENTRY main {\n"
        f"  a = {shape(lhs)} parameter(0)\n  k = {shape(rhs)} parameter(1)\n"
        f"  ROOT c = {shape(out)} convolution(a, k), window={{{window}}}, "
        f"dim_labels=b{digits}f_{digits}io->b{digits}f, feature_group_count={groups}\n}}\n"
    )


def _conv(text: str) -> hloscope.Instruction:
    return hloscope.parse(text).entry.root  # type: ignore[union-attr,return-value]


@pytest.mark.parametrize(
    "spatial",
    [
        [(1999, 1000, 1, 0, 0, 1, 1)] * 2,  # stride 1: 1000x1000 window, 1000x1000 output
        [(1000, 1000, 2, 999, 999, 1, 1)] * 2,  # strided, padded
        [(800, 1000, 3, 500, 400, 2, 1)] * 2,  # input dilation (lhs_dilate)
        [(1999, 1000, 1, 1000, 500, 1, 3)] * 2,  # kernel dilation (rhs_dilate)
    ],
    ids=["plain", "strided", "lhs-dilated", "rhs-dilated"],
)
def test_huge_convolution_costs_in_milliseconds_as_xla_does(spatial) -> None:
    text = conv_text(spatial)
    inst = _conv(text)
    assert inst.operands[1].shape.element_count == 10**6
    start = time.process_time()
    flops = instruction_cost(inst).flops
    assert time.process_time() - start < 0.010
    # XLA sums in float32: equal once rounded as XLA rounds.
    assert np.float32(flops) == np.float32(xla_costs(text).get("flops", 0.0))
    if spatial[0][2:] == (1, 0, 0, 1, 1):  # every (output, kernel) pair reads real input
        assert flops == 2 * 10**6 * 10**6


def test_one_dimensional_convolution_of_a_million_positions_matches_xla() -> None:
    """One spatial dimension with a 10^6 window over a 10^6 output: counted with numpy (the
    per-position loop would take a second) and equal to XLA, whose stride-1 shortcut answers."""
    text = conv_text([(1999999, 1000000, 1, 0, 0, 1, 1)])
    flops = instruction_cost(_conv(text)).flops
    assert flops == 2 * 10**6 * 10**6
    assert np.float32(flops) == np.float32(xla_costs(text).get("flops", 0.0))


@settings(max_examples=300, deadline=None)
@given(
    step=st.sampled_from([-3, -2, -1, 1, 2, 3, 5]),
    count=st.integers(1, 60),
    modulus=st.integers(1, 6),
    top=st.integers(-2, 90),
    outer=st.integers(1, 70),
    stride=st.integers(-2, 3),
    base=st.integers(-25, 25),
)
def test_vectorised_window_count_equals_the_loop(step, count, modulus, top, outer, stride, base):
    from hloscope.analysis.cost import _progression_hits, _progression_hits_summed

    hits = _progression_hits(step, count, modulus, top)
    expected = sum(hits(base + i * stride) for i in range(outer))
    assert _progression_hits_summed(step, count, modulus, top, outer, stride, base) == expected


def test_vectorised_window_count_declines_what_int64_cannot_hold():
    from hloscope.analysis.cost import _progression_hits_summed

    assert _progression_hits_summed(1, 10, 1, 2**62, 5000, 1, 0) is None


dims = st.tuples(
    st.integers(1, 9),  # input
    st.integers(1, 5),  # kernel
    st.integers(1, 4),  # stride
    st.integers(-2, 4),  # padding low (negative crops)
    st.integers(-2, 4),  # padding high
    st.integers(1, 3),  # lhs_dilate
    st.integers(1, 3),  # rhs_dilate
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spatial=st.lists(dims, min_size=1, max_size=2),
    batch=st.integers(1, 3),
    groups=st.sampled_from([1, 2]),
    out_features=st.sampled_from([2, 4]),
)
def test_random_convolutions_match_xla(spatial, batch, groups, out_features) -> None:
    text = conv_text(spatial, batch, 2 * groups, out_features, groups)
    assert instruction_cost(_conv(text)).flops == xla_costs(text).get("flops", 0.0)


def _xla_loop(w: WindowDimension, input_limit: int, kernel_limit: int, output_limit: int) -> int:
    """XLA's loop over kernel x output positions, as written in ``GetConvolutionFlops``."""
    count = 0
    for k in range(kernel_limit):
        for o in range(output_limit):
            undilated = o * w.stride - w.padding_low + k * w.window_dilation
            if w.base_dilation > 1:
                index = int(undilated / w.base_dilation)  # C++ division truncates toward zero
            else:
                index = undilated
            if undilated != index * w.base_dilation:
                continue
            if 0 <= index < input_limit:
                count += 1
    return count


@settings(max_examples=400, deadline=None)
@given(
    st.integers(0, 12),
    st.integers(0, 12),
    st.integers(0, 12),
    st.integers(-3, 5),
    st.integers(-6, 6),
    st.integers(-3, 4),
    st.integers(-2, 4),
)
def test_window_positions_equal_xlas_loop(size, kernel, out, stride, pad, lhs_d, rhs_d) -> None:
    # Values XLA's verifier would refuse (stride 0, negative dilations) included: the count
    # still follows the loop.
    w = WindowDimension(kernel, stride, pad, 0, rhs_d, lhs_d)
    assert valid_window_positions(w, size, kernel, out) == _xla_loop(w, size, kernel, out)


# --- malformed but parseable ----------------------------------------------------------------

MALFORMED = {
    "dot": (
        "d",
        5,
        "  a = f32[2,3]{1,0} parameter(0)\n  b = f32[3,4]{1,0} parameter(1)\n"
        "  ROOT d = f32[2,4]{1,0} dot(a, b), lhs_contracting_dims={2}, "
        "rhs_contracting_dims={0}\n",
    ),
    "convolution": (
        "c",
        5,
        "  a = f32[1,8,8,3]{3,2,1,0} parameter(0)\n  k = f32[3,3,3,4]{3,2,1,0} parameter(1)\n"
        "  ROOT c = f32[1,6,6,4]{3,2,1,0} convolution(a, k), window={size=3x3}, "
        "dim_labels=b01f_01io->b0f\n",
    ),
    "transpose": (
        "t",
        4,
        "  a = f32[2,3]{1,0} parameter(0)\n  ROOT t = f32[3,2]{1,0} transpose(), "
        "dimensions={1,0}\n",
    ),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_op_warns_and_costs_zero(case: str) -> None:
    name, line, body = MALFORMED[case]
    module = hloscope.parse("HloModule m\nENTRY main {\n" + body + "}\n")
    with pytest.warns(CostWarning, match=rf"^{name} \(computation main, line {line}\): "):
        cost = module_cost(module)
    assert cost.total.flops == 0 and cost.total.bytes_accessed == 0
    assert [f.name for f in cost.flagged] == [name]


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_op_inside_a_fusion_still_reports(case: str) -> None:
    name, _, body = MALFORMED[case]
    lines = body.rstrip("\n").split("\n")
    params = [ln for ln in lines if "parameter(" in ln]
    operands = ", ".join(ln.split("=")[0].strip() for ln in params)
    shapes = [ln.split("=")[1].split()[0] for ln in params]
    root_shape = lines[-1].split("=")[1].split()[0] if "ROOT" in lines[-1] else "f32[]"
    entry = [f"  x{i} = {s} parameter({i})" for i, s in enumerate(shapes)]
    args = ", ".join(f"x{i}" for i in range(len(shapes)))
    text = (
        f"HloModule m\nfused {{\n{body}}}\nENTRY main {{\n" + "\n".join(entry) + "\n"
        f"  ROOT f = {root_shape} fusion({args}), kind=kLoop, calls=fused\n}}\n"
    )
    assert operands  # the fused computation reads its parameters
    with pytest.warns(CostWarning, match=rf"^{name} \(computation fused, line \d+\)"):
        report = fusion_report(hloscope.parse(text))
    (kernel,) = report.kernels
    assert kernel.cost.flops == 0 and "malformed" in kernel.cost.flag


def test_a_computation_that_calls_itself_costs_nothing_and_says_so() -> None:
    # Not valid HLO, but the parser does not look for cycles: no analysis may loop or recurse.
    module = hloscope.parse(
        "HloModule m\nc0 {\n  p = f32[4]{0} parameter(0)\n"
        "  ROOT r = f32[4]{0} call(p), to_apply=c0\n}\n"
        "ENTRY main {\n  x = f32[4]{0} parameter(0)\n"
        "  ROOT r = f32[4]{0} call(x), to_apply=c0\n}\n"
    )
    with pytest.warns(CostWarning, match="computation c0 calls itself"):
        total = module_cost(module).total
    assert total.flops == 0 and "c0 calls itself" in total.flag
    assert fusion_report(module).summary.flops == 0
