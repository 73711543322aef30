import jax
import jax.numpy as jnp
import numpy as np
from jax import export

def host_tokenize(x):
    return np.round(np.asarray(x) * 100).astype(np.int32)

def model(x):
    ids = jax.pure_callback(host_tokenize, jax.ShapeDtypeStruct(x.shape, jnp.int32), x)
    return jnp.sum(ids)

exported = export.export(jax.jit(model))(jax.ShapeDtypeStruct((16,), jnp.float32))
print(len(exported.serialize()))
