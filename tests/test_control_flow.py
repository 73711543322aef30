"""Branches and loops, counted as XLA counts them and shown where they run.

XLA's ``HloCostAnalysis`` prices a ``while`` as one run of its body plus its condition
(``HandleWhile``: "compute the cost of a single iteration") and a ``conditional`` as each
quantity's maximum over its branches (``HandleConditional``), because only one branch runs.
The ``fusions`` summary must add up the same way, and its rows must say where each kernel
runs (``while.6 body ×50``, ``cond.1 branch 0``), with the executed totals (loop bodies times
their known trip counts) beside XLA's static ones. XLA is the oracle: the programs below are
compiled by jax and their ``compiled.cost_analysis()`` is what the summary must equal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from corpus_files import parsed
from test_cost import OPTIMIZED, xla_costs

import hloscope
from hloscope.analysis.cost import (
    Role,
    computation_cost,
    control_flow_cost,
    instruction_costs,
    module_cost,
    placements,
)
from hloscope.analysis.fusion_notes import summary_to_dict
from hloscope.analysis.fusions import COLUMNS, fusion_report
from hloscope.cli import cli
from hloscope.cli.graph import write_graph
from hloscope.hlo.graph_selection import GraphOptions, select_graph
from hloscope.render.fusion_table import _shorten_where, render_fusions
from hloscope.render.graphviz import to_dot
from hloscope.render.rows import rows_to_csv

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

STEPS = 50  # the scan's length: the trip count XLA must record


def lstm_like(xs, w, h0):
    """A recurrent cell: one matmul and a tanh per step, scanned over the sequence."""

    def step(h, x):
        h = jnp.tanh(x @ w + h)
        return h, h.sum()

    return lax.scan(step, h0, xs)


def branchy(p, x):
    # exp: 128 transcendentals; sin * 2: 128 transcendentals and 128 FLOPs. One branch runs.
    return lax.cond(p, jnp.exp, lambda a: jnp.sin(a) * 2.0, x)


def nested(x):
    def outer(c, _):
        c = lax.fori_loop(0, 3, lambda i, a: jnp.tanh(a * 1.5 + i), c)
        return c, None

    return lax.scan(outer, x, None, length=4)[0]


def compiled_module(fn, *args) -> tuple[hloscope.Module, dict[str, float]]:
    """The optimized module jax compiles ``fn`` to, and XLA's own cost analysis of it."""
    compiled = jax.jit(fn).lower(*args).compile()
    xla = compiled.cost_analysis()
    if isinstance(xla, list):  # older jax returned one dict per device
        xla = xla[0]
    return hloscope.parse(compiled.as_text()), dict(xla)


@pytest.fixture(scope="module")
def lstm() -> tuple[hloscope.Module, dict[str, float]]:
    xs = jnp.ones((STEPS, 8, 32), jnp.float32)
    return compiled_module(lstm_like, xs, jnp.ones((32, 32)), jnp.zeros((8, 32)))


@pytest.fixture(scope="module")
def cond() -> tuple[hloscope.Module, dict[str, float]]:
    return compiled_module(branchy, True, jnp.ones((128,), jnp.float32))


def assert_equals_xla(summary, xla: dict[str, float]) -> None:
    # XLA sums in float32; these small programs are exact.
    assert summary.flops == pytest.approx(xla.get("flops", 0.0), rel=1e-6)
    assert summary.transcendentals == pytest.approx(xla.get("transcendentals", 0.0), rel=1e-6)
    assert summary.xla_bytes_accessed == pytest.approx(xla["bytes accessed"], rel=1e-6)
    assert summary.xla_flops == summary.flops
    assert summary.xla_transcendentals == summary.transcendentals


# ------------------------------------------------------------------------------------------
# lax.cond: one branch runs
# ------------------------------------------------------------------------------------------


