import jax
import jax.numpy as jnp


@jax.jit
def eval_step(w, x, y):
    pred = x @ w
    return {"loss": jnp.mean((pred - y) ** 2), "metric": "mse"}


for epoch in range(2):
    out = eval_step(jnp.ones(4), jnp.ones((8, 4)), jnp.ones(8))
    print(epoch, out["metric"], out["loss"])
