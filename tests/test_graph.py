"""The networkx view of a computation (hloscope.hlo.graph)."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

import hloscope
from hloscope.hlo.graph import FUSION_SEP, default_center, module_graph, neighbourhood

# A fusion (kOutput) that holds another fusion (kLoop), an instruction using one operand twice
# (add(x, x), multiply(f_in, f_in)), a fusion used by two users, and source metadata.
SMALL = """\
HloModule small, entry_computation_layout={(f32[4]{0}, f32[4]{0})->(f32[4]{0}, f32[4]{0})}

inner {
  p0 = f32[4]{0} parameter(0)
  ROOT neg = f32[4]{0} negate(p0)
}

outer {
  q0 = f32[4]{0} parameter(0)
  q1 = f32[4]{0} parameter(1)
  mul = f32[4]{0} multiply(q1, q0)
  f_in = f32[4]{0} fusion(mul), kind=kLoop, calls=inner
  ROOT sq = f32[4]{0} multiply(f_in, f_in)
}

ENTRY main {
  x = f32[4]{0} parameter(0), \
metadata={op_name="jit(f)/x" source_file="/src/model.py" source_line=7}
  y = f32[4]{0} parameter(1)
  twice = f32[4]{0} add(x, x), \
metadata={op_name="jit(f)/add" source_file="/src/model.py" source_line=9}
  fused = f32[4]{0} fusion(twice, y), kind=kOutput, calls=outer
  sub = f32[4]{0} subtract(y, fused)
  ROOT out = (f32[4]{0}, f32[4]{0}) tuple(sub, fused)
}
"""


@pytest.fixture(scope="module")
def small() -> hloscope.Module:
    return hloscope.parse(SMALL)


def edge_set(graph: nx.DiGraph) -> dict[tuple[str, str], list[int]]:
    return {(u, v): d["indices"] for u, v, d in graph.edges(data=True)}


# --- the plain graph ------------------------------------------------------------------------------


def test_nodes_and_attributes(small):
    g = module_graph(small)
    assert list(g.nodes) == ["x", "y", "twice", "fused", "sub", "out"]
    assert g.graph == {
        "module": "small",
        "computation": "main",
        "expand_fusions": False,
        "root": "out",
    }
    twice = g.nodes["twice"]
    assert twice["opcode"] == "add"
    assert twice["shape"] == "f32[4]{0}"
    assert twice["bytes"] == 16
    assert twice["category"] == "elementwise"
    assert twice["source"] == "/src/model.py:9"
    assert twice["computation"] == "main"
    assert twice["fusion"] is None
    assert twice["instruction"] is small.entry.instruction("twice")
    fused = g.nodes["fused"]
    assert (fused["category"], fused["fusion_kind"], fused["source"]) == ("fusion", "kOutput", None)
    assert g.nodes["out"]["bytes"] == 32  # a tuple's bytes are its leaves'


def test_edges_carry_operand_indices(small):
    g = module_graph(small)
    assert edge_set(g) == {
        ("x", "twice"): [0, 1],  # add(x, x): one edge, both positions
        ("twice", "fused"): [0],
        ("y", "fused"): [1],
        ("y", "sub"): [0],
        ("fused", "sub"): [1],
        ("sub", "out"): [0],
        ("fused", "out"): [1],
    }
    assert g.edges["x", "twice"]["index"] == 0


def test_function_comes_from_the_stack_frame_table():
    text = """\
HloModule m

FileNames
1 "/src/train.py"

FunctionNames
1 "loss_fn"