def test_cond_summary_equals_xla_and_counts_one_branch(cond) -> None:
    module, xla = cond
    report = fusion_report(module)
    assert_equals_xla(report.summary, xla)
    assert report.summary.transcendentals == 128
    # Both branches are rows; adding the rows up would count 256 transcendentals.
    branches = [r for r in report.rows() if "branch" in r["where"]]
    assert len(branches) == 2
    assert sum(r["transcendentals"] for r in report.rows()) == 256
    # Kernel bytes are under XLA's rules too: XLA's total is them plus the tuple tables only.
    tables = sum(
        8 * len(i.shape.tuple_shapes) for i in module.instructions() if i.opcode == "tuple"
    )
    assert 0 <= report.summary.xla_bytes_accessed - report.summary.bytes <= tables


def test_cond_rows_say_which_branch(cond) -> None:
    module, _ = cond
    rows = fusion_report(module).rows()
    (conditional,) = [i for i in module.instructions() if i.opcode == "conditional"]
    wheres = sorted(r["where"] for r in rows if r["where"] != "entry")
    assert wheres == [
        f"{conditional.name} branch {n} (cond at test_control_flow.py:{_line('lax.cond(')})"
        for n in (0, 1)
    ]
    assert all(r["executions"] == 1 and r["trip_count"] is None for r in rows)
    # Nothing loops: executed is static.
    s = fusion_report(module).summary
    assert (s.executed_flops, s.executed_transcendentals) == (s.flops, s.transcendentals)
    assert s.loops == []


def _line(text: str) -> int:
    """The line of this file that holds ``text`` (where jax records the op came from)."""
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line and "_line(" not in line)


# ------------------------------------------------------------------------------------------
# lax.scan: the body runs 50 times
# ------------------------------------------------------------------------------------------


def test_scan_summary_equals_xla(lstm) -> None:
    module, xla = lstm
    assert_equals_xla(fusion_report(module).summary, xla)


def test_scan_kernels_show_the_trip_count(lstm) -> None:
    module, _ = lstm
    rows = fusion_report(module).rows()
    (loop,) = [i for i in module.instructions() if i.opcode == "while"]
    label = f"(while at test_control_flow.py:{_line('lax.scan(step')})"
    body = [r for r in rows if r["where"] == f"{loop.name} body \u00d7{STEPS} {label}"]
    condition = [r for r in rows if r["where"] == f"{loop.name} condition \u00d7{STEPS} {label}"]
    assert body and len(condition) == 1
    assert any("dot" in r["ops"] for r in body)  # the matmul runs in the body
    assert {(r["trip_count"], r["executions"]) for r in body + condition} == {(STEPS, STEPS)}
    entry = [r for r in rows if r["where"] == "entry"]
    assert entry and all((r["trip_count"], r["executions"]) == (None, 1) for r in entry)
    # The XLA-internal names stay in the computation column only.
    assert all(r["computation"] != r["where"] for r in body)


def test_scan_executed_totals_are_the_body_times_fifty(lstm) -> None:
    module, _ = lstm
    s = fusion_report(module).summary
    (loop,) = [i for i in module.instructions() if i.opcode == "while"]
    body, condition = (module.computation(loop.attrs[k]) for k in ("body", "condition"))
    per_iteration = computation_cost(body).flops + computation_cost(condition).flops
    entry_flops = s.flops - per_iteration
    assert s.executed_flops == entry_flops + STEPS * per_iteration
    assert s.executed_flops > 40 * s.flops  # the matmul dominates: nearly 50x
    assert s.executed_transcendentals == STEPS * s.transcendentals  # all tanh, all in the body
    assert s.executed_bytes > 40 * s.bytes / 2
    mc = module_cost(module)
    assert (s.executed_flops, s.executed_transcendentals) == (
        mc.executed.flops,
        mc.executed.transcendentals,
    )
    assert s.loops == [
        {
            "name": loop.name,
            "label": f"while at test_control_flow.py:{_line('lax.scan(step')}",
            "trip_count": STEPS,
            "executions": STEPS,
            "body": body.name,
            "condition": condition.name,
            "where": "entry",
        }
    ]
    assert s.unknown_trip_counts == []


