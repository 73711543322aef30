import jax
import jax.numpy as jnp
from jax import export


def recurrent_penalty(w_rec):
    # keep the recurrent weights near the edge of chaos: spectral radius close to 1
    radius = jnp.abs(jnp.linalg.eigvals(w_rec)).max()
    return (radius - 1.0) ** 2


# checked before launching the job on the TPU pod
grad_fn = jax.jit(jax.grad(recurrent_penalty))
exp = export.export(grad_fn, platforms=["tpu"])(jax.ShapeDtypeStruct((128, 128), jnp.float32))
print(exp.out_avals)
