import jax
import jax.numpy as jnp


data = jax.random.normal(jax.random.key(0), (1280, 1024, 1024), jnp.float32)
print("dataset", data.nbytes / 2**30, "GiB")
folds = jnp.split(data, 5)
splits = []
for k in range(5):
    train = jnp.concatenate(folds[:k] + folds[k + 1:])
    splits.append((train, folds[k]))
    print("fold", k, train.shape)
