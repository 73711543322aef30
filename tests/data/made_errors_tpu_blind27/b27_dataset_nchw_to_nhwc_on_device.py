import jax
import jax.numpy as jnp


train = jnp.zeros((8192, 3, 256, 256), jnp.float32)
val = jnp.zeros((4096, 3, 256, 256), jnp.float32)
test = jnp.zeros((4096, 3, 256, 256), jnp.float32)
print("train", train.nbytes / 2**30, "GiB, val", val.nbytes / 2**30, "GiB")
train = jnp.transpose(train, (0, 2, 3, 1))
val = jnp.transpose(val, (0, 2, 3, 1))
print(train.shape)
