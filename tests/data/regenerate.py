"""Regenerate tests/data: XLA dumps of hloscope's own small programs, and XLA's view of them.

    python tests/data/regenerate.py [CASE ...]

Each case below is a short program run in a fresh interpreter with XLA dumping its HLO text
(``--xla_dump_to``, ``--xla_dump_hlo_as_text``) into ``generated/<case>/``, beside a copy of the
program as ``SOURCE.py`` (its first line records the extra XLA_FLAGS and environment; the line
numbers in the dumped metadata are the program's, one line on). The cases mirror the kinds of
``../shared/corpus/generated`` so that the same tests run on a plain clone: training steps,
control flow, data movement, LAPACK custom calls, host callbacks, collectives on 8 host devices,
element types, convolution and RNG, one function recompiled, per-pass snapshots, Keras under
``tf.function(jit_compile=True)`` and TensorFlow's unsupported-op errors.

Paths in metadata are rewritten to neutral ones, so the files do not depend on this machine:
the program's own folder becomes ``/home/user/corpus`` and site-packages
``/usr/lib/python3/site-packages``. Object files, LLVM IR and DOT files are not kept.

Afterwards ``oracle.jsonl`` is rewritten: one line per module file, what XLA's own parser
(jaxlib's ``hlo_module_from_text``) made of it, in the format of ``../shared/corpus/oracle.jsonl``.

Needs jax, flax, optax and TensorFlow (CPU builds). Other versions of them give slightly
different text; regenerate everything with one set of versions and commit it with the oracle.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENERATED = HERE / "generated"
ORACLE = HERE / "oracle.jsonl"
NEUTRAL_SOURCE = "/home/user/corpus"
NEUTRAL_SITE = "/usr/lib/python3/site-packages"
# Reports and tables XLA writes beside the modules: not module text, so no oracle line.
NOT_MODULES = (
    "buffer-assignment",
    "memory-usage-report",
    "live-range",
    ".error.txt",
    "debug_options",
)


@dataclass(frozen=True)
class Case:
    source: str
    xla_flags: str = ""
    env: dict[str, str] = field(default_factory=dict)


CASES: dict[str, Case] = {}


def case(name: str, source: str, xla_flags: str = "", **env: str) -> None:
    CASES[name] = Case(textwrap.dedent(source).lstrip("\n"), xla_flags, env)


# ---- JAX -----------------------------------------------------------------------------------------

case(
    "jax_mlp_train",
    """
    import jax
    import jax.numpy as jnp


    def predict(params, x):
        hidden = jnp.tanh(x @ params["w_in"] + params["b_in"])
        return hidden @ params["w_out"] + params["b_out"]


    def loss(params, x, y):
        return jnp.mean((predict(params, x) - y) ** 2)


    @jax.jit
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree.map(lambda p, g: p - 0.05 * g, params, grads)


    params = {
        "w_in": jnp.full((48, 128), 0.02),
        "b_in": jnp.zeros(128),
        "w_out": jnp.full((128, 4), 0.02),
        "b_out": jnp.arange(4.0) / 10,
    }
    step(params, jnp.ones((16, 48)), jnp.zeros((16, 4)))
    """,
)

case(
    "jax_transformer_train",
    """
    import jax
    import jax.numpy as jnp

    WIDTH, DEPTH = 64, 2


    def norm(x):
        mean = x.mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-6)


    def block(p, x):
        q, k, v = x @ p["q"], x @ p["k"], x @ p["v"]
        attention = jax.nn.softmax(q @ k.swapaxes(-1, -2) / WIDTH**0.5, axis=-1) @ v
        x = norm(x + attention)
        return norm(x + jax.nn.gelu(x @ p["up"]) @ p["down"])


    def loss(blocks, x):
        for p in blocks:
            x = block(p, x)
        return jnp.mean(x**2)


    @jax.jit
    def train_step(blocks, x):
        value, grads = jax.value_and_grad(loss)(blocks, x)
        return value, jax.tree.map(lambda p, g: p - 1e-3 * g, blocks, grads)


    shapes = {"q": (WIDTH, WIDTH), "k": (WIDTH, WIDTH), "v": (WIDTH, WIDTH),
              "up": (WIDTH, 2 * WIDTH), "down": (2 * WIDTH, WIDTH)}
    blocks = [{n: jnp.full(s, 0.02) for n, s in shapes.items()} for _ in range(DEPTH)]
    train_step(blocks, jnp.ones((2, 16, WIDTH)))
    """,
)

case(
    "jax_control_flow",
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def loops(xs, n):
        def accumulate(carry, x):
            carry = jnp.sin(carry) + x
            return carry, carry.sum()

        carry, sums = jax.lax.scan(accumulate, jnp.zeros(xs.shape[1:]), xs)
        carry = jax.lax.fori_loop(0, 3, lambda i, c: c * 0.5 + i, carry)
        count, carry = jax.lax.while_loop(
            lambda s: s[0] < n, lambda s: (s[0] + 1, jnp.cos(s[1])), (0, carry)
        )
        carry = jax.lax.cond(count > 2, lambda c: c * 2, lambda c: -c, carry)
        return jax.lax.switch(n % 3, [jnp.tanh, jnp.exp, jnp.abs], carry), sums


    loops(jnp.ones((5, 12)), 3)
    """,
)

