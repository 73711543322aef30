import jax
import jax.numpy as jnp

import csv
import io

rows = csv.reader(io.StringIO("t,temp\n0,21.5\n1,\n2,22.0\n"))
next(rows)
# empty cells become None for the readings the sensor missed
readings = [float(v) if v else None for _, v in rows]
temps = jnp.array(readings)
print(temps.mean())
