"""A two-block GPT train step whose attention is jax.nn.dot_product_attention (after)."""

import jax
import jax.numpy as jnp

HEADS = 4


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * jax.lax.rsqrt(var + 1e-5) * g + b


def attention(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, is_causal=True)


def block(x, p):
    b, t, d = x.shape
    h = layer_norm(x, p["g1"], p["b1"])
    q, k, v = jnp.split(h @ p["wqkv"], 3, axis=-1)
    q, k, v = (z.reshape(b, t, HEADS, d // HEADS) for z in (q, k, v))
    o = attention(q, k, v).reshape(b, t, d)
    x = x + o @ p["wo"]
    h = layer_norm(x, p["g2"], p["b2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


def loss_fn(params, x, y):
    for p in params["blocks"]:
        x = block(x, p)
    x = layer_norm(x, params["gf"], params["bf"])
    return jnp.mean((x - y) ** 2)


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    params = jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads)
    return params, loss


def make():
    d, f, n = 64, 256, 2
    keys = iter(jax.random.split(jax.random.PRNGKey(0), 16))
    blocks = []
    for _ in range(n):
        blocks.append(
            {
                "g1": jnp.ones((d,)),
                "b1": jnp.zeros((d,)),
                "g2": jnp.ones((d,)),
                "b2": jnp.zeros((d,)),
                "wqkv": jax.random.normal(next(keys), (d, 3 * d)) * 0.05,
                "wo": jax.random.normal(next(keys), (d, d)) * 0.05,
                "w1": jax.random.normal(next(keys), (d, f)) * 0.05,
                "w2": jax.random.normal(next(keys), (f, d)) * 0.05,
            }
        )
    params = {"blocks": blocks, "gf": jnp.ones((d,)), "bf": jnp.zeros((d,))}
    x = jax.random.normal(next(keys), (2, 32, d))
    return params, x, jnp.zeros((2, 32, d))


train_step.example_args = make
