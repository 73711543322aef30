import jax
import jax.numpy as jnp


def conv3d(x, w):
    return jax.lax.conv_general_dilated(x, w, (1, 1, 1), "SAME",
                                        dimension_numbers=("NDHWC", "DHWIO", "NDHWC"))

@jax.jit
def segment(volume, w_in, w_out):
    features = jax.nn.relu(conv3d(volume, w_in))
    return jax.nn.sigmoid(conv3d(features, w_out))

ct = jnp.ones((1, 512, 512, 512, 1), jnp.float32)
w_in = jnp.full((3, 3, 3, 1, 32), 0.01, jnp.float32)
w_out = jnp.full((3, 3, 3, 32, 1), 0.01, jnp.float32)
mask = segment(ct, w_in, w_out)
print(mask.shape)
