import jax
import jax.numpy as jnp


def ema_of_params(params, num_updates):
    def body(avg):
        # one more step of the moving average toward the live weights
        return jax.tree.map(lambda a, p: 0.99 * a + 0.01 * p, avg, params)

    return jax.lax.fori_loop(0, num_updates, body, params)


print(jax.jit(ema_of_params, static_argnums=1)({"w": jnp.ones(4)}, 10))
