import jax
import jax.numpy as jnp


@jax.jit
def init_member(key):
    return {"w": jax.random.normal(key, (16384, 16384)) * 0.01}

train_x = jnp.zeros((28672, 256, 256), jnp.float32)
members = [init_member(jax.random.key(i)) for i in range(5)]
print("train_x", train_x.nbytes / 2**30, "GiB, members", len(members), "GiB")
ensemble = jax.tree.map(lambda *ws: jnp.stack(ws), *members)
print(ensemble["w"].shape)
