import jax
import jax.numpy as jnp


@jax.jit
def preprocess(images):
    # the backbone expects 224x224 inputs
    images = jax.image.resize(images, (224, 224), method="bilinear")
    mean = jnp.array([0.485, 0.456, 0.406])
    std = jnp.array([0.229, 0.224, 0.225])
    return (images - mean) / std


print(preprocess(jnp.ones((16, 256, 256, 3))).shape)
