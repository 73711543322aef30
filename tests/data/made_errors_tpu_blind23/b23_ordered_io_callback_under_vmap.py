import jax
import jax.numpy as jnp

from jax.experimental import io_callback

def log_example(row):
    print("example mean", row.mean())
    return row.sum()

def per_example_loss(x):
    return io_callback(log_example, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True)

losses = jax.vmap(per_example_loss)(jnp.ones((4, 128), jnp.float32))
print(losses)
