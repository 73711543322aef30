import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


@jax.jit
def whiten(cov, feats):
    # the covariance was accumulated with its rows split over the devices
    chol = jnp.linalg.cholesky(cov)
    return jax.scipy.linalg.solve_triangular(chol, feats.T, lower=True).T


cov = jax.device_put(jnp.eye(512) * 2.0, P("data", None))
feats = jax.device_put(jnp.ones((1024, 512)), P("data", None))
print(whiten(cov, feats).shape)
