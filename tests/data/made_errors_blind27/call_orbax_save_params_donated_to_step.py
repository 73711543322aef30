import jax
import jax.numpy as jnp
import os
import tempfile
from functools import partial

import orbax.checkpoint as ocp


@partial(jax.jit, donate_argnums=0)
def sgd_step(params, x):
    grads = jax.grad(lambda p: jnp.mean((x @ p["w"]) ** 2))(params)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


params = {"w": jnp.ones((16, 4))}
checkpointer = ocp.PyTreeCheckpointer()
ckpt_dir = tempfile.mkdtemp()
snapshot = params
params = sgd_step(params, jnp.ones((8, 16)))
checkpointer.save(os.path.join(ckpt_dir, "step_1"), snapshot)
