# XLA_FLAGS extra: ''; env: {}
import jax
import jax.numpy as jnp


@jax.jit
def loops(xs, n):
    def accumulate(carry, x):
        carry = jnp.sin(carry) + x
        return carry, carry.sum()

    carry, sums = jax.lax.scan(accumulate, jnp.zeros(xs.shape[1:]), xs)
    carry = jax.lax.fori_loop(0, 3, lambda i, c: c * 0.5 + i, carry)
    count, carry = jax.lax.while_loop(
        lambda s: s[0] < n, lambda s: (s[0] + 1, jnp.cos(s[1])), (0, carry)
    )
    carry = jax.lax.cond(count > 2, lambda c: c * 2, lambda c: -c, carry)
    return jax.lax.switch(n % 3, [jnp.tanh, jnp.exp, jnp.abs], carry), sums


loops(jnp.ones((5, 12)), 3)
