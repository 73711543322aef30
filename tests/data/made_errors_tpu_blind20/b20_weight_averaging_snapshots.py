import jax
import jax.numpy as jnp


@jax.jit
def train_epoch(params):
    return jax.tree.map(lambda w: w * 0.999 + 1e-4, params)

params = {"w": jnp.ones((24, 8192, 4096), jnp.float32)}
snapshots = []
for epoch in range(8):
    params = train_epoch(params)
    snapshots.append(params)
    jax.block_until_ready(params)
    print("epoch", epoch, "snapshots kept", len(snapshots))
