import jax
import jax.numpy as jnp
import equinox as eqx

# the MLP was written for MNIST; the data set is now CIFAR-10
model = eqx.nn.MLP(in_size=28 * 28, out_size=10, width_size=128, depth=2,
                   key=jax.random.key(0))


@eqx.filter_jit
def predict(model, images):
    return jax.vmap(model)(images.reshape(images.shape[0], -1))


print(predict(model, jnp.ones((16, 32, 32, 3))).shape)
