"""The advice rule table (``hloscope.analysis.recompiles.RULES``), on ledgers built from records.

Each rule fires on a ledger of its own, made so that it is the only rule with something to
say; one ledger on which every rule fires shows the order the advice reads in, which is the
order the if-chain the table replaced gave (recorded from it). The advice texts themselves are
covered by the live tests (tests/test_recompiles_jax*.py, tests/test_recompiles_tf*.py) and the
recompiles outputs of tests/test_golden_outputs.py.
"""

from __future__ import annotations

import pytest

from hloscope.analysis.recompiles import (
    ARGUMENT_RULES,
    RULES,
    AdviceKind,
    advice_for,
    build_ledger,
)
from hloscope.capture.compile_watch import ArgSignature, CompileRecord


def arg(index: int, path: str, shape=(), dtype: str | None = "f32", **kw) -> ArgSignature:
    return ArgSignature(index, path, shape=shape, dtype=dtype, **kw)


def static(index: int, path: str, value: str, role: str = "static") -> ArgSignature:
    return ArgSignature(index, path, shape=None, dtype=None, role=role, value=value)


def jax_compile(*arguments: ArgSignature, **kw) -> CompileRecord:
    kw.setdefault("name", "step")
    kw.setdefault("defined_at", "train.py:3")
    kw.setdefault("function_id", "1")
    kw.setdefault("call_site", "train.py:10 (main)")
    return CompileRecord(framework="jax", kind="compile", arguments=list(arguments), **kw)


def tf_trace(*arguments: ArgSignature, **kw) -> CompileRecord:
    kw.setdefault("name", "step")
    kw.setdefault("defined_at", "train.py:3")
    kw.setdefault("function_id", "1")
    return CompileRecord(framework="tensorflow", kind="trace", arguments=list(arguments), **kw)


def sized(*sizes: int) -> list[CompileRecord]:
    return [jax_compile(arg(0, "x", (2, n))) for n in sizes]


def made_anew(*call_sites: str) -> list[CompileRecord]:
    return [
        jax_compile(arg(0, "x", (4,)), function_id=str(i), first_sight=True, call_site=site)
        for i, site in enumerate(call_sites, start=1)
    ]


#: (rule name, the kind of advice it gives here, the records), one ledger per case: on each,
#: the named rule is the only one that advises anything.
CASES = [
    # JAX's eager ops: their shapes vary too, yet size advice is not given (the rule is alone).
    (
        "eager_ops",
        AdviceKind.EAGER,
        [
            jax_compile(arg(0, "x", (n,)), name="broadcast_in_dim", defined_at=None, internal=True)
            for n in (2, 3)
        ],
    ),
    ("sizes", AdviceKind.BUCKET, sized(3, 4, 5, 9)),
    ("sizes", AdviceKind.PAD, sized(3, 5, 9, 17)),  # as many buckets as sizes: pad instead
    (
        "input_signature",
        AdviceKind.INPUT_SIGNATURE,
        # A generalised trace: the shape changed, no size varied.
        [tf_trace(arg(0, "x", (3,), "float32")), tf_trace(arg(0, "x", (None,), "float32"))],
    ),
    (
        "python_scalar",
        AdviceKind.SCALAR,
        [jax_compile(arg(0, "x", (), weak_type=weak)) for weak in (True, False)],
    ),
    ("dtype", AdviceKind.DTYPE, [jax_compile(arg(0, "x", (4,), d)) for d in ("f32", "i32")]),
    (
        "values",
        AdviceKind.STATIC,
        [jax_compile(arg(0, "x", (4,)), static(1, "k", v)) for v in ("1", "2")],
    ),
    ("values", AdviceKind.STATIC, [tf_trace(static(0, "k", v)) for v in ("1", "2")]),
    (
        "values",
        AdviceKind.CONSTANT,
        [tf_trace(arg(0, "n", (), "int32", role="constant", value=v)) for v in ("1", "2")],
    ),
    (
        "pytree",
        AdviceKind.PYTREE,
        [jax_compile(arg(0, "x", (4,))), jax_compile(arg(0, "x", (4,)), arg(1, "y", (4,)))],
    ),
    (
        "sharding",
        AdviceKind.SHARDING,
        [jax_compile(arg(0, "x", (4,), sharding=s)) for s in ("a", "b")],
    ),
    ("hoist", AdviceKind.HOIST, made_anew("train.py:10 (main)", "train.py:10 (main)")),
    ("hoist", AdviceKind.REUSE, made_anew("train.py:10 (main)", "train.py:11 (main)")),
    (
        "cache_cleared",
        AdviceKind.CACHE_CLEARED,
        [jax_compile(arg(0, "x", (4,)), first_sight=True, cache_clears=n) for n in (0, 1)],
    ),
    (
        "context",
        AdviceKind.CONTEXT,
        [jax_compile(arg(0, "x", (4,)), context={"jax_enable_x64": v}) for v in ("False", "True")],
    ),
]


