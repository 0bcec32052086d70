"""Session 34's mutations (``tools/mutations.py`` holds the first ones, ``tools/mutations31.py``
to ``tools/mutations33.py`` sessions 31 to 33's; importing this module adds these to
``mutations.MUTATIONS``), aimed at session 33's machinery:

- ``written_args`` (``srcad.frontend.written_args``: a function of the module writing into
  the arrays it is given, the caller reading them after; :data:`WRITERS`, added to the
  mutant's module): writes through an item, a view, a transpose, ``+=``, ``-=``, ``out=``,
  ``np.add.at``, a writer calling a writer, a loop calling a writer, a writer in a loop, the
  same array given twice or as two overlapping views, a view given, an alias of the array
  given, a writer reading a global, one that also returns, a copy taken before the call;
- ``aug_dtypes`` (``srcad.frontend.augmented_casts``; ``soundness.augmented_dtype`` before
  session 36): ``y += v``, ``-=``, ``*=``,
  ``/=`` into arrays of each dtype (float16/32/64, int64, bool, complex128) made by the
  mutant; NumPy raises for a float written into an int array (casting ``same_kind``), and
  the derivatives must too (``tools/mutant_checks33``' ``raises``);
- ``shape_raise`` (``srcad.analysis.raise_facts``): a discarded expression that raises for
  some shapes only, in a nested function called with the mutant's value, with two array
  parameters, or through two calls of other shapes; and a complex array or a Python int past
  2**64 given to a ufunc that takes neither;
- ``tree_plans`` (``srcad.tree_jacobians``' plans): the same ``srcad.jacrev``,
  ``jacfwd`` or ``hessian`` of a function of a container called with containers of other
  structures in alternation (a tuple then a list, dict key orders, an extra key, a nested
  dict, then the first again).

Imports: tools/mutations.
"""

from __future__ import annotations

import mutations
from mutations import _templated, is_num

#: the writers ``written_args`` calls, functions of the module (``tools/mutant_programs``
#: adds them to a mutant calling one): srcad lowers a call of a module's function that
#: writes into its arguments (nested ones are refused)
WRITERS = """

_SRCAD_G = _np.ones(2) * 0.5


def _srcad_w_item(_a, _s):
    _a[0] = _a[0] * _s


def _srcad_w_view(_a):
    _b = _a[1:]
    _b *= 1.5


def _srcad_w_iadd(_a, _x):
    _a += _x * 2.0


def _srcad_w_out(_a, _x):
    _np.multiply(_a, _x, out=_a)


def _srcad_w_at(_a, _x):
    _np.add.at(_a, [0, 1, 0], _x)


def _srcad_w_inner(_a, _x):
    _a[1] += _x


def _srcad_w_outer(_a, _x):
    _srcad_w_inner(_a, _x * 2.0)
    _a[0] = _a[1] * _x


def _srcad_w_all(_a, _x):
    _a[:] = _a * _x + 1.0


def _srcad_w_pq(_p, _q):
    _p[0] = _p[0] * 3.0
    return _np.sum(_q)


def _srcad_w_shift(_p, _q):
    _p[0] = _q[1] * 2.0 + _p[0]


def _srcad_w_ret(_a, _x):
    _a[1] = _x ** 2
    return _a[0] + _x


def _srcad_w_sub(_a, _x):
    _a -= _x


def _srcad_w_two(_a, _b, _x):
    _a[0] = _x
    _b[0] = _a[0] * _x


def _srcad_w_loop(_a, _x):
    for _j in range(_a.shape[0]):
        _a[_j] = _a[_j - 1] * _x


def _srcad_w_list(_L, _x):
    _L[0][1] = _x * 3.0


def _srcad_w_branch(_a, _x):
    if _x > 0.0:
        _a[0] = _x
    else:
        _a[1] = -_x


def _srcad_w_global(_a, _x):
    _a[0] = _SRCAD_G[1] * _x + _a[1]


def _srcad_w_t(_a, _x):
    _a.T[0] = _x * _a.T[1]
"""


