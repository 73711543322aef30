import jax
import jax.numpy as jnp
from jax import export


@jax.jit
def normalize(x):
    return (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-6)


# batch statistics need at least two rows
(b,) = export.symbolic_shape("b", constraints=("b > 1",))
exp = export.export(normalize)(jax.ShapeDtypeStruct((b, 32), jnp.float32))
print(exp.out_avals)
