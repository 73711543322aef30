"""``hloscope diff a.py:f b.py:f`` where b.py is a refactor of a.py: its source lines are the
same lines moved, and the diff pairs them one to one.

Two programs of our own, each written twice: a bf16 transformer train step, and an MLP
classifier with a hand-written Adam update. The refactor moves the helpers around, renames
one, inserts lines (a docstring, comments, a constant) and edits a few lines in place. The
truth of which line became which is the refactor itself, written below line by line (the code
of the line in A and the code it became in B, each in its function), never the diff's output.
A refactor without edits is also compiled: XLA then builds the same program, so the memory
part must find no buffer that left or joined the peak and no line whose bytes changed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

import hloscope
from hloscope.analysis.diff import pair_lines, parse_where, source_lines
from hloscope.analysis.fusions import fusion_report
from hloscope.cli import cli
from hloscope.render.diff_text import kernel_where, op_name_scope

ROOT = Path(__file__).resolve().parent.parent

_EXAMPLE = "\n\ntrain_step.example_args = make\n"

TRANSFORMER_A = """import jax
import jax.numpy as jnp


def layer_norm(x, g):
    x32 = x.astype(jnp.float32)
    mu = x32.mean(-1, keepdims=True)
    var = ((x32 - mu) ** 2).mean(-1, keepdims=True)
    y = (x32 - mu) * jax.lax.rsqrt(var + 1e-5)
    return (y * g).astype(jnp.bfloat16)


def attention(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    s = jnp.einsum("bqd,bkd->bqk", q, k) / 8.0
    p = jax.nn.softmax(s.astype(jnp.float32), axis=-1).astype(jnp.bfloat16)
    return jnp.einsum("bqk,bkd->bqd", p, v)


def mlp(x, w1, w2):
    h = jax.nn.gelu(x @ w1)
    return h @ w2


def block(x, p):
    h = x + attention(layer_norm(x, p["g1"]), p["wq"], p["wk"], p["wv"])
    return h + mlp(layer_norm(h, p["g2"]), p["w1"], p["w2"])


def loss_fn(params, x, y):
    out = block(x, params)
    return jnp.mean((out.astype(jnp.float32) - y) ** 2)


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree.map(lambda p, g: p - 1e-3 * g.astype(p.dtype), params, grads)
    return params, loss


def make():
    d, f = 128, 256
    k = jax.random.split(jax.random.PRNGKey(0), 6)
    bf = jnp.bfloat16
    params = {
        "g1": jnp.ones((d,), bf), "g2": jnp.ones((d,), bf),
        "wq": jax.random.normal(k[0], (d, d), bf), "wk": jax.random.normal(k[1], (d, d), bf),
        "wv": jax.random.normal(k[2], (d, d), bf), "w1": jax.random.normal(k[3], (d, f), bf),
        "w2": jax.random.normal(k[4], (f, d), bf),
    }
    x = jax.random.normal(k[5], (2, 32, d), bf)
    return params, x, jnp.zeros((2, 32, d), jnp.float32)
"""

# The refactor: a docstring and a constant on top, layer_norm renamed norm and its epsilon
# named, mlp moved above attention, comments inserted. No edit: the same program for XLA.
TRANSFORMER_B = '''"""The same train step, tidied up."""
import jax
import jax.numpy as jnp

EPS = 1e-5


def norm(x, g):
    # was layer_norm
    x32 = x.astype(jnp.float32)
    mu = x32.mean(-1, keepdims=True)
    var = ((x32 - mu) ** 2).mean(-1, keepdims=True)
    y = (x32 - mu) * jax.lax.rsqrt(var + EPS)
    return (y * g).astype(jnp.bfloat16)


def mlp(x, w1, w2):
    h = jax.nn.gelu(x @ w1)
    return h @ w2


def attention(x, wq, wk, wv):
    # projections
    q, k, v = x @ wq, x @ wk, x @ wv
    s = jnp.einsum("bqd,bkd->bqk", q, k) / 8.0
    p = jax.nn.softmax(s.astype(jnp.float32), axis=-1).astype(jnp.bfloat16)
    return jnp.einsum("bqk,bkd->bqd", p, v)


def block(x, p):
    h = x + attention(norm(x, p["g1"]), p["wq"], p["wk"], p["wv"])
    return h + mlp(norm(h, p["g2"]), p["w1"], p["w2"])
''' + TRANSFORMER_A[TRANSFORMER_A.index("def loss_fn") - 2 :]

# Edits on top of the refactor: the query scaled before the scores (a line inserted, the
# scores line edited), the exact gelu.
TRANSFORMER_B_EDITED = TRANSFORMER_B.replace(
    '    s = jnp.einsum("bqd,bkd->bqk", q, k) / 8.0',
    '    q = q * 0.125\n    s = jnp.einsum("bqd,bkd->bqk", q, k)',
).replace("h = jax.nn.gelu(x @ w1)", "h = jax.nn.gelu(x @ w1, approximate=False)")

# (function, code) in A -> (function, code) in B: which line each line became.
TRANSFORMER_TRUTH = {
    ("layer_norm", "x32 = x.astype"): ("norm", "x32 = x.astype"),
    ("layer_norm", "mu = x32.mean"): ("norm", "mu = x32.mean"),
    ("layer_norm", "var = ((x32"): ("norm", "var = ((x32"),
    ("layer_norm", "y = (x32 - mu)"): ("norm", "y = (x32 - mu)"),
    ("layer_norm", "return (y * g)"): ("norm", "return (y * g)"),
    ("attention", "q, k, v ="): ("attention", "q, k, v ="),
    ("attention", "s = jnp.einsum"): ("attention", "s = jnp.einsum"),
    ("attention", "p = jax.nn.softmax"): ("attention", "p = jax.nn.softmax"),
    ("attention", 'return jnp.einsum("bqk'): ("attention", 'return jnp.einsum("bqk'),
    ("mlp", "h = jax.nn.gelu"): ("mlp", "h = jax.nn.gelu"),
    ("mlp", "return h @ w2"): ("mlp", "return h @ w2"),
    ("block", "h = x + attention"): ("block", "h = x + attention"),
    ("block", "return h + mlp"): ("block", "return h + mlp"),
    ("loss_fn", "out = block"): ("loss_fn", "out = block"),
    ("loss_fn", "return jnp.mean"): ("loss_fn", "return jnp.mean"),
    ("train_step", "loss, grads ="): ("train_step", "loss, grads ="),
    ("train_step", "params = jax.tree.map"): ("train_step", "params = jax.tree.map"),
}

ADAM_A = """import jax
import jax.numpy as jnp


def dense(x, w, b):
    return x @ w + b


def forward(params, x):
    h = jax.nn.relu(dense(x, params["w1"], params["b1"]))
    h = jnp.tanh(dense(h, params["w2"], params["b2"]))
    return dense(h, params["w3"], params["b3"])


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.sum(logp * labels, axis=-1))