written_args = _templated("written_args", is_num, [
    "_z = {np}.atleast_1d({v}) * 1.0\n_srcad_w_item(_z, 2.0)\n{v} = {v} + _z.sum()",
    "_z = {np}.ones(3) * {np}.sum({v})\n_srcad_w_view(_z)\n{v} = {v} + _z[2] * _z[0]",
    "_z = {np}.zeros(3)\n_srcad_w_iadd(_z, {np}.sum({v}))\n{v} = {v} * _z[1]",
    "_z = {np}.ones(2) + {np}.sum({v})\n_srcad_w_out(_z, {np}.sum({v}))\n{v} = {v} + _z[0] * 0.5",
    "_z = {np}.zeros(3)\n_srcad_w_at(_z, {np}.sum({v}) * 0.5)\n{v} = {v} + _z[0] * _z[1]",
    "_z = {np}.ones(2)\n_srcad_w_outer(_z, {np}.sum({v}))\n{v} = {v} + _z.sum()",
    "_z = {np}.ones(3)\nfor _j in range(3):\n    _srcad_w_all(_z, {np}.sum({v}) * 0.1 + _j)\n"
    "{v} = {v} + _z[2]",
    "_z = {np}.ones(3) * {np}.sum({v})\n_r = _srcad_w_pq(_z, _z)\n{v} = {v} + _r + _z[0]",
    "_z = {np}.ones(3) * {np}.sum({v})\n_r = _srcad_w_pq(_z[1:], _z[:2])\n{v} = {v} + _r + _z[1]",
    "_z = {np}.arange(1.0, 5.0) * {np}.sum({v})\n_srcad_w_shift(_z[1:], _z[:3])\n"
    "{v} = {v} + _z.sum()",
    "_z = {np}.ones(2)\n_r = _srcad_w_ret(_z, {np}.sum({v}))\n{v} = {v} * _r + _z[1]",
    "_z = {np}.ones(2) * {np}.sum({v})\n_y = _z.copy()\n_srcad_w_sub(_z, 0.5 * {np}.sum({v}))\n"
    "{v} = {v} + _y[0] * _z[1]",
    "_z = {np}.zeros(2)\n_u = {np}.zeros(2)\n_srcad_w_two(_z, _u, {np}.sum({v}))\n"
    "{v} = {v} + _u[0] - _z[0] * 0.5",
    "_z = {np}.zeros(2)\n_srcad_w_two(_z, _z, {np}.sum({v}))\n{v} = {v} + _z[0]",
    "_z = {np}.ones(3)\n_srcad_w_loop(_z, {np}.sum({v}) * 0.5)\n{v} = {v} + _z[2]",
    "_z = [{np}.ones(2), {np}.ones(2)]\n_srcad_w_list(_z, {np}.sum({v}))\n{v} = {v} + _z[0][1]",
    "_z = {np}.zeros(2)\n_srcad_w_branch(_z, {np}.sum({v}))\n{v} = {v} + _z.sum() ** 2",
    "_z = {np}.ones(2) * {np}.sum({v})\n_srcad_w_global(_z, {np}.sum({v}))\n"
    "{v} = {v} + _z[0] * _z[1]",
    "_z = {np}.ones((2, 2)) * {np}.sum({v})\n_srcad_w_t(_z, {np}.sum({v}))\n"
    "{v} = {v} + _z[1, 0] + _z.sum()",
    "_z = {np}.ones(2) * {np}.sum({v})\n_w = _z\n_srcad_w_iadd(_w, 1.0)\n{v} = {v} * _z[0]",
    "_z = {np}.ones(3)\n_srcad_w_item(_z[1:], {np}.sum({v}))\n{v} = {v} + _z[1] * _z.sum()",
    "def _w(_a, _s):\n    _a[0] = _a[0] * _s\n_z = {np}.atleast_1d({v}) * 1.0\n"
    "_w(_z, 2.0)\n{v} = {v} + _z.sum()",
])


