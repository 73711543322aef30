import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def forward(batch):
    x = batch["x"]
    if "mask" in batch:
        x = x * batch["mask"]
    return x.sum()


for step in range(4):
    batch = {"x": jnp.ones((8, 4))}
    if step % 2:
        batch["mask"] = jnp.ones((8, 4))
    forward(batch)
