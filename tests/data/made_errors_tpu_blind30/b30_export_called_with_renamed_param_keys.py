import jax
import jax.numpy as jnp

from jax import export

def dense(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])

params = {"w": jnp.ones((128, 64)), "b": jnp.zeros((64,))}
exported = export.export(jax.jit(dense))(params, jax.ShapeDtypeStruct((32, 128), jnp.float32))
restored = {"kernel": params["w"], "bias": params["b"]}
out = exported.call(restored, jnp.ones((32, 128)))
print(out.shape)