def adam(p, g, m, v, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    return p - lr * m / (jnp.sqrt(v) + eps), m, v


@jax.jit
def train_step(params, m, v, x, labels):
    loss, grads = jax.value_and_grad(lambda p: cross_entropy(forward(p, x), labels))(params)
    out = jax.tree.map(adam, params, grads, m, v)
    pick = lambda i: jax.tree.map(lambda t: t[i], out, is_leaf=lambda t: isinstance(t, tuple))
    return pick(0), pick(1), pick(2), loss


def make():
    k = jax.random.split(jax.random.PRNGKey(1), 4)
    sizes = [(64, 256), (256, 256), (256, 10)]
    params = {}
    for i, (n, m) in enumerate(sizes, 1):
        params[f"w{i}"] = jax.random.normal(k[i - 1], (n, m)) * 0.05
        params[f"b{i}"] = jnp.zeros((m,))
    zeros = jax.tree.map(jnp.zeros_like, params)
    x = jax.random.normal(k[3], (32, 64))
    labels = jax.nn.one_hot(jnp.arange(32) % 10, 10)
    return params, zeros, zeros, x, labels
"""

# The refactor: adam moved to the top, dense renamed linear, a docstring and comments added.
ADAM_B = '''"""MLP classifier, trained with Adam."""
import jax
import jax.numpy as jnp


def adam(p, g, m, v, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    # first and second moments
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    return p - lr * m / (jnp.sqrt(v) + eps), m, v


def linear(x, w, b):
    return x @ w + b


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.sum(logp * labels, axis=-1))


def forward(params, x):
    # three layers
    h = jax.nn.relu(linear(x, params["w1"], params["b1"]))
    h = jnp.tanh(linear(h, params["w2"], params["b2"]))
    return linear(h, params["w3"], params["b3"])
''' + ADAM_A[ADAM_A.index("@jax.jit") - 2 :]

# Edits: epsilon moved inside the square root, the second layer's tanh made a gelu.
ADAM_B_EDITED = ADAM_B.replace("(jnp.sqrt(v) + eps)", "jnp.sqrt(v + eps)").replace(
    'h = jnp.tanh(linear(h, params["w2"], params["b2"]))',
    'h = jax.nn.gelu(linear(h, params["w2"], params["b2"]))',
)

ADAM_TRUTH = {
    ("dense", "return x @ w + b"): ("linear", "return x @ w + b"),
    ("forward", "h = jax.nn.relu"): ("forward", "h = jax.nn.relu"),
    ("forward", "h = jnp.tanh"): ("forward", '(linear(h, params["w2"]'),
    ("forward", "return dense(h"): ("forward", "return linear(h"),
    ("cross_entropy", "logp ="): ("cross_entropy", "logp ="),
    ("cross_entropy", "return -jnp.mean"): ("cross_entropy", "return -jnp.mean"),
    ("adam", "m = b1 * m"): ("adam", "m = b1 * m"),
    ("adam", "v = b2 * v"): ("adam", "v = b2 * v"),
    ("adam", "return p - lr"): ("adam", "return p - lr"),
}


@dataclass(frozen=True)
class Program:
    name: str
    a: str
    b: str
    b_edited: str
    truth: dict[tuple[str, str], tuple[str, str]]


PROGRAMS = [
    Program("transformer", TRANSFORMER_A, TRANSFORMER_B, TRANSFORMER_B_EDITED, TRANSFORMER_TRUTH),
    Program("adam_mlp", ADAM_A, ADAM_B, ADAM_B_EDITED, ADAM_TRUTH),
]


def line_of(text: str, function: str, code: str) -> int:
    """The 1-based line of ``code`` inside ``def function`` of ``text`` (the truth's key)."""
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"def {function}("))
    for n in range(start + 1, len(lines)):
        if lines[n].startswith(("def ", "@")):
            break
        if code in lines[n]:
            return n + 1
    raise AssertionError(f"{code!r} is not in {function}")


