import jax
import jax.numpy as jnp


@jax.jit
def random_crop(key, wave, crop_seconds, sample_rate=16000):
    # speech augmentation: a crop of a random duration at a random offset
    crop_len = (crop_seconds * sample_rate).astype(jnp.int32)
    start = jax.random.randint(key, (), 0, wave.shape[0] - crop_len)
    return jax.lax.dynamic_slice(wave, (start,), (crop_len,))


print(random_crop(jax.random.key(0), jnp.ones(160_000), jnp.float32(2.0)).shape)