def test_nested_loops_multiply() -> None:
    module, xla = compiled_module(nested, jnp.ones((64,), jnp.float32))
    report = fusion_report(module)
    assert_equals_xla(report.summary, xla)
    inner = [r for r in report.rows() if r["where"].count(" / ") == 1]
    assert inner, [r["where"] for r in report.rows()]
    assert {(r["trip_count"], r["executions"]) for r in inner if "body" in r["where"]} == {(3, 12)}
    outer, _, last = inner[0]["where"].partition(" / ")
    assert "body \u00d74" in outer and "\u00d73" in last
    assert report.summary.executed_transcendentals == 12 * 64


# ------------------------------------------------------------------------------------------
# Output: table, JSON, CSV
# ------------------------------------------------------------------------------------------


def test_table_shows_where_and_the_executed_totals(lstm) -> None:
    from rich.console import Console

    module, _ = lstm
    report = fusion_report(module)
    console = Console(width=160, record=True, color_system=None)
    render_fusions(report.rows(), summary_to_dict(report.summary), console)
    text = console.export_text()
    header = next(line for line in text.splitlines() if "kernel" in line and "flops" in line)
    assert header.split()[0] == "where"
    assert f"body \u00d7{STEPS}" in text
    assert "executed per run" in text and "loop bodies \u00d7 trip counts" in text
    loops = next(line for line in text.splitlines() if line.startswith("loops "))
    assert f"\u00d7{STEPS} (while at test_control_flow.py:{_line('lax.scan(step')})" in loops


def test_table_without_control_flow_has_no_where_column() -> None:
    from rich.console import Console

    module, _ = compiled_module(lambda x: jnp.tanh(x) * 2, jnp.ones((16,)))
    report = fusion_report(module)
    console = Console(width=160, record=True, color_system=None)
    render_fusions(report.rows(), summary_to_dict(report.summary), console)
    text = console.export_text()
    assert "where" not in text and "executed per run" not in text


