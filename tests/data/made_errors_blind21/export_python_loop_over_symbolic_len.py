import jax
import jax.numpy as jnp
from jax import export


def running_max(scores):
    # best score so far at every position
    out = [scores[0]]
    for t in range(1, scores.shape[0]):
        out.append(jnp.maximum(out[-1], scores[t]))
    return jnp.stack(out)


(n,) = export.symbolic_shape("n")
exp = export.export(jax.jit(running_max))(jax.ShapeDtypeStruct((n,), jnp.float32))
print(exp.out_avals)
