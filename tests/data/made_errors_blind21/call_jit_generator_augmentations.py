import jax
import jax.numpy as jnp


@jax.jit
def augmentations(image):
    # every view the contrastive loss compares
    yield image
    yield jnp.flip(image, axis=1)
    yield jnp.rot90(image)


for view in augmentations(jnp.ones((32, 32, 3))):
    print(view.shape)