aug_dtypes = _templated("aug_dtypes", is_num, [
    "_z = {np}.zeros(3, dtype={np}.int64)\n_z += {v}\n{v} = {v} + {np}.sum(_z)",
    "_z = {np}.zeros(3, dtype={np}.int64)\n_z += 2\n{v} = {v} * {np}.sum(_z)",
    "_z = {np}.ones(3, dtype=int)\n_z *= 0.5\n{v} = {v} + _z[0]",
    "_z = {np}.ones(2, dtype=int)\n_z /= 2\n{v} = {v} + _z[0]",
    "_z = {np}.zeros(3)\n_z += {np}.sum({v})\n{v} = {v} + _z[1]",
    "_z = {np}.zeros(3, dtype={np}.float32)\n_z += 0.5\n{v} = {v} * {np}.float64(_z[0])",
    "_z = {np}.ones(2, dtype={np}.float32)\n_z *= {np}.sum({v})\n"
    "{v} = {v} + 0.0 * {np}.float64(_z[1])",
    "_z = {np}.zeros(3, dtype=complex)\n_z += {np}.sum({v})\n{v} = {v} + _z.real[0]",
    "_z = {np}.zeros(3, dtype=bool)\n_z += {np}.atleast_1d({v})[0] > 0.0\n"
    "{v} = {v} * (1.0 + {np}.sum(_z))",
    "_z = {np}.zeros(2, dtype=bool)\n_z -= True\n{v} = {v} + {np}.sum(_z)",
    "_z = {np}.arange(3)\n_z[1] += {np}.sum({v})\n{v} = {v} + _z[1]",
    "_z = {np}.zeros(2, dtype={np}.float16)\n_z += 1.0\n{v} = {v} * {np}.float64(_z[0])",
    "_z = [{np}.zeros_like(0) for _j in range(2)]\n_z[1] += {np}.sum({v}) * 0.5\n"
    "{v} = {v} + _z[1]",
    "_z = {np}.zeros(3, dtype={np}.int64)\nfor _j in range(2):\n    _z += _j\n"
    "{v} = {v} * (1.0 + _z[0])",
])


shape_raise = _templated("shape_raise", is_num, [
    "def _h(_a):\n    _m = _a + {np}.ones(3)\n    return _a * 2.0\n{v} = _h({v})",
    "def _h(_a, _b):\n    _m = _a + _b\n    return _a * 2.0\n{v} = _h({v}, {np}.ones(3))",
    "def _h(_a, _b):\n    _m = _a * _b\n    return _a + 1.0\n"
    "{v} = _h({v}, {np}.ones(2)) + _h({v}, {np}.ones(3)) * 0.5",
    "def _h(_a):\n    _m = _a[:2] - _a[1:]\n    return _a * 0.5\n{v} = _h({v})",
    "def _h(_a):\n    _m = {np}.maximum(_a, {np}.ones((2, 2)))\n    return {np}.sin(_a)\n"
    "{v} = _h({v})",
    "def _h(_a, _b):\n    _m = _a < _b\n    return _a * 3.0\n{v} = _h({v}, {np}.zeros(4))",
    "_m = {np}.floor({np}.atleast_1d({v}) * 1j)\n",
    "_m = {np}.sin(2 ** 70)\n",
    "_m = {np}.sin(2 ** 70 + int({np}.sum({v}) > 0.0))\n",
    "_k = 10 ** 20\n_m = {np}.exp(_k)\n{v} = {v} * 1.5",
    "def _h(_a):\n    _m = {np}.floor(_a * 1j)\n    return _a * 2.0\n"
    "{v} = _h({np}.atleast_1d({v}))",
    "_c = {np}.ones(3) * 1j\n_m = {np}.floor(_c)\n{v} = {v} * 1.5",
    "_c = {v} + 0j\n_m = _c // 2.0\n{v} = {v} * 1.5",
    "_c = {np}.ones(2) * 1j + {np}.sum({v})\n_m = {np}.arctan2(_c, 1.0)\n{v} = {v} * 1.5",
    "_k = 2 ** 64\n_m = {np}.int64(3) + _k\n{v} = {v} * 1.5",
    "_m = {np}.arange(3) * 2 ** 70\n{v} = {v} * 1.5",
    "def _h(_a, _n):\n    _m = {np}.sqrt(_n)\n    return _a * 2.0\n{v} = _h({v}, 2 ** 70)",
    "if {np}.sum({v}) > 0.0:\n    _m = {v} + {np}.ones(5)\n{v} = {v} * 1.5",
    "for _j in range(2):\n    _m = {np}.atleast_1d({v}) + {np}.ones(_j + 3)\n",
])


