import jax
import jax.numpy as jnp


@jax.jit
def bilinear_scores(x, w, y):
    return jnp.einsum("bi,ijk,bj->bk", x, w, y)

x = jnp.ones((32768, 512), jnp.float32)
y = jnp.ones((32768, 512), jnp.float32)
w = jnp.ones((512, 512, 256), jnp.float32) * 0.01
out = bilinear_scores(x, w, y)
print(out.shape)
