import os
import subprocess
import sys

import jax
import jax.numpy as jnp
from jax import export
from jax.sharding import NamedSharding, PartitionSpec as P

if len(sys.argv) == 1:
    # export on the training pod (eight devices) ...
    mesh = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
    spec = NamedSharding(mesh, P("data"))
    exp = export.export(jax.jit(lambda x: jnp.tanh(x) * 2, in_shardings=spec, out_shardings=spec))(
        jax.ShapeDtypeStruct((64,), jnp.float32))
    open("model.bin", "wb").write(exp.serialize())
    env = dict(os.environ, XLA_FLAGS="")
    sys.exit(subprocess.run([sys.executable, __file__, "serve"], env=env).returncode)

# ... and serve it on a one-device host
exp = export.deserialize(bytearray(open("model.bin", "rb").read()))
print(exp.call(jnp.ones((64,))))
