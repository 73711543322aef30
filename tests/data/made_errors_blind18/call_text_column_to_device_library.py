import jax
import jax.numpy as jnp

import loaderlib

batch = {
    "input_ids": [[101, 2023, 102], [101, 2003, 102]],
    "label": [0, 1],
    "text": ["a cat", "a dog"],
}
device_batch = loaderlib.to_device(batch)
print({k: v.shape for k, v in device_batch.items()})
