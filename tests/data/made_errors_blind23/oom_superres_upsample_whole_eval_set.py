import jax
import jax.numpy as jnp


@jax.jit
def bicubic_baseline(low_res):
    # the x32 super-resolution baseline, on the whole evaluation set at once
    n, h, w, c = low_res.shape
    return jax.image.resize(low_res, (n, h * 32, w * 32, c), method="bicubic")


low_res = jnp.zeros((64, 512, 512, 3))
high_res = bicubic_baseline(low_res)
print(high_res[0, :2, :2, 0])
