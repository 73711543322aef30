import jax
import jax.numpy as jnp
import equinox as eqx


class Encoder(eqx.Module):
    conv: eqx.nn.Conv2d
    head: eqx.nn.Linear

    def __init__(self, key):
        k1, k2 = jax.random.split(key)
        self.conv = eqx.nn.Conv2d(3, 16, kernel_size=3, padding=1, key=k1)
        self.head = eqx.nn.Linear(16, 10, key=k2)

    def __call__(self, image):
        h = jax.nn.relu(self.conv(image))
        return self.head(h.mean(axis=(1, 2)))


@eqx.filter_jit
def predict(model, images):
    return jax.vmap(model)(images)


model = Encoder(jax.random.key(0))
images = jnp.ones((4, 32, 32, 3))  # from the image loader, channels last
logits = predict(model, images)
