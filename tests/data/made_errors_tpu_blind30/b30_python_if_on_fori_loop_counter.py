import jax
import jax.numpy as jnp


@jax.jit
def leapfrog(q, p, step_size):
    def body(i, state):
        q, p = state
        if i % 2 == 0:
            p = p - 0.5 * step_size * q
        return q + step_size * p, p

    return jax.lax.fori_loop(0, 100, body, (q, p))

print(leapfrog(jnp.ones(1024), jnp.zeros(1024), 0.01)[0][:4])
