import jax
import jax.numpy as jnp


def cross_attention(decoder_h, encoder_h):
    # queries from the decoder, keys from the encoder ... and, by a slip, values from the decoder
    q, k, v = decoder_h, encoder_h, decoder_h
    return jax.nn.dot_product_attention(q, k, v)


decoder_h = jnp.ones((4, 20, 8, 64))   # (batch, target length, heads, head dim)
encoder_h = jnp.ones((4, 50, 8, 64))   # (batch, source length, heads, head dim)
print(jax.jit(cross_attention)(decoder_h, encoder_h).shape)
