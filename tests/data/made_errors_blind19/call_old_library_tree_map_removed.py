import jax
import jax.numpy as jnp

import emalib

params = {"w": jnp.ones((4, 4)), "b": jnp.zeros(4)}
ema = emalib.init(params)
for step in range(3):
    params = jax.tree.map(lambda p: p * 0.99, params)
    ema = emalib.update(ema, params, decay=0.999)
print(ema["b"])
