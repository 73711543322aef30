import jax
import jax.numpy as jnp


def newton_sqrt(a, tol=1e-6, max_iter=50):
    def keep_going(state):
        x, i = state
        return jnp.abs(x * x - a) > tol and i < max_iter

    def update(state):
        x, i = state
        return 0.5 * (x + a / x), i + 1

    x, _ = jax.lax.while_loop(keep_going, update, (a, 0))
    return x


print(jax.vmap(newton_sqrt)(jnp.array([2.0, 9.0, 10.0])))