FileLocations
1 {file_name_id=1 function_name_id=1 line=12 end_line=12 column=3 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

ENTRY main {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a), metadata={op_name="neg" stack_frame_id=1}
}
"""
    g = module_graph(hloscope.parse(text))
    assert g.nodes["n"]["source"] == "/src/train.py:12"
    assert g.nodes["n"]["function"] == "loss_fn"
    assert g.nodes["a"]["function"] is None


def test_computation_by_name_object_and_unknown(small):
    outer = small.computation("outer")
    by_name = module_graph(small, "outer")
    by_object = module_graph(small, outer)
    assert list(by_name.nodes) == list(by_object.nodes) == ["q0", "q1", "mul", "f_in", "sq"]
    assert by_name.graph["root"] == "sq"
    assert edge_set(by_name)[("f_in", "sq")] == [0, 1]
    assert edge_set(by_name)[("q1", "mul")] == [0]
    with pytest.raises(KeyError, match="nope"):
        module_graph(small, "nope")


def test_module_graph_method_delegates(small):
    assert list(small.graph().nodes) == list(module_graph(small).nodes)
    assert len(small.graph(expand_fusions=True)) == len(module_graph(small, expand_fusions=True))


# --- expanded fusions -----------------------------------------------------------------------------


def test_expand_fusions_inlines_fused_instructions_recursively(small):
    g = module_graph(small, expand_fusions=True)
    # Parameters of fused computations are not nodes; the nested fusion is opened too.
    assert set(g.nodes) == {
        "x",
        "y",
        "twice",
        "sub",
        "out",
        "fused/mul",
        "fused/sq",
        "fused/f_in/neg",
    }
    assert g.nodes["fused/mul"]["fusion"] == "fused"
    assert g.nodes["fused/f_in/neg"]["fusion"] == "fused/f_in"
    assert g.nodes["fused/f_in/neg"]["computation"] == "inner"
    assert g.nodes["sub"]["fusion"] is None
    assert edge_set(g) == {
        ("x", "twice"): [0, 1],
        # mul = multiply(q1, q0): q1 is the fusion's operand 1 (y), q0 its operand 0 (twice)
        ("y", "fused/mul"): [0],
        ("twice", "fused/mul"): [1],
        # the nested fusion's parameter maps to mul; its root feeds sq twice
        ("fused/mul", "fused/f_in/neg"): [0],
        ("fused/f_in/neg", "fused/sq"): [0, 1],
        # the fused root takes the fusion's place for its users
        ("fused/sq", "sub"): [1],
        ("fused/sq", "out"): [1],
        ("y", "sub"): [0],
        ("sub", "out"): [0],
    }
    assert g.graph["root"] == "out"


def test_expand_only_named_fusions(small):
    g = module_graph(small, expand_fusions={"fused"})
    # "fused" is opened, and the fusion nested in it with it.
    assert "fused" not in g and "fused/f_in/neg" in g
    assert module_graph(small, expand_fusions={"other"}).has_node("fused")
    assert module_graph(small, expand_fusions=set()).has_node("fused")


def test_root_that_is_a_fusion_resolves_to_the_fused_root():
    text = """\
HloModule m
fc {
  p = f32[2]{0} parameter(0)
  ROOT e = f32[2]{0} exponential(p)
}
ENTRY main {
  a = f32[2]{0} parameter(0)
  ROOT f = f32[2]{0} fusion(a), kind=kLoop, calls=fc
}
"""
    module = hloscope.parse(text)
    assert module_graph(module).graph["root"] == "f"
    expanded = module_graph(module, expand_fusions=True)
    assert expanded.graph["root"] == "f/e"
    assert edge_set(expanded) == {("a", "f/e"): [0]}


def test_fusion_whose_root_is_a_parameter_passes_its_operand_through():
    text = """\
