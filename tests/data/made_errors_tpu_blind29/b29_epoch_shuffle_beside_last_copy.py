import jax
import jax.numpy as jnp


train_x = jnp.zeros((24576, 256, 256), jnp.float32)
shuffled = train_x
for epoch in range(3):
    perm = jax.random.permutation(jax.random.key(epoch), train_x.shape[0])
    shuffled = train_x[perm]
    print("epoch", epoch, "shuffled copy", shuffled.nbytes / 2**30, "GiB")
