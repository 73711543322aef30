import jax
import jax.numpy as jnp
from jax import export

exp = export.export(jax.jit(jnp.tanh))(jax.ShapeDtypeStruct((4, 8), jnp.float32))
with open("scorer.jaxexport", "wb") as f:
    f.write(exp.serialize())

# the serving process loads the artifact
with open("scorer.jaxexport", encoding="latin-1") as f:
    blob = f.read()
served = export.deserialize(blob)
print(served.call(jnp.ones((4, 8))))
