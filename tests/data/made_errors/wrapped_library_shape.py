import jax
import jax.numpy as jnp

import modellib

params = {"w": jnp.ones((5, 16))}
modellib.apply(params, jnp.ones((8, 4)))
