import jax
import jax.numpy as jnp

import modellib

def loss(x):
    return x * 2 if x.mean() > 0 else x

modellib.train_step(loss, jnp.ones(3))
