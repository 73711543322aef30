import jax
import jax.numpy as jnp

import numpy as np
import datalib

rng = np.random.default_rng(0)
examples = [rng.normal(size=(n, 4)).astype(np.float32) for n in (7, 7, 5, 7)]
for batch in datalib.batches(examples, batch_size=4):
    print(batch.shape)