case(
    "jax_data_movement",
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x, rows, updates):
        ordered = jnp.sort(x, axis=0)
        order = jnp.argsort(x[:, 0])
        picked = x[rows]
        added = x.at[rows].add(updates)
        strided = x.T[1:9:3]
        joined = jnp.concatenate([x, -x], axis=0)
        padded = jnp.pad(x, ((0, 1), (2, 0)))
        turned = jnp.flip(jnp.roll(x, 2, axis=0), axis=1)
        window = jax.lax.dynamic_slice(x, (rows[1], 0), (3, 2))
        written = jax.lax.dynamic_update_slice(x, window + 1, (0, 2))
        top = jax.lax.top_k(x, 2)[1]
        running = jnp.cumsum(x, axis=0)
        pooled = jax.lax.reduce_window(x, 0.0, jax.lax.add, (3, 1), (1, 1), "VALID")
        return ordered, order, picked, added, strided, joined, padded, turned, written, top, \\
            running, pooled


    f(jnp.arange(60.0).reshape(10, 6), jnp.array([0, 4, 7]), jnp.ones((3, 6)))
    """,
)

case(
    "jax_linalg_custom_calls",
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(a, b):
        lower = jnp.linalg.cholesky(a @ a.T + jnp.eye(a.shape[0]))
        values, vectors = jnp.linalg.eigh(a + a.T)
        q, r = jnp.linalg.qr(a)
        solved = jnp.linalg.solve(a + 3 * jnp.eye(a.shape[0]), b)
        singular = jnp.linalg.svd(a, compute_uv=False)
        spectrum = jnp.fft.fft(b[:, 1])
        return lower, values, vectors, q, r, solved, singular, spectrum


    f(jnp.eye(8) + 0.1, jnp.ones((8, 2)))
    """,
)

case(
    "jax_callbacks",
    """
    import jax
    import jax.numpy as jnp
    import numpy as np


    @jax.jit
    def f(x):
        shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        y = jax.pure_callback(lambda a: np.cos(a).astype(a.dtype), shape, x)
        jax.debug.print("largest {}", y.max())
        return y + x


    f(jnp.arange(6.0) / 4)
    """,
)

case(
    "jax_collectives",
    """
    from functools import partial

    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ("rows", "cols"))
    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:  # jax before 0.6 keeps it in experimental
        from jax.experimental.shard_map import shard_map


    @jax.jit
    @partial(shard_map, mesh=mesh, in_specs=(P("rows", "cols"),), out_specs=P("rows", "cols"))
    def talk(x):
        total = jax.lax.psum(x, "cols")
        gathered = jax.lax.all_gather(x, "rows", tiled=True, axis=0)[: x.shape[0]]
        shifted = jax.lax.ppermute(x, "cols", [(i, (i + 1) % 4) for i in range(4)])
        repeated = jnp.concatenate([x] * 4, 1)
        scattered = jax.lax.psum_scatter(repeated, "cols", scatter_dimension=1, tiled=True)
        swapped = jax.lax.all_to_all(x, "cols", 1, 1, tiled=True)
        return total + gathered + shifted + scattered + swapped


    talk(jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P("rows", "cols"))))


    @jax.jit
    def sharded(w, x):
        return jax.nn.relu(x @ w).mean(0)


    w = jax.device_put(jnp.ones((32, 16)), NamedSharding(mesh, P(None, "cols")))
    x = jax.device_put(jnp.ones((8, 32)), NamedSharding(mesh, P("rows", None)))
    sharded(w, x)
    """,
    xla_flags="--xla_force_host_platform_device_count=8",
)

