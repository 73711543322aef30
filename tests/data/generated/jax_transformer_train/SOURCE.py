# XLA_FLAGS extra: ''; env: {}
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
