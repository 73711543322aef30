import jax
import jax.numpy as jnp
import os

import orbax.checkpoint as ocp

path = os.path.abspath("checkpoints/step_1000")
checkpointer = ocp.StandardCheckpointer()
checkpointer.save(path, {"w": jnp.ones((784, 64)), "b": jnp.zeros(64)})
checkpointer.wait_until_finished()

# the model now reads colour images: the first layer is three times wider
abstract = {
    "w": jax.ShapeDtypeStruct((784 * 3, 64), jnp.float32),
    "b": jax.ShapeDtypeStruct((64,), jnp.float32),
}
params = checkpointer.restore(path, abstract)
