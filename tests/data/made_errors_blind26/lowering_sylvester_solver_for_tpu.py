import jax
import jax.numpy as jnp
from jax.scipy.linalg import solve_sylvester


@jax.jit
def controller_gain(a, b, c):
    # the Sylvester equation A X + X B = C of the observer design
    return solve_sylvester(a, b, c)


a, b, c = jnp.eye(16) * 2.0, jnp.eye(16) * 3.0, jnp.ones((16, 16))
lowered = controller_gain.trace(a, b, c).lower(lowering_platforms=("tpu",))
print(lowered.as_text()[:200])
