import jax
import jax.numpy as jnp


def clip_grads(grads, max_value=1.0):
    # elementwise clipping of the bf16 mixed-precision grads
    lo, hi = jnp.float32(-max_value), jnp.float32(max_value)
    return jax.tree.map(lambda g: jax.lax.clamp(lo, g, hi), grads)


grads = {"w": jnp.ones((64, 64), jnp.bfloat16), "b": jnp.ones(64, jnp.bfloat16)}
print(jax.jit(clip_grads)(grads)["b"][:4])
