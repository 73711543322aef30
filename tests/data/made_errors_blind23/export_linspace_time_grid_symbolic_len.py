import jax
import jax.numpy as jnp
from jax import export


def decay_weighting(events):
    # older events count less: weights from 0.1 to 1 across the window
    weights = jnp.linspace(0.1, 1.0, events.shape[0])
    return (weights[:, None] * events).sum(0)


(n,) = export.symbolic_shape("n")
exp = export.export(jax.jit(decay_weighting))(jax.ShapeDtypeStruct((n, 16), jnp.float32))
print(exp.in_avals)
