import jax
import jax.numpy as jnp


images = jnp.ones((64, 512, 512, 3), jnp.float32)
thumbs = jax.image.resize(images, (224, 224), method="bilinear")
print(thumbs.shape)
