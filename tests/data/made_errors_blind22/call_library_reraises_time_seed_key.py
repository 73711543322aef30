import jax
import jax.numpy as jnp
import time

import expkit

# a fresh seed for every run of the sweep
run = expkit.start_run(seed=time.time())
print(run.key)
