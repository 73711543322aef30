import jax
import jax.numpy as jnp


def block(h, w):
    w_in, w_out = w
    return h + jax.nn.gelu(h @ w_in) @ w_out

remat_block = jax.checkpoint(block, policy=jax.checkpoint_policies.everything_saveable)

def loss_fn(weights, tokens):
    h, _ = jax.lax.scan(lambda h, w: (remat_block(h, w), None), tokens, weights)
    return jnp.mean(h.astype(jnp.float32) ** 2)

layers, d_model, d_ff = 32, 1024, 4096
weights = (jnp.full((layers, d_model, d_ff), 0.01, jnp.bfloat16),
           jnp.full((layers, d_ff, d_model), 0.01, jnp.bfloat16))
tokens = jnp.ones((16384, d_model), jnp.bfloat16)
grads = jax.jit(jax.grad(loss_fn))(weights, tokens)
print(jax.tree.map(jnp.shape, grads))
