"""NumPy's parameters that srcad's rules hold at only some constant values, the defaults among
them: a call writing one out (``np.linalg.pinv(a, hermitian=False)``) is the call without it,
and is accepted; another constant is refused at the user's line, a value known only when the
code runs is checked then (``fixed=`` in :mod:`srcad.rules.registry`). NumPy's ufuncs take
their keywords (``out=None``, ``where=True``, ...) so without a line here
(:data:`srcad.rules.registry.UFUNC_FIXED`). One line per function; why the others are
refused is said beside each.

Imports NumPy, :mod:`.registry` and the rule modules whose rules it extends (they come
first, complex forms included).
"""

from __future__ import annotations

import numpy as np

from . import numpy as _numpy  # noqa: F401  (the rules extended here: registered first)
from . import numpy_complex_linalg as _complex_linalg  # noqa: F401
from . import numpy_matrices as _matrices  # noqa: F401
from . import numpy_more as _more  # noqa: F401
from . import numpy_second as _second  # noqa: F401
from .registry import accept

# ---------------------------------------------------------------- linear algebra
# the pseudo-inverse's derivative holds at a constant rank: a cut-off (rcond, rtol) of one's
# own may change it (rtol=None is NumPy's machine-precision cut-off, as the default's);
# hermitian=True reads one triangle of a (another derivative off symmetric matrices)
accept(np.linalg.pinv, rcond=(None,), hermitian=(False,), rtol=(None,))
accept(np.linalg.svd, hermitian=(False,))

# ---------------------------------------------------------------- making arrays
accept(np.array, ndmax=(0,), like=(None,))
accept(np.asarray, device=(None, "cpu"), copy=(None, True, False), like=(None,))
# retstep=True returns (samples, step): another result
accept(np.linspace, retstep=(False,), device=(None, "cpu"))

# ---------------------------------------------------------------- out=None written out
# (out= given is refused before, saying to assign the result)
for _fn in (np.clip, np.cumsum, np.cumprod, np.trace, np.dot, np.outer, np.einsum,
            np.nancumsum, np.nancumprod, np.compress, np.fft.fft, np.fft.ifft, np.fft.fftn,
            np.fft.ifftn, np.fft.fft2, np.fft.ifft2, np.fft.rfft, np.fft.rfftn, np.fft.rfft2,
            np.fft.irfft, np.fft.irfftn, np.fft.irfft2):
    accept(_fn, out=(None,))

# ---------------------------------------------------------------- joining, views
# (a dtype or a casting other than the defaults converts the values: refused)
for _fn in (np.concatenate, np.stack):
    accept(_fn, out=(None,), dtype=(None,), casting=("same_kind",))
for _fn in (np.hstack, np.vstack) + ((np.row_stack,) if hasattr(np, "row_stack") else ()):
    accept(_fn, dtype=(None,), casting=("same_kind",))
for _fn in (np.copy, np.broadcast_to, np.broadcast_arrays):
    accept(_fn, subok=(False,))
# generalised ufuncs: keepdims=True keeps the reduced axis (another shape, not written)
for _fn in (np.matmul, np.vecdot, getattr(np, "matvec", None), getattr(np, "vecmat", None)):
    if _fn is not None:
        accept(_fn, keepdims=(False,))

# ---------------------------------------------------------------- selection, order, statistics
# mode="wrap" or "clip" reads other elements than the indices name (the rule's scatter does not)
accept(np.take, out=(None,), mode=("raise",))
accept(np.sort, stable=(None,))
# returned=True returns (average, sum of weights): another result
accept(np.average, returned=(False,))
# overwrite_input=True lets NumPy reorder a in place (a write srcad would not see); weights
# (NumPy >= 2.0, the inverted-cdf method only) have no derivative written
for _fn in (np.quantile, np.percentile, np.nanquantile, np.nanpercentile):
    accept(_fn, overwrite_input=(False,), weights=(None,))
for _fn in (np.median, np.nanmedian):
    accept(_fn, overwrite_input=(False,))
# a period makes x's slope that of the periodic extension (not written)
accept(np.interp, period=(None,))
# values put at the ends have a gradient not written
accept(np.ediff1d, to_end=(None,), to_begin=(None,))
if hasattr(np, "cumulative_sum"):  # NumPy >= 2.1: include_initial=True prepends a value
    accept(np.cumulative_sum, out=(None,), include_initial=(False,))
    accept(np.cumulative_prod, out=(None,), include_initial=(False,))
