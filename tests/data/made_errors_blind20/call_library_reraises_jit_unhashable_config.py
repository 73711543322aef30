import jax
import jax.numpy as jnp
import trainlib

config = {"lr": 1e-3, "warmup": 100}
params = jnp.ones(8)
params = trainlib.fit(params, jnp.ones((16, 8)), config)
