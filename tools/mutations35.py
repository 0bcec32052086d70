"""Session 35's mutations (importing this module adds these to ``mutations.MUTATIONS``), aimed
at the casts of ``y op= v`` (``srcad.frontend.augmented_casts``) and the dead-code facts of
arrays that may hold booleans or objects (``srcad.rules.raising._other_loops``):

- ``item_dtypes``: ``ys[k] op= v`` of a list, dict or nested-list item that is an int, bool,
  float32 or float16 array (NumPy raises for a float into an int item, keeps a float32 item
  float32); ``z op= s`` of a float32, float16 or complex64 array by a float64 NumPy value,
  read downstream (the values must be the plain run's). The narrow values read downstream
  are of constants: a differentiated value rounded to float16 or float32 has srcad's
  ``astype`` derivative (one), which central differences, seeing the rounding's flat steps,
  cannot confirm (session 35's first run: a WRONG of the template, not of srcad);
- ``other_dtypes``: a discarded ``-a``, ``a - a``, ``np.sign(a)`` of a boolean array,
  ``np.sin(a)``, ``np.exp(a)`` of an object array, at the top and in a nested function
  (NumPy raises; the derivatives must too).

Imports: tools/mutations.
"""

from __future__ import annotations

import mutations
from mutations import _templated, is_num

item_dtypes = _templated("item_dtypes", is_num, [
    "_z = [{np}.zeros(2, dtype=int) for _j in range(2)]\n_z[0] += {np}.sum({v})\n"
    "{v} = {v} + _z[0][0]",
    "_z = {{'a': {np}.ones(2, dtype=int), 'b': 1.0}}\n_z['a'] *= 0.5\n{v} = {v} * _z['b']",
    "_z = [[{np}.ones(2, dtype=int) for _j in range(2)] for _k in range(2)]\n"
    "_z[1][0] /= 2\n{v} = {v} * 1.5",
    "_z = []\nfor _j in range(2):\n    _z.append({np}.zeros(2, dtype=bool))\n"
    "_z[1] -= {np}.sum({v}) > 0.0\n{v} = {v} * 2.0",
    "_z = [{np}.ones(2, dtype={np}.float32) for _j in range(2)]\n"
    "_z[1] *= {np}.float64(1.7)\n{v} = {v} * {np}.float64(_z[1][0])",
    "_z = {{'a': {np}.ones(2, dtype={np}.float16)}}\n_z['a'] += {np}.float64(0.3)\n"
    "{v} = {v} * {np}.float64(_z['a'][1])",
    "_z = {np}.ones(2, dtype={np}.float32)\n_z -= {np}.float64(0.7) * 1.1\n"
    "{v} = {v} * {np}.float64(_z[0])",
    "_z = {np}.ones(2, dtype={np}.float32)\n_z -= {np}.sum({v}) * 0.7\n"
    "{v} = {v} + 0.0 * {np}.float64(_z[0])",
    "_z = {np}.ones(2, dtype={np}.complex64)\n_z *= {np}.float64(1.3)\n"
    "{v} = {v} * {np}.real(_z[1])",
    "_z = {np}.ones(3, dtype={np}.float16) * 1.3\n_z /= {np}.float64(2.1)\n"
    "{v} = {v} * {np}.float64(_z[2])",
    "_z = [{np}.ones(2) for _j in range(2)]\n_z[0] += {np}.sum({v})\n{v} = {v} + _z[0][1]",
])

other_dtypes = _templated("other_dtypes", is_num, [
    "_b = {np}.array([True, False])\n_m = -_b\n{v} = {v} * 1.5",
    "_b = {np}.atleast_1d({v}) > 0.0\n_m = _b - _b\n{v} = {v} * 1.5",
    "_b = {np}.array([True, False])\n_m = {np}.sign(_b)\n{v} = {v} * 1.5",
    "_o = {np}.array([1, 2], dtype=object)\n_m = {np}.sin(_o)\n{v} = {v} * 1.5",
    "def _h(_a, _x):\n    _m = {np}.exp(_a)\n    return _x * 2.0\n"
    "{v} = _h({np}.array([1, 2], dtype=object), {v})",
    "def _h(_a, _x):\n    _m = -_a\n    return _x * 2.0\n"
    "{v} = _h({np}.arange(3), {v}) + _h({np}.arange(3) > 1, {v})",
    "_i = {np}.arange(3)\n_m = -_i\n{v} = {v} * 1.5",
])

NEW = [item_dtypes, other_dtypes]
if not any(m.__name__ == "item_dtypes" for m in mutations.MUTATIONS):
    mutations.MUTATIONS += NEW
