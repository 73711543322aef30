import jax
import jax.numpy as jnp
import numpy as np
import collections

def host_batches():
    while True:
        yield np.zeros((256, 1024, 1024), np.float32)

prefetched = collections.deque()
batches = host_batches()
for _ in range(24):
    prefetched.append(jax.device_put(next(batches)))
    print("batches on device", len(prefetched))
