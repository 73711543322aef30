import jax
import jax.numpy as jnp


def lu_factor(a):
    # call LAPACK's getrf through the FFI target jaxlib registers, skipping jnp.linalg
    call = jax.ffi.ffi_call("lapack_sgetrf_ffi", jax.ShapeDtypeStruct(a.shape, a.dtype))
    return call(a)


a = jnp.eye(4) + 0.1
lu = jax.jit(lu_factor)(a)
print(lu)
