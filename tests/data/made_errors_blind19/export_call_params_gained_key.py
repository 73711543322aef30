import jax
import jax.numpy as jnp
from jax import export


def predict(params, x):
    return x @ params["w"] + params["b"]


params = {"w": jnp.ones((4, 2)), "b": jnp.zeros(2)}
served = export.deserialize(export.export(jax.jit(predict))(params, jnp.ones((3, 4))).serialize())

# the training code since added a temperature to the parameters
params = {**params, "temperature": jnp.ones(())}
print(served.call(params, jnp.ones((3, 4))))
