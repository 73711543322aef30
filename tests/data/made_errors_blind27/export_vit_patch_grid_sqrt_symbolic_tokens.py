import jax
import jax.numpy as jnp
import math

from jax import export


def tokens_to_grid(tokens):
    # ViT feature map for the segmentation head: tokens back onto their square grid
    batch, n_tokens, dim = tokens.shape
    side = int(math.sqrt(n_tokens))
    return tokens.reshape(batch, side, side, dim)


spec = jax.ShapeDtypeStruct(export.symbolic_shape("b, n, 768"), jnp.float32)
exported = export.export(jax.jit(tokens_to_grid))(spec)
print(exported.out_avals)
