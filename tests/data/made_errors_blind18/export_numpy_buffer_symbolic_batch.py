import jax
import jax.numpy as jnp
import numpy as np
from jax import export


def predict(x):
    bias = np.zeros((x.shape[0], 1), np.float32)
    return jnp.tanh(x) + bias


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(predict))(jax.ShapeDtypeStruct((b, 4), jnp.float32))
print(exp.in_avals)