case(
    "jax_dtypes",
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(a, b, c, d, e, z):
        return (
            a.astype(jnp.bfloat16) + 1,
            b.astype(jnp.float16) * 3,
            c.astype(jnp.int8) % 5,
            d * 2.0,
            e.astype(jnp.float8_e4m3fn),
            z * 1j,
            jnp.uint4(5),
            b < 1,
            jax.lax.bitcast_convert_type(a, jnp.uint32),
        )


    f(jnp.ones(6, jnp.float32), jnp.ones(6), jnp.ones(6, jnp.int32), jnp.ones(6, jnp.float64),
      jnp.ones(6), jnp.ones(3, jnp.complex64))
    """,
    JAX_ENABLE_X64="1",
)

case(
    "jax_conv_rng",
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(key, images, kernel):
        y = jax.lax.conv_general_dilated(
            images, kernel, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        y = jax.lax.reduce_window(jax.nn.relu(y), -jnp.inf, jax.lax.max, (1, 2, 2, 1),
                                  (1, 1, 1, 1), "SAME")
        keep = jax.random.bernoulli(key, 0.8, y.shape)
        jitter = jax.random.uniform(key, y.shape)
        return jnp.where(keep, y * jitter, 0.0).sum(axis=(1, 2))


    f(jax.random.key(3), jnp.ones((2, 12, 12, 4)), jnp.ones((3, 3, 4, 6)))
    """,
)