tree_plans = _templated("tree_plans", is_num, [
    "def _e(_t):\n    return {np}.sum(_t[0] * _t[0] * _t[1])\n_jf = _srcad.jacrev(_e)\n"
    "_g1 = _jf(({v}, 2.0))\n_g2 = _jf([{v}, 3.0])\n_g3 = _jf(({v}, 0.5))\n"
    "{v} = {v} + _g1[0] * 0.1 + _g2[0] * 0.2 + _g3[0] * 0.3",
    "def _e(_d):\n    return {np}.sum(_d['a'] * _d['b'])\n_jf = _srcad.jacfwd(_e)\n"
    "_g1 = _jf({{'a': {v}, 'b': 2.0}})\n_g2 = _jf({{'b': 3.0, 'a': {v}}})\n"
    "_g3 = _jf({{'a': {v}, 'b': 0.5}})\n{v} = {v} + _g1['a'] * 0.1 + _g2['a'] * 0.2 + _g3['a']",
    "def _e(_d):\n    return {np}.sum(_d['a'] ** 2) * _d['b']\n_hf = _srcad.hessian(_e)\n"
    "_h1 = _hf({{'a': 1.5, 'b': {np}.sum({v})}})\n_h2 = _hf({{'b': {np}.sum({v}), 'a': 0.5}})\n"
    "_h3 = _hf({{'a': 1.5, 'b': {np}.sum({v}), 'c': 2.0}})\n"
    "{v} = {v} + _h1['a']['a'] * 0.1 + _h2['a']['b'] * 0.2 + _h3['a']['a'] * 0.3",
    "def _e(_t):\n    return _t[0] ** 2 * _t[1]\n_hf = _srcad.hessian(_e)\n"
    "_s = {np}.sum({v})\n_h1 = _hf((_s, 2.0))\n_h2 = _hf([_s, 2.0])\n_h3 = _hf((_s, 3.0))\n"
    "{v} = {v} + _h1[0][0] * 0.1 + _h2[0][1] * 0.2 + _h3[1][0] * 0.3",
    "def _e(_d):\n    return {np}.sum(_d['x'] * _d['y']['z'])\n_jf = _srcad.jacrev(_e)\n"
    "_g1 = _jf({{'x': {v}, 'y': {{'z': 2.0}}}})\n"
    "_g2 = _jf({{'x': {v}, 'y': {{'z': 2.0, 'w': 1.0}}}})\n"
    "_g3 = _jf({{'y': {{'z': 0.5}}, 'x': {v}}})\n{v} = {v} + _g1['x'] + _g2['x'] + _g3['x']",
    "def _e(_t):\n    return {np}.sum(_t[0] * _t[1])\n_jf = _srcad.jacrev(_e)\n_gs = []\n"
    "for _j in range(4):\n    _a = ({v}, 1.0 + _j) if _j % 2 else [{v}, 1.0 + _j]\n"
    "    _gs.append(_jf(_a)[0])\n{v} = {v} + _gs[0] * 0.1 + _gs[3] * 0.2",
    "def _e(_d):\n    return {np}.sum({np}.sin(_d['a']) * _d['b'])\n_hf = _srcad.hessian(_e)\n"
    "_s = {np}.sum({v})\n_h1 = _hf({{'a': _s, 'b': 2.0}})\n"
    "_h2 = _hf({{'a': {np}.array([_s, 1.0]), 'b': 2.0}})\n_h3 = _hf({{'a': _s, 'b': 2.0}})\n"
    "{v} = {v} + _h1['a']['a'] * 0.1 + _h2['a']['b'][0] * 0.2 + _h3['b']['a'] * 0.3",
])


NEW = [written_args, aug_dtypes, shape_raise, tree_plans]
if not any(m.__name__ == "written_args" for m in mutations.MUTATIONS):
    mutations.MUTATIONS += NEW
