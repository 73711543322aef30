import sys

from IPython.core.interactiveshell import InteractiveShell

CELL = '''import jax
import jax.numpy as jnp


@jax.jit
def clip_loudness(waveform):
    # drop the leading and trailing silence before measuring the clip
    voiced = jnp.trim_zeros(waveform)
    return 10 * jnp.log10(jnp.mean(voiced**2))


clip = jnp.zeros(16000).at[4000:12000].set(0.1)
print(clip_loudness(clip))
'''
shell = InteractiveShell.instance()
shell.run_line_magic("colors", "NoColor")
result = shell.run_cell(CELL)
sys.exit(0 if result.success else 1)