case(
    "jax_recompiles",
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def norm(x):
        return x * jax.lax.rsqrt(jnp.sum(x * x, axis=-1, keepdims=True))


    for rows in (8, 13, 21):  # three shapes
        norm(jnp.ones((rows, 32)))
    norm(jnp.ones((8, 32), jnp.bfloat16))  # and one more dtype
    """,
)

case(
    "jax_pass_dumps",
    """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def small(x, y):
        return jnp.exp(x * y - 2.0).sum(axis=1)


    small(jnp.ones((8, 16)), jnp.ones((8, 16)))
    """,
    xla_flags="--xla_dump_hlo_pass_re=.*",
)

case(
    "flax_cnn_train",
    """
    import jax
    import jax.numpy as jnp
    import optax
    from flax import linen as nn


    class SmallCNN(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(nn.Conv(8, (3, 3))(x))
            x = nn.avg_pool(x, (2, 2), (2, 2))
            x = nn.BatchNorm(use_running_average=True)(x)
            x = x.reshape((x.shape[0], -1))
            return nn.Dense(10)(nn.relu(nn.Dense(32)(x)))


    model = SmallCNN()
    images = jnp.ones((4, 16, 16, 1))
    variables = model.init(jax.random.key(0), images)
    optimizer = optax.adam(1e-3)
    state = optimizer.init(variables["params"])


    @jax.jit
    def train_step(params, state, x, labels):
        def loss(p):
            logits = model.apply({**variables, "params": p}, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

        value, grads = jax.value_and_grad(loss)(params)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value


    train_step(variables["params"], state, images, jnp.zeros(4, jnp.int32))
    """,
)

# ---- TensorFlow ----------------------------------------------------------------------------------

# ``OUT`` (the case's output folder) is defined on the line before each TensorFlow program.
TF_PRELUDE = """
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf


def save_ir(fn, args, name):
    for stage in ("hlo", "optimized_hlo"):
        with open(os.path.join(OUT, f"{name}.{stage}.txt"), "w") as out:
            out.write(fn.experimental_get_compiler_ir(*args)(stage=stage))
"""

case(
    "tf_keras_resnet50",
    TF_PRELUDE
    + """
model = tf.keras.applications.ResNet50(weights=None, input_shape=(32, 32, 3), classes=10)


@tf.function(jit_compile=True)
def fwd(x):
    return model(x, training=False)


save_ir(fwd, (tf.ones((1, 32, 32, 3)),), "resnet50_forward")
""",
)

case(
    "tf_keras_mobilenet_train",
    TF_PRELUDE
    + """
layers = tf.keras.layers


def inverted_residual(x, expand, filters, stride):
    y = layers.ReLU(6.0)(layers.BatchNormalization()(layers.Conv2D(expand, 1, use_bias=False)(x)))
    y = layers.DepthwiseConv2D(3, stride, padding="same", use_bias=False)(y)
    y = layers.ReLU(6.0)(layers.BatchNormalization()(y))
    y = layers.BatchNormalization()(layers.Conv2D(filters, 1, use_bias=False)(y))
    return layers.Add()([x, y]) if stride == 1 and x.shape[-1] == filters else y


inputs = tf.keras.Input((32, 32, 3))
x = layers.ReLU(6.0)(layers.BatchNormalization()(layers.Conv2D(16, 3, 2, padding="same")(inputs)))
for expand, filters, stride in ((32, 16, 1), (48, 24, 2), (72, 24, 1)):
    x = inverted_residual(x, expand, filters, stride)
outputs = layers.Dense(10)(layers.GlobalAveragePooling2D()(x))
model = tf.keras.Model(inputs, outputs, name="small_mobilenet")
optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function(jit_compile=True)
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True)
        )
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


x, y = tf.ones((2, 32, 32, 3)), tf.zeros((2,), tf.int32)
train_step(x, y)
save_ir(train_step, (x, y), "mobilenetv2_train_step")
""",
)

case(
    "tf_unsupported_errors",
    TF_PRELUDE
    + """

def attempt(name, fn, *args):
    try:
        fn(*args)
        message = "compiled without error"
    except Exception as error:
        message = f"{type(error).__name__}: {error}"
    with open(os.path.join(OUT, f"{name}.error.txt"), "w") as out:
        out.write(message)


@tf.function(jit_compile=True)
def as_string(x):
    return tf.strings.length(tf.strings.as_string(x))


@tf.function(jit_compile=True)
def unique(x):
    return tf.unique(x).y


@tf.function(jit_compile=True)
def py_func(x):
    return tf.py_function(lambda a: a + 1, [x], tf.float32)


@tf.function(jit_compile=True)
def boolean_mask(x):
    return tf.boolean_mask(x, x < 0)


@tf.function(jit_compile=True)
def fine(x):
    return tf.math.softplus(x) * 3


attempt("as_string", as_string, tf.constant([4.0, 5.0]))
attempt("unique", unique, tf.constant([3, 1, 3, 2]))
attempt("py_function", py_func, tf.constant([4.0, 5.0]))
attempt("boolean_mask", boolean_mask, tf.constant([4.0, -5.0]))
attempt("fine", fine, tf.constant([4.0, -5.0]))
""",
)


# ---- running a case ------------------------------------------------------------------------------


def site_folders() -> list[str]:
    """This machine's site-packages, longest first (so a nested one is replaced whole)."""
    folders = set(site.getsitepackages()) | {site.getusersitepackages()}
    return sorted(folders, key=len, reverse=True)


def neutral_paths(text: str, program_folder: str) -> str:
    """Metadata paths of this machine replaced with fixed neutral ones."""
    for folder in site_folders():
        text = text.replace(folder, NEUTRAL_SITE)
    text = text.replace(program_folder, NEUTRAL_SOURCE)
    # TensorFlow's "The op is created at" frames drop the leading slash.
    return text.replace(program_folder.lstrip("/"), NEUTRAL_SOURCE.lstrip("/"))


def kept(name: str) -> bool:
    """Text files of the dump; not the LLVM IR, object code or graphs XLA also writes, nor the
    ``jit_convert_element_type`` modules jax compiles for its own constants (left out of
    ../shared/corpus too, so both corpora's dumps hold the same kinds of helper modules)."""
    if "jit_convert_element_type" in name:
        return False
    return name.endswith(".txt") and not name.endswith((".ll.txt", ".dot.txt"))


def run_case(name: str) -> None:
    spec = CASES[name]
    out = GENERATED / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        dump = Path(scratch) / "dump"
        program_folder = str(Path(scratch) / "corpus")
        os.mkdir(program_folder)
        script = Path(program_folder) / f"{name}.py"
        # One line before the program, as in SOURCE.py, so metadata line numbers match it.
        script.write_text(f"OUT = {str(out)!r}\n" + spec.source)
        env = dict(os.environ, **spec.env, TF_CPP_MIN_LOG_LEVEL="2")
        env["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text {spec.xla_flags}".strip()
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=900
        )
        if done.returncode != 0:
            raise SystemExit(f"{name} failed:\n{done.stderr[-4000:]}")
        for path in sorted(dump.iterdir()) if dump.is_dir() else ():
            if kept(path.name):
                shutil.copyfile(path, out / path.name)
        for path in out.iterdir():
            text = path.read_text(errors="surrogateescape")
            path.write_text(neutral_paths(text, program_folder), errors="surrogateescape")
    header = f"# XLA_FLAGS extra: {spec.xla_flags!r}; env: {spec.env!r}\n"
    (out / "SOURCE.py").write_text(header + spec.source)
    print(f"{name}: {len(list(out.iterdir()))} files")


# ---- the oracle ----------------------------------------------------------------------------------


def is_module_file(path: Path) -> bool:
    return path.name != "SOURCE.py" and not any(tag in path.name for tag in NOT_MODULES)


def xla_view(text: str) -> dict:
    """What XLA's parser made of one module text: names, counts and opcodes per computation."""
    from tensorflow.compiler.xla.service import hlo_pb2

    from hloscope.backends._jaxlib import xla_parse

    parsed = xla_parse(text)
    proto = hlo_pb2.HloModuleProto.FromString(bytes(parsed.as_serialized_hlo_module_proto()))
    by_name = {c.name: c for c in proto.computations}
    computations, opcodes, fusion_kinds = [], Counter(), Counter()
    for name in (c.name for c in parsed.computations()):  # the order XLA keeps: the text's
        computation = by_name[name]
        names = {i.id: i for i in computation.instructions}
        root = names[computation.root_id]
        for instruction in computation.instructions:
            opcodes[instruction.opcode] += 1
            if instruction.opcode == "fusion":
                fusion_kinds[instruction.fusion_kind] += 1
        computations.append(
            {
                "name": name,
                "instructions": len(computation.instructions),
                "root": root.name,
                "root_opcode": root.opcode,
                "parameters": sum(i.opcode == "parameter" for i in computation.instructions),
            }
        )
    return {
        "module": proto.name,
        "entry": proto.entry_computation_name,
        "computations": computations,
        "n_instructions": sum(c["instructions"] for c in computations),
        "opcodes": dict(sorted(opcodes.items())),
        "fusions": sum(fusion_kinds.values()),
        "fusion_kinds": dict(sorted(fusion_kinds.items())),
    }


def oracle_lines(root: Path, folder: str) -> list[dict]:
    """One oracle line per module file under ``root / folder`` (a dump holds one module each)."""
    lines = []
    for path in sorted((root / folder).glob("*/*.txt")):
        if is_module_file(path):
            relative = path.relative_to(root / folder).as_posix()
            view = xla_view(path.read_text(errors="surrogateescape"))
            lines.append({"root": folder, "file": relative, "part": 0, **view})
    return lines


def write_oracle() -> None:
    lines = oracle_lines(HERE, "generated")
    ORACLE.write_text("".join(json.dumps(line) + "\n" for line in lines))
    print(f"oracle.jsonl: {len(lines)} modules")


def main(names: list[str]) -> None:
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        raise SystemExit(f"unknown cases: {', '.join(unknown)} (known: {', '.join(CASES)})")
    for name in names or CASES:
        run_case(name)
    write_oracle()


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent))  # hloscope itself, for XLA's parser
    main(sys.argv[1:])
