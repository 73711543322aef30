import jax
import jax.numpy as jnp


def block(w, h):
    return jax.nn.gelu(h @ w) @ w.T


# save the matmul outputs, recompute the rest on the backward pass
block = jax.checkpoint(block, policy="dots_saveable")


def loss(w, h):
    for _ in range(4):
        h = block(w, h)
    return (h**2).mean()


print(jax.grad(loss)(jnp.ones((64, 256)) * 0.01, jnp.ones((8, 64))).shape)