HloModule m
fc {
  p0 = f32[2]{0} parameter(0)
  ROOT p1 = f32[2]{0} parameter(1)
}
ENTRY main {
  a = f32[2]{0} parameter(0)
  b = f32[2]{0} parameter(1)
  f = f32[2]{0} fusion(a, b), kind=kLoop, calls=fc
  ROOT n = f32[2]{0} negate(f)
}
"""
    g = module_graph(hloscope.parse(text), expand_fusions=True)
    assert set(g.nodes) == {"a", "b", "n"}
    assert edge_set(g) == {("b", "n"): [0]}


# --- the corpus -----------------------------------------------------------------------------------


def corpus_modules(corpus: Path, pattern: str) -> list[hloscope.Module]:
    modules = []
    for path in sorted((corpus / "generated").glob(pattern)):
        if any(tag in path.name for tag in ("buffer-assignment", "memory-usage", "live-range")):
            continue
        modules.extend(hloscope.parse_modules(path))
    assert modules, pattern
    return modules


@pytest.fixture(scope="module")
def optimized(corpus) -> list[hloscope.Module]:
    return corpus_modules(corpus, "*/module_*cpu_after_optimizations.txt")


def check_counts(module: hloscope.Module, comp) -> None:
    g = module_graph(module, comp)
    assert list(g.nodes) == [i.name for i in comp.instructions]
    assert sum(len(d["indices"]) for _, _, d in g.edges(data=True)) == sum(
        len(i.operands) for i in comp.instructions
    )
    assert g.number_of_edges() == sum(len({o.name for o in i.operands}) for i in comp.instructions)
    for inst in comp.instructions:
        for index, operand in enumerate(inst.operands):
            assert index in g.edges[operand.name, inst.name]["indices"], (
                comp.name,
                inst.name,
                index,
            )


def test_corpus_graphs_have_a_node_per_instruction_and_an_edge_per_operand_use(
    optimized, corpus, oracle
):
    patterns = ("*/module_*cpu_after_optimizations.txt", "jax_*/module_*before_optimizations.txt")
    before = corpus_modules(corpus, patterns[1])
    checked = 0
    for module in optimized + before:
        for comp in module.computations:
            check_counts(module, comp)
            checked += len(comp.instructions)
    # The sweep reached every instruction XLA's parser saw in those files, whichever corpus.
    xla_count = sum(
        line["n_instructions"]
        for line in oracle
        if line["root"] == "generated" and any(Path(line["file"]).match(p) for p in patterns)
    )
    assert checked == xla_count > 5000


def expected_source(graph: nx.DiGraph, module: hloscope.Module, node: str, operand) -> str:
    """Where the value of ``operand`` (used by ``node``) comes from, worked out from the model.

    The builder pushes producers into fused computations; this walks the other way (from a
    use back to its producer), so the two agree only if both are right.
    """
    fusion_path = graph.nodes[node]["fusion"]
    while True:
        if operand.opcode == "fusion" and operand.fused_computation is not None:
            # An expanded fusion: its value is its fused root's, one level deeper.
            fusion_path = (
                operand.name if fusion_path is None else fusion_path + FUSION_SEP + operand.name
            )
            operand = operand.fused_computation.root
            continue
        if operand.opcode == "parameter" and fusion_path is not None:
            # A fused parameter k: the enclosing fusion's operand k, one level up.
            parts = fusion_path.split(FUSION_SEP)
            comp = module_graph_comp(graph, module)
            fusion = None
            for name in parts:
                fusion = comp.instruction(name)
                comp = fusion.fused_computation
            operand = fusion.operands[operand.parameter_number]
            fusion_path = FUSION_SEP.join(parts[:-1]) or None
            continue
        return operand.name if fusion_path is None else fusion_path + FUSION_SEP + operand.name


def module_graph_comp(graph: nx.DiGraph, module: hloscope.Module):
    return module.computation(graph.graph["computation"])


def check_expansion(module: hloscope.Module, comp) -> nx.DiGraph:
    g = module_graph(module, comp, expand_fusions=True)

    # Exactly the fused instructions (less fused parameters), recursively, plus the unfused ones.
    def expected_nodes(c, prefix: str, top: bool) -> set[str]:
        out = set()
        for inst in c.instructions:
            if inst.opcode == "parameter" and not top:
                continue
            if inst.opcode == "fusion" and inst.fused_computation is not None:
                out |= expected_nodes(
                    inst.fused_computation, prefix + inst.name + FUSION_SEP, False
                )
            else:
                out.add(prefix + inst.name)
        return out

    assert set(g.nodes) == expected_nodes(comp, "", True)
    uses = 0
    for node, data in g.nodes(data=True):
        inst = data["instruction"]
        for index, operand in enumerate(inst.operands):
            source = expected_source(g, module, node, operand)
            assert index in g.edges[source, node]["indices"], (node, index, source)
            uses += 1
    assert sum(len(d["indices"]) for _, _, d in g.edges(data=True)) == uses
    return g


def test_corpus_expanded_fusions_connect_producers_to_inner_consumers(optimized):
    fusions = 0
    for module in optimized:
        g = check_expansion(module, module.entry)
        fusions += sum(1 for i in module.entry.instructions if i.opcode == "fusion")
        assert not any(d["opcode"] == "fusion" for _, d in g.nodes(data=True))
    assert fusions > 100


def test_mobilenet_train_step_graph(corpus, oracle):
    # How long building the graphs takes is measured in benchmarks/bench_small_speeds.py.
    # The train step's second compile (tf.function without XlaMustCompile in its name).
    (path,) = (corpus / "generated" / "tf_keras_mobilenet_train").glob(
        "module_*__.*cpu_after_optimizations.txt"
    )
    module = hloscope.parse(path)
    (xla,) = (o for o in oracle if o["file"] == f"tf_keras_mobilenet_train/{path.name}")
    # The corpus's biggest kind of module (thousands of instructions in either corpus).
    assert sum(len(c.instructions) for c in module.computations) == xla["n_instructions"] > 2000
    g = module_graph(module)
    expanded = module_graph(module, expand_fusions=True)
    assert len(g) == len(module.entry.instructions)
    assert len(expanded) > len(g)


# --- neighbourhoods -------------------------------------------------------------------------------


def chain(n: int) -> nx.DiGraph:
    g = nx.DiGraph()
    for i in range(n):
        g.add_node(f"n{i}", opcode="add", bytes=4)
    for i in range(n - 1):
        g.add_edge(f"n{i}", f"n{i + 1}", index=0, indices=[0])
    return g


def test_neighbourhood_by_depth_and_size():
    g = chain(10)
    assert neighbourhood(g, ["n5"], depth=0) == ["n5"]
    assert neighbourhood(g, ["n5"], depth=1) == ["n5", "n4", "n6"]
    assert set(neighbourhood(g, ["n5"], depth=2)) == {"n3", "n4", "n5", "n6", "n7"}
    assert len(neighbourhood(g, ["n5"], max_nodes=4)) == 4
    assert neighbourhood(g, ["n0", "n9"], depth=0) == ["n0", "n9"]
    assert neighbourhood(g, ["n0", "n9"], max_nodes=1) == ["n0", "n9"]  # centers always stay
    assert len(neighbourhood(g, ["n0"])) == 10
    with pytest.raises(KeyError):
        neighbourhood(g, ["missing"])


def test_neighbourhood_visits_producers_in_operand_order():
    g = nx.DiGraph()
    for name in ("a", "b", "c", "u"):
        g.add_node(name)
    g.add_edge("b", "c", index=0, indices=[0])
    g.add_edge("a", "c", index=1, indices=[1])
    g.add_edge("c", "u", index=0, indices=[0])
    assert neighbourhood(g, ["c"], depth=1) == ["c", "b", "a", "u"]


def test_neighbourhood_does_not_search_through_hubs():
    g = chain(3)  # n0 -> n1 -> n2
    g.add_node("hub")
    for i in range(20):
        g.add_node(f"u{i}")
        g.add_edge("hub", f"u{i}", index=0, indices=[0])
    g.add_edge("hub", "n1", index=1, indices=[1])
    near = neighbourhood(g, ["n1"], depth=3, hub_degree=5)
    assert set(near) == {"n0", "n1", "n2", "hub"}  # the hub is shown, its other users are not
    assert len(neighbourhood(g, ["n1"], depth=3)) == 24
    assert (
        len(neighbourhood(g, ["hub"], depth=1, hub_degree=5)) == 22
    )  # a center is always searched


def test_default_center_is_the_op_moving_most_bytes_not_a_free_op(small):
    g = module_graph(small)
    # "out" (a tuple) and the parameters are free; "fused" reads 32 bytes and writes 16.
    assert default_center(g) == "fused"
    only_free = nx.DiGraph(root="r")
    only_free.add_node("r", opcode="parameter", bytes=4)
    assert default_center(only_free) == "r"
