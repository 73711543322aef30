# XLA_FLAGS extra: '--xla_dump_hlo_pass_re=.*'; env: {}
import jax
import jax.numpy as jnp


@jax.jit
def small(x, y):
    return jnp.exp(x * y - 2.0).sum(axis=1)


small(jnp.ones((8, 16)), jnp.ones((8, 16)))
