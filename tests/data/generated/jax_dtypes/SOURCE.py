# XLA_FLAGS extra: ''; env: {'JAX_ENABLE_X64': '1'}
import jax
import jax.numpy as jnp


@jax.jit
def f(a, b, c, d, e, z):
    return (
        a.astype(jnp.bfloat16) + 1,
        b.astype(jnp.float16) * 3,
        c.astype(jnp.int8) % 5,
        d * 2.0,
        e.astype(jnp.float8_e4m3fn),
        z * 1j,
        jnp.uint4(5),
        b < 1,
        jax.lax.bitcast_convert_type(a, jnp.uint32),
    )


f(jnp.ones(6, jnp.float32), jnp.ones(6), jnp.ones(6, jnp.int32), jnp.ones(6, jnp.float64),
  jnp.ones(6), jnp.ones(3, jnp.complex64))
