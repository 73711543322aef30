import jax
import jax.numpy as jnp

MEAN = jnp.array([0.485, 0.456, 0.406])
STD = jnp.array([0.229, 0.224, 0.225])


@jax.jit
def normalize(images):
    # images come from a PyTorch data loader: (batch, channels, height, width)
    return (images - MEAN) / STD


print(normalize(jnp.ones((16, 3, 224, 224))).shape)
