import jax
import jax.numpy as jnp
import numpy as np
from jax import export


def fused_rms_norm(x, eps=1e-6):
    # the team's C++ kernel, registered with jax.ffi at import in production
    return jax.ffi.ffi_call("rms_norm_fwd", jax.ShapeDtypeStruct(x.shape, x.dtype))(
        x, eps=np.float32(eps)
    )


@jax.jit
def block(x, w):
    return fused_rms_norm(x) @ w


exp = export.export(block)(
    jax.ShapeDtypeStruct((16, 512), jnp.float32), jax.ShapeDtypeStruct((512, 512), jnp.float32)
)
open("block.bin", "wb").write(exp.serialize())
