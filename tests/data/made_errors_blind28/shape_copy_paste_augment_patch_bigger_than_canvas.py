import jax
import jax.numpy as jnp


@jax.jit
def copy_paste(canvas, patch, y, x):
    # copy-paste augmentation: an object cut from one image pasted onto another
    return jax.lax.dynamic_update_slice(canvas, patch, (y, x, 0))


canvas = jnp.zeros((48, 48, 3))  # the low-resolution branch's images
print(copy_paste(canvas, jnp.ones((64, 64, 3)), 4, 4).shape)
