"""Program text shared by the memory tests' child processes (each writes a script and runs it
with ``--xla_dump_to``): a transformer whose layers run under ``lax.scan``, its train step with and
without ``jax.checkpoint`` on each layer. Only under a scan does remat lower XLA's CPU peak
clearly, so the remat tests of ``memory`` and ``diff`` both use it."""

SCANNED_TRANSFORMER = r"""import jax
import jax.numpy as jnp
from jax import lax

D, H, T, B, L = 64, 256, 128, 8, 6


def layer(p, x):
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    a = jax.nn.softmax(q @ jnp.swapaxes(k, -1, -2) / 8.0, axis=-1)
    x = x + (a @ v) @ p["wo"]
    return x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]


def make_step(remat):
    f = jax.checkpoint(layer) if remat else layer

    def loss(ps, x):
        x, _ = lax.scan(lambda x, p: (f(p, x), None), x, ps)
        return jnp.mean(x**2)

    def step(ps, x):
        g = jax.grad(loss)(ps, x)
        return jax.tree.map(lambda a, b: a - 0.1 * b, ps, g)

    return step


def train_step(ps, x):
    return make_step(False)(ps, x)


def train_step_remat(ps, x):
    return make_step(True)(ps, x)
"""
