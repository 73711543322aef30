import jax
import jax.numpy as jnp
from jax import export


def predict(params, x):
    return jnp.tanh(x @ params["w"] + params["b"])


params = {"w": jnp.ones((16, 4)), "b": jnp.zeros(4)}
exp = export.export(jax.jit(predict))(params, jax.ShapeDtypeStruct((8, 16), jnp.float32))
blob = exp.serialize()

# the serving side: the weights are baked into the artifact, aren't they?
served = export.deserialize(blob)
print(served.call(jnp.ones((8, 16))))
