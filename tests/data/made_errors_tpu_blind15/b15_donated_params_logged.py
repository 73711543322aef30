import jax
import jax.numpy as jnp

from functools import partial

@partial(jax.jit, donate_argnums=0)
def sgd_step(params, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"]) ** 2))(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

params = {"w": jnp.ones((512, 512))}
x = jnp.ones((64, 512))
new_params = sgd_step(params, x)
print("weight norm before step", jnp.linalg.norm(params["w"]))
