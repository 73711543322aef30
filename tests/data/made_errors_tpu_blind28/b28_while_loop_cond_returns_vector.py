import jax
import jax.numpy as jnp


@jax.jit
def newton_sqrt(a):
    def cond(state):
        x, step = state
        return jnp.abs(x * x - a) > 1e-6

    def body(state):
        x, step = state
        return 0.5 * (x + a / x), step + 1

    x, steps = jax.lax.while_loop(cond, body, (a, 0))
    return x, steps

print(newton_sqrt(jnp.arange(1.0, 257.0)))
