import jax
import jax.numpy as jnp

config = {"lr": 1e-2, "inner_steps": 1e3}  # as the YAML loader parsed it


@jax.jit
def fit_inner(w, x, y):
    def body(_, w):
        return w - config["lr"] * jax.grad(lambda w: ((x @ w - y) ** 2).mean())(w)

    return jax.lax.fori_loop(0, config["inner_steps"], body, w)


print(fit_inner(jnp.zeros(4), jnp.ones((16, 4)), jnp.ones(16)))