@pytest.fixture(scope="module", params=PROGRAMS, ids=lambda p: p.name)
def written(request, tmp_path_factory):
    """The program's three versions as scripts (a.py, b.py, b_edited.py), one cache."""
    program: Program = request.param
    folder = tmp_path_factory.mktemp(program.name)
    for stem, text in (("a", program.a), ("b", program.b), ("b_edited", program.b_edited)):
        (folder / f"{stem}.py").write_text(text + _EXAMPLE)
    patch = pytest.MonkeyPatch()
    patch.setenv("HLOSCOPE_CACHE", str(folder / "cache"))
    yield program, folder
    patch.undo()


def _cli_diff(a: Path, b: Path) -> dict:
    result = CliRunner().invoke(cli, ["diff", "--json", f"{a}:train_step", f"{b}:train_step"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _where_line(where: str) -> tuple[str, int, str]:
    parsed = parse_where(where)
    assert parsed is not None, where
    return Path(parsed[0]).name, parsed[1], parsed[2]


@pytest.mark.parametrize("version", ["b", "b_edited"])
def test_each_line_is_paired_with_the_line_it_became(written, version):
    program, folder = written
    text_b = program.b if version == "b" else program.b_edited
    result = hloscope.diff(f"{folder / 'a.py'}:train_step", f"{folder / version}.py:train_step")
    pairs = {_where_line(a): _where_line(b) for a, b in result.line_pairs.items()}
    # One to one: no line of B continues two lines of A.
    assert len(set(pairs.values())) == len(pairs)
    lines_a = {_where_line(op.where) for op in result.a.ops if op.where}
    checked = 0
    for (function_a, code_a), (function_b, code_b) in program.truth.items():
        key = ("a.py", line_of(program.a, function_a, code_a), function_a)
        if key not in lines_a:
            continue  # XLA kept no op of this line
        expected = (f"{version}.py", line_of(text_b, function_b, code_b), function_b)
        assert pairs.get(key) == expected, (key, pairs.get(key), expected)
        checked += 1
    assert checked >= len(program.truth) - 3  # most lines of the truth keep ops
    # A row of the line table names each line of B once.
    named_b = [row.source_b for row in result.lines if row.source_b]
    assert len(named_b) == len(set(named_b))


def test_a_refactor_without_edits_changes_no_memory_line(written):
    program, folder = written
    data = _cli_diff(folder / "a.py", folder / "b.py")
    memory = data["memory"]
    # The same program for XLA: the same peak, and every buffer found at its moved line.
    assert memory["a"]["peak_bytes"] == memory["b"]["peak_bytes"]
    assert memory["left_peak"] == [] and memory["joined_peak"] == []
    assert memory["by_source"] == []
    assert data["no_change"] and data["lines"] == []


def test_a_buffer_at_a_moved_line_neither_leaves_nor_joins_the_peak(written):
    program, folder = written
    data = _cli_diff(folder / "a.py", folder / "b_edited.py")
    memory = data["memory"]

    def held(buffer: dict) -> tuple[str, str, str, int]:
        file, line, function = _where_line(buffer["source"]) if buffer["source"] else ("", 0, "")
        return buffer["kind"], buffer["shape"].split("{")[0], function, line

    left = {held(b) for b in memory["left_peak"] if b["source"]}
    for buffer in memory["joined_peak"]:
        if not buffer["source"]:
            continue
        kind, shape, function_b, line_b = held(buffer)
        # A buffer that joined at line_b: A had none like it at the line that became line_b.
        for (fa, ca), (fb, cb) in program.truth.items():
            if fb == function_b and line_of(program.b_edited, fb, cb) == line_b:
                assert (kind, shape, fa, line_of(program.a, fa, ca)) not in left
    for share in memory["by_source"]:
        if share["source_a"] and share["source_a"] != share["source"]:
            # A line that moved is said with both places.
            assert _where_line(share["source_a"])[0] == "a.py"
            assert _where_line(share["source"])[0] == "b_edited.py"


def test_the_matching_rule_step_by_step(tmp_path):
    """Function and code text, then code text alone, then names within a function, then
    order: each step on its own, on lines written for it."""
    a = tmp_path / "a.py"
    b = tmp_path / "b.py"
    a.write_text("def f():\n    x = 1\n    y = 2\n    z = 3\n\ndef g():\n    w = 4\n")
    b.write_text("def f():\n    pass\n    y = 2\n    x = 1\n    z = 30\n\ndef h():\n    w = 4\n")
    lines_a = source_lines(
        {f"{a}:2 (f)": {"add"}, f"{a}:3 (f)": {"mul"}, f"{a}:4 (f)": {"sub"}, f"{a}:7 (g)": ()}
    )
    lines_b = source_lines(
        {
            f"{b}:2 (f)": {"div"},
            f"{b}:3 (f)": {"mul"},
            f"{b}:4 (f)": {"add"},
            f"{b}:5 (f)": {"sub"},
            f"{b}:8 (h)": (),
        }
    )
    pairs = pair_lines(lines_a, lines_b)
    assert pairs == {
        f"{a}:2 (f)": f"{b}:4 (f)",  # the same code in f, moved down
        f"{a}:3 (f)": f"{b}:3 (f)",
        f"{a}:7 (g)": f"{b}:8 (h)",  # g renamed h: the same code alone
        f"{a}:4 (f)": f"{b}:5 (f)",  # edited in place: its op name and most of its text
    }
    # Without the files (a dump from elsewhere): names within a function, then order.
    blind_a = source_lines({"gone_a.py:2 (f)": {"add"}, "gone_a.py:3 (f)": {"x"}})
    blind_b = source_lines({"gone_b.py:5 (f)": {"y"}, "gone_b.py:9 (f)": {"add"}})
    # The one line left of f on each side is the other line of f.
    assert pair_lines(blind_a, blind_b) == {
        "gone_a.py:2 (f)": "gone_b.py:9 (f)",
        "gone_a.py:3 (f)": "gone_b.py:5 (f)",
    }
    blind_b = source_lines({"gone_b.py:5 (f)": {"y"}, "gone_b.py:9 (f)": {"z"}})
    assert pair_lines(blind_a, blind_b) == {
        "gone_a.py:2 (f)": "gone_b.py:5 (f)",
        "gone_a.py:3 (f)": "gone_b.py:9 (f)",
    }


@pytest.mark.parametrize(
    "hlo",
    [
        "samples/hlo/transformer_train.after_optimizations.txt",
        "tests/data/generated/jax_mlp_train/module_0018.jit_step.cpu_after_optimizations.txt",
    ],
)
def test_merged_op_names_say_each_scope_once(hlo):
    """XLA joins the op_names of instructions it merged with ';'
    (``jit(train_step)/transpose(jvp())/transpose;jit(train_step)/...``): the diff says each
    scope once, without the outer jit, and a kernel with no user line is named so."""
    report = fusion_report(hloscope.parse(ROOT / hlo))
    merged = [k for k in report.kernels if ";" in k.op_name]
    assert merged, "the sample holds kernels with merged op_names"
    for kernel in merged:
        parts = kernel.op_name.split(";")
        expected = list(dict.fromkeys(p.split(")/", 1)[1] for p in parts))
        assert op_name_scope(kernel.op_name) == ", ".join(expected)
        if not kernel.sources:
            assert kernel_where(kernel) == ", ".join(expected)


def test_a_kernel_with_user_lines_says_its_function(written):
    program, folder = written
    result = hloscope.diff(f"{folder / 'a.py'}:train_step", f"{folder / 'b.py'}:train_step")
    said = 0
    for kernel in result.a.kernels:
        parsed = [p for s, _ in kernel.sources if (p := parse_where(s)) is not None]
        places = {(file, function) for file, _, function in parsed}
        if len(places) == 1 and next(iter(places))[0].endswith("a.py"):
            where = kernel_where(kernel)
            assert where.startswith("a.py:") and where.endswith(f" ({parsed[0][2]})")
            said += 1
    assert said