def test_json_and_csv_carry_the_new_fields(lstm, tmp_path: Path) -> None:
    module, _ = lstm
    path = tmp_path / "lstm.txt"
    path.write_text(module.to_text())
    result = CliRunner().invoke(cli, ["fusions", "--json", str(path)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    summary = data["summary"]
    assert summary["executed_flops"] > 40 * summary["flops"]
    assert summary["loops"][0]["trip_count"] == STEPS
    assert {r["executions"] for r in data["rows"]} == {1, STEPS}
    assert sum(f"body \u00d7{STEPS}" in r["where"] for r in data["rows"]) >= 3
    assert {"where", "trip_count", "executions"} <= set(COLUMNS)
    csv_text = rows_to_csv(fusion_report(module).rows(), COLUMNS)
    assert csv_text.splitlines()[0].split(",")[1:5] == [
        "computation",
        "where",
        "trip_count",
        "executions",
    ]


def test_where_is_shortened_labels_first() -> None:
    text = "while.4 body \u00d750 (while at model.py:12) / cond.1 branch 0 (cond at model.py:9)"
    assert _shorten_where(text, len(text)) == text
    assert (
        _shorten_where(text, 60) == "while.4 body \u00d750 / cond.1 branch 0 (cond at model.py:9)"
    )
    assert _shorten_where(text, 34) == "while.4 body \u00d750 / cond.1 branch 0"
    assert _shorten_where(text, 30) == "while.4 body \u00d750 / cond.1 br 0"
    assert len(_shorten_where(text, 12)) == 12


# ------------------------------------------------------------------------------------------
# Hand-written forms: predicate conditionals, unknown trip counts
# ------------------------------------------------------------------------------------------

PRED_COND = """HloModule m
on_true {
 x = f32[16]{0} parameter(0)
 ROOT e = f32[16]{0} exponential(x)
}
on_false {
 x.1 = f32[16]{0} parameter(0)
 ROOT n = f32[16]{0} negate(x.1)
}
test {
 p = (s32[], f32[16]{0}) parameter(0)
 i = s32[] get-tuple-element(p), index=0
 seven = s32[] constant(7)
 ROOT lt = pred[] compare(i, seven), direction=LT
}
step {
 p.1 = (s32[], f32[16]{0}) parameter(0)
 i.1 = s32[] get-tuple-element(p.1), index=0
 x.2 = f32[16]{0} get-tuple-element(p.1), index=1
 one = s32[] constant(1)
 next = s32[] add(i.1, one)
 th = f32[16]{0} tanh(x.2)
 ROOT out = (s32[], f32[16]{0}) tuple(next, th)
}
ENTRY e {
 pred = pred[] parameter(0)
 a = f32[16]{0} parameter(1)
 c = f32[16]{0} conditional(pred, a, a), true_computation=on_true, false_computation=on_false
 start = s32[] parameter(2)
 init = (s32[], f32[16]{0}) tuple(start, c)
 ROOT w = (s32[], f32[16]{0}) while(init), condition=test, body=step
}
"""


def test_predicate_branches_and_unknown_trip_count() -> None:
    # The loop counts from a parameter to 7: how many trips depends on the data.
    module = hloscope.parse(PRED_COND)
    report = fusion_report(module)
    where = {r["name"]: r["where"] for r in report.rows()}
    # Without metadata a step is named by its instruction alone.
    assert (where["e"], where["n"]) == ("c branch true", "c branch false")
    assert where["next"] == where["th"] == "w body \u00d7?"
    assert where["lt"] == "w condition \u00d7?"
    s = report.summary
    assert s.unknown_trip_counts == ["w"]
    assert s.loops[0]["trip_count"] is None and s.loops[0]["executions"] == 1
    # Unknown: counted once, so executed equals static; of the branches, exp's 16 count.
    assert (s.executed_flops, s.executed_transcendentals) == (s.flops, s.transcendentals)
    assert s.transcendentals == 16 + 16
    from rich.console import Console

    console = Console(width=120, record=True, color_system=None)
    render_fusions(report.rows(), summary_to_dict(s), console)
    text = console.export_text()
    assert "loops w \u00d7?" in text
    assert "note: 1 loop(s) without a known trip count (w) count once when executed" in text
    roles = {name: p.path[-1].role for name, p in placements(module).items() if p.path}
    assert roles == {
        "on_true": Role.BRANCH,
        "on_false": Role.BRANCH,
        "test": Role.CONDITION,
        "step": Role.BODY,
    }


# ------------------------------------------------------------------------------------------
# The graph: a while's body and trip count
# ------------------------------------------------------------------------------------------


def test_graph_labels_the_while_and_opens_its_body(lstm) -> None:
    module, _ = lstm
    (loop,) = [i for i in module.instructions() if i.opcode == "while"]
    source = to_dot(select_graph(module, GraphOptions())).source
    assert f"while \u00d7{STEPS}" in source
    body, condition = loop.attrs["body"], loop.attrs["condition"]
    assert f"body: {body} (\u00d7{STEPS})" in source and f"condition: {condition}" in source
    # --computation takes the body's name, or the while's.
    assert select_graph(module, GraphOptions(computation=body)).computation.name == body
    assert select_graph(module, GraphOptions(computation=loop.name)).computation.name == body


def test_model_explorer_json_opens_a_while_by_name(lstm, tmp_path: Path) -> None:
    module, _ = lstm
    (loop,) = [i for i in module.instructions() if i.opcode == "while"]
    out = tmp_path / "body.json"
    write_graph(module, GraphOptions(computation=loop.name), out)
    data = json.loads(out.read_text())
    assert data["graphs"][0]["id"] == loop.attrs["body"]  # then the computations it calls


def test_graph_tooltip_names_the_branches(cond) -> None:
    module, _ = cond
    (conditional,) = [i for i in module.instructions() if i.opcode == "conditional"]
    source = to_dot(select_graph(module, GraphOptions())).source
    for i, branch in enumerate(conditional.called_computations):
        assert f"branch {i}: {branch.name}" in source


# ------------------------------------------------------------------------------------------
# Every optimized module of the corpus and the samples
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", OPTIMIZED, ids=lambda p: f"{p.parent.name}/{p.name[:60]}")
def test_summary_totals_follow_xla_rules_on_every_module(path: Path) -> None:
    for module in parsed(path):
        s = fusion_report(module).summary
        mc = module_cost(module)
        # module_cost is checked against XLA in test_cost; the summary must equal it.
        assert (s.flops, s.transcendentals) == (mc.total.flops, mc.total.transcendentals)
        assert (s.xla_flops, s.xla_bytes_accessed) == (mc.total.flops, mc.total.bytes_accessed)
        assert (s.executed_flops, s.executed_transcendentals) == (
            mc.executed.flops,
            mc.executed.transcendentals,
        )
        # Kernels move no more than the whole module (the rest is tuple pointer tables).
        assert mc.total.bytes_accessed - s.bytes >= 0
        assert control_flow_cost(module, instruction_costs(module)) == mc.total
        assert control_flow_cost(module, instruction_costs(module), trip_counts=True) == (
            mc.executed
        )


def test_corpus_control_flow_module(corpus: Path) -> None:
    # scan, fori_loop (trip counts XLA knows), while_loop (unknown), cond (2 branches), switch (3).
    folder = corpus / "generated" / "jax_control_flow"
    (path,) = folder.glob("*jit_loops*after_optimizations.txt")
    (module,) = parsed(path)
    report = fusion_report(module)
    s = report.summary
    text = path.read_text()
    xla = xla_costs(text)
    # XLA's transcendentals count each loop body once and only the costliest branch.
    assert_equals_xla(s, xla)
    assert s.transcendentals > 0
    # Trip counts as XLA wrote them (known_trip_count in each while's backend_config), lines
    # as SOURCE.py has them (metadata line N is line N of SOURCE.py).
    trips = {
        m.group(1): (int(m.group(2)) if m.group(2) else None)
        for m in re.finditer(
            r"(?m)^\s*(?:ROOT )?%(while\.\d+) = .* while\(.*?"
            r'(?:known_trip_count":\{"n":"(\d+)"\}.*)?$',
            text,
        )
    }
    source = (folder / "SOURCE.py").read_text().splitlines()

    def line_of(code: str) -> int:
        return next(n for n, line in enumerate(source, 1) if code in line)

    lines = [line_of(f"jax.lax.{loop}(") for loop in ("scan", "fori_loop", "while_loop")]
    assert [(loop["trip_count"], loop["label"]) for loop in s.loops] == [
        (trips[loop["name"]], f"while at jax_control_flow.py:{line}")
        for loop, line in zip(s.loops, lines, strict=True)
    ]
    assert [loop["trip_count"] is None for loop in s.loops] == [False, False, True]
    assert len(s.unknown_trip_counts) == 1
    # Each loop runs from the entry: XLA's one-shot wrapper calls are not named.
    assert {loop["where"] for loop in s.loops} == {"entry"}
    wheres = {r["where"].split(" (")[0] for r in report.rows()}
    assert {"entry"} | {
        f"{name} body \u00d7{'?' if n is None else n}" for name, n in trips.items()
    } <= wheres
    # One where per branch of each conditional XLA wrote (cond 2, switch 3).
    branches = sum(
        m.group(1).count(",") + 1 for m in re.finditer(r"branch_computations=\{([^}]*)\}", text)
    )
    assert branches == 5
    assert sum(1 for w in wheres if "branch" in w) == branches
    # No XLA region name is a where.
    assert not any("region" in r["where"] for r in report.rows())