def only_function(records: list[CompileRecord]):
    [function] = build_ledger(records).functions
    return function


ALL_RULES = {rule.name: rule for rule in (*RULES, *ARGUMENT_RULES)}


@pytest.mark.parametrize(
    ("name", "kind", "records"), CASES, ids=[f"{name}-{kind}" for name, kind, _ in CASES]
)
def test_each_rule_fires_on_a_ledger_of_its_own(name, kind, records):
    function = only_function(records)
    rule = ALL_RULES[name]
    assert kind in rule.kinds
    if name in {r.name for r in ARGUMENT_RULES}:
        assert [r.name for r in ARGUMENT_RULES if r.when(function, function.arguments[-1])] == [
            name
        ]
    else:
        assert rule.when(function)
    assert [a.kind for a in function.advice] == [kind], [a.text for a in function.advice]


def test_every_rule_and_every_kind_of_advice_has_a_case():
    assert {name for name, _, _ in CASES} == set(ALL_RULES) - {"arguments"}
    assert {kind for _, kind, _ in CASES} == set(AdviceKind)
    given = {kind for rule in (*RULES, *ARGUMENT_RULES) for kind in rule.kinds}
    assert given == set(AdviceKind)


def test_the_rules_are_tried_in_the_order_the_advice_reads():
    assert [rule.name for rule in RULES] == [
        "eager_ops",
        "sizes",
        "input_signature",
        "arguments",
        "pytree",
        "sharding",
        "hoist",
        "cache_cleared",
        "context",
    ]
    assert [rule.name for rule in ARGUMENT_RULES] == ["python_scalar", "dtype", "values"]
    assert [rule.name for rule in RULES if rule.alone] == ["eager_ops"]


def everything(n: int, weak: bool, dtype: str, sharding: str, x64: str, clears: int, fid: str):
    """A compile of a JAX function whose every way of recompiling changes somewhere; in
    pairs, so bucketing ``x`` still saves a compile."""
    arguments = [
        arg(0, "x", (2, n)),
        arg(1, "a", (), dtype, weak_type=weak),
        arg(2, "b", (), dtype, weak_type=weak, sharding=sharding),
        static(3, "k", dtype),
    ]
    if fid != "1":
        arguments.append(arg(4, "y", (4,)))
    return jax_compile(
        *arguments,
        context={"jax_enable_x64": x64},
        cache_clears=clears,
        function_id=fid,
        first_sight=fid != "1",
    )


def test_on_a_function_every_rule_fires_on_the_advice_reads_as_the_if_chain_gave_it():
    function = only_function(
        [
            everything(3, True, "f32", "s0", "False", 0, "1"),
            everything(4, True, "f32", "s0", "False", 0, "1"),
            everything(5, False, "i32", "s1", "True", 1, "2"),
            everything(9, False, "i32", "s1", "True", 1, "2"),
        ]
    )
    # Per argument, its own advice together (a, then b), then k's values.
    assert [(str(a.kind), a.argument) for a in function.advice] == [
        ("bucket", "x"),
        ("python_scalar", "a"),
        ("dtype", "a"),
        ("python_scalar", "b"),
        ("dtype", "b"),
        ("static_argument", "k"),
        ("pytree", None),
        ("sharding", None),
        ("hoist", None),
        ("cache_cleared", None),
        ("context", None),
    ]


def test_tensorflow_size_advice_comes_before_the_signature_and_the_arguments():
    function = only_function(
        [
            tf_trace(
                arg(0, "x", (2, n), "float32"),
                arg(1, "d", (), dtype),
                arg(2, "n", (), "int32", role="constant", value=value),
            )
            for n, dtype, value in (
                (3, "float32", "1"),
                (4, "float32", "1"),
                (5, "int32", "2"),
                (9, "int32", "2"),
            )
        ]
    )
    assert [str(a.kind) for a in function.advice] == [
        "bucket",
        "input_signature",
        "dtype",
        "constant_argument",
    ]


def test_one_compile_needs_no_advice_and_a_table_can_be_given():
    [record] = sized(3)
    assert only_function([record]).advice == []
    function = only_function(sized(3, 4, 5, 9))
    assert [a.kind for a in advice_for(function, RULES[2:])] == []
    assert [a.kind for a in advice_for(function, RULES[1:2])] == [AdviceKind.BUCKET]
