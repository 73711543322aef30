import jax
import jax.numpy as jnp


@jax.jit
def pad_to_bucket(tokens, bucket_len):
    # pad every batch of token ids up to the length of its bucket
    return jnp.pad(tokens, ((0, 0), (0, bucket_len - tokens.shape[1])))


for bucket_len in (128, 256):
    print(pad_to_bucket(jnp.ones((8, 100), jnp.int32), bucket_len).shape)
