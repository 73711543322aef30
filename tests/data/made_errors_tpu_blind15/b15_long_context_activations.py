import jax
import jax.numpy as jnp


def block(h, w):
    w_in, w_out = w
    return h + jax.nn.gelu(h @ w_in) @ w_out, None

def loss_fn(weights, tokens):
    h, _ = jax.lax.scan(block, tokens, weights)
    return jnp.mean(h.astype(jnp.float32) ** 2)

layers, seq, d_model, d_ff = 24, 65536, 1024, 4096
weights = (jnp.full((layers, d_model, d_ff), 0.01, jnp.bfloat16),
           jnp.full((layers, d_ff, d_model), 0.01, jnp.bfloat16))
tokens = jnp.ones((seq, d_model), jnp.bfloat16)
grads = jax.jit(jax.grad(loss_fn))(weights, tokens)
print(jax.tree.map(jnp.shape, grads))
