import jax
import jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P

# the config was written for a data x model mesh; this job only has data parallelism
mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Explicit,))
jax.set_mesh(mesh)


def init_mlp(d_model=512, d_ff=2048):
    return {
        "w_in": jnp.zeros((d_model, d_ff), out_sharding=P(None, "model")),
        "w_out": jnp.zeros((d_ff, d_model), out_sharding=P("model", None)),
    }


params = init_mlp()
print(jax.tree.map(lambda a: a.sharding.spec, params))
