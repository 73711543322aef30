"""A device mesh asking for more devices than the process sees.

JAX lays a mesh's shape over the devices present and refuses where their count does not
fit, in the words of whichever helper built the mesh (JAX 0.10.2's own):

* ``Number of devices 1 must equal the product of mesh_shape (1, 8)``
  (``jax.experimental.mesh_utils.create_device_mesh`` and the hybrid mesh a model's runner
  builds with it);
* ``Number of devices 1 must be >= the product of mesh_shape (2, 4)`` (``jax.make_mesh``);
* NumPy's ``cannot reshape array of size 2 into shape (1,64)`` where the code line before it
  reshapes the device list (``np.array(jax.devices()).reshape(shape)``: a mesh built by
  hand, as orbax rebuilds a saved sharding);
* ``compiling computation that requires 8 logical devices, but only 1 XLA devices are
  available`` (a pmap over more devices than the backend has; jax 0.1's "requires 2
  replicas").

Kind :attr:`~.record.Family.SHARDING`: the arrays cannot be laid out as the program asks.
The mesh is most often the program's or the library's fixed layout (a model written for
eight chips); the fix is the devices it was written for -- more, or larger ones -- or a mesh
of the devices there are, where the model still fits them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from math import prod

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind, jax_message
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)
# How far before NumPy's refusal the code line that reshaped the devices is looked for.
_CODE_BEFORE = 3000


def _mesh_devices(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["lc_need"]:
        yield _computation_devices(log, m)
        return
    if m["md_size"]:
        window = (max(0, m.start() - _CODE_BEFORE), m.start())
        reshaped = [found.group() for found in _RE.reshape_line.finditer(log.text, *window)]
        if not reshaped or not _RE.devices.search(reshaped[-1]):
            return  # an array of something else than the devices
        have, shape_said = int(m["md_size"]), m["md_into"]
    else:
        have, shape_said = int(m["md_count"]), m["md_shape"]
    need = prod(int(n) for n in re.findall(r"\d+", shape_said))
    if need <= have and m["md_rel"] != "equal":
        return  # enough devices: another sentence than the refusal
    words = {"have": have, "need": need, "shape": f"({shape_said})"}
    fixes = [
        (AdviceKind.BIGGER_DEVICE, _TEXT.more_devices.format(**words)),
        (AdviceKind.MESH_AXIS, _TEXT.smaller_mesh.format(**words)),
    ]
    yield _KIND.failure(log, m.start(), op="mesh", fixes=fixes)


def _computation_devices(log: Log, m: re.Match[str]) -> Failure:
    """A computation compiled for more devices than the backend has (a pmap's replicas)."""
    words = {"need": m["lc_need"], "have": m["lc_have"]}
    named = _RE.primitive.search(log.before_on_line(m.start()))
    fixes = [
        (AdviceKind.BIGGER_DEVICE, _TEXT.more_replicas.format(**words)),
        (AdviceKind.MESH_AXIS, _TEXT.fewer_replicas.format(**words)),
    ]
    return _KIND.failure(log, m.start(), op=named["primitive"] if named else "devices", fixes=fixes)


_KIND = Kind(Family.SHARDING, Reason.SHARDING, jax_message)
RECOGNISER = Recogniser(Family.SHARDING, _RE.opening, _mesh_devices)
