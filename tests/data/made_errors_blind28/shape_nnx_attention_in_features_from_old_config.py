import jax
import jax.numpy as jnp
from flax import nnx


class Encoder(nnx.Module):
    def __init__(self, rngs):
        # sized from the old config; the tokenizer's embeddings are now 768 wide
        self.attn = nnx.MultiHeadAttention(num_heads=8, in_features=512, decode=False,
                                           rngs=rngs)

    def __call__(self, x):
        return self.attn(x)


model = Encoder(nnx.Rngs(0))
print(model(jnp.ones((2, 10, 768))).shape)
