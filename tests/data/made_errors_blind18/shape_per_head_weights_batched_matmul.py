import jax
import jax.numpy as jnp


def project_heads(x, w_heads):
    # x (heads, seq, d_model) against one projection per head (heads, d_model, head_dim)
    return x @ w_heads


num_heads = 4
x = jnp.broadcast_to(jnp.ones((10, 8)), (num_heads, 10, 8))
w_heads = jnp.ones((3, 8, 16))  # built from the old config with three heads
print(jax.jit(project_heads)(x, w_heads).shape)
