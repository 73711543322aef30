import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

# the mesh helper copied from the team's older GSPMD code
mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
with jax.set_mesh(mesh):
    w_ffn = jnp.ones((1024, 4096))
    # tensor parallel: split the FFN's hidden units over the model axis
    w_ffn = jax.sharding.reshard(w_ffn, P(None, "model"))
    print(w_ffn.sharding)
