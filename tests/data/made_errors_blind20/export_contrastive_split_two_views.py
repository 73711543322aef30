import jax
import jax.numpy as jnp
from jax import export


def contrastive_logits(embeddings):
    # the batch holds two augmented views of each image, one after the other
    view_a, view_b = jnp.split(embeddings, 2, axis=0)
    return view_a @ view_b.T


(b,) = export.symbolic_shape("b")
exp = export.export(jax.jit(contrastive_logits))(jax.ShapeDtypeStruct((b, 128), jnp.float32))
print(exp.in_avals)
