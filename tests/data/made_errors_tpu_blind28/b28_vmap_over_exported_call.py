import jax
import jax.numpy as jnp

from jax import export

def score(w, x):
    return jax.nn.sigmoid(x @ w)

exported = export.export(jax.jit(score))(jax.ShapeDtypeStruct((128,), jnp.float32),
                                         jax.ShapeDtypeStruct((32, 128), jnp.float32))
ensemble_w = jnp.ones((8, 128))
scores = jax.vmap(exported.call, in_axes=(0, None))(ensemble_w, jnp.ones((32, 128)))
print(scores.shape)
