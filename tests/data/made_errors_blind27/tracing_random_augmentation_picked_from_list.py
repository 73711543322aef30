import jax
import jax.numpy as jnp

AUGMENTATIONS = [
    lambda x: x,
    lambda x: jnp.flip(x, axis=1),
    lambda x: jnp.rot90(x, axes=(0, 1)),
    lambda x: x * 0.8,
]


@jax.jit
def augment(key, image):
    # RandAugment-style: apply one augmentation drawn at random
    choice = jax.random.randint(key, (), 0, len(AUGMENTATIONS))
    return AUGMENTATIONS[choice](image)


print(augment(jax.random.key(0), jnp.ones((32, 32, 3))).shape)
