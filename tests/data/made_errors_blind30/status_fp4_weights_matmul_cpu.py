import jax
import jax.numpy as jnp


@jax.jit
def fp4_linear(x, w_fp4, scale):
    # weights stored as float4 (e2m1) with one scale per output column
    return jax.lax.dot(x.astype(jnp.float4_e2m1fn), w_fp4,
                       preferred_element_type=jnp.float32) * scale


w = (jnp.ones((512, 128)) * 0.5).astype(jnp.float4_e2m1fn)
print(fp4_linear(jnp.ones((8, 512)), w, jnp.ones(128)).shape)
