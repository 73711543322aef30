import jax
import jax.numpy as jnp


@jax.jit
def quantized_dense(x, w_int4, scale):
    # int4 activations against int4 weights, accumulated in int32
    acc = jnp.dot(x, w_int4, preferred_element_type=jnp.int32)
    return acc.astype(jnp.float32) * scale


x = jnp.ones((4, 64), jnp.int4)
w = jnp.ones((64, 32), jnp.int4)
print(quantized_dense(x, w, 0.01))
