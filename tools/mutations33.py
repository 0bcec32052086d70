"""Session 33's mutations (``tools/mutations.py`` holds the first ones, ``tools/mutations31.py``
and ``tools/mutations32.py`` sessions 31 and 32's; importing this module adds these to
``mutations.MUTATIONS``), aimed at session 32's machinery:

- ``dead_raising`` (``srcad.rules.raising.may_raise``, the dead-code predicate of the SSA and
  of tidy): a value nothing reads that raises for some inputs only (shapes that do not
  broadcast, inner sizes of a product, a reshape, ranks of a concatenation, an index past the
  end, a zero count, a singular matrix), at the top level or in a branch on data; where the
  plain mutant raises, the harness's ``raises`` check (``tools/mutant_checks33.py``) asks
  that the derivatives raise too;
- ``made_ranks`` (``srcad.analysis.value_kinds._made_rank``): ``np.zeros``, ``ones``,
  ``full``, ``reshape``, ``outer``, ``eye``, ``diag``, ``arange``, ``linspace`` made, then
  items read and written, reshaped, viewed;
- ``whole_lists`` (whole list gradients): lists of arrays built by ``zeros_like``, a
  comprehension, ``append`` in a loop, ``[z] * n``, then items read, written, popped,
  inserted, sliced and aliased;
- ``tree_dicts`` (``srcad.tree_keys``' lookup by structure): the same ``srcad.grad`` of a
  function of a dict called with a dict, then one of another key order, with an extra key,
  a number turned array, another dtype (the structures of named tuples and dataclasses of
  one field names but other classes are ``tools/mutant_checks33.tree_rows``' check);
- ``nested_star`` (``f(*p)`` of nested defs): nested functions called with ``*`` of a tuple,
  a list, a slice, a tuple built in a loop, closures over the mutant's values.

Imports: tools/mutations.
"""

from __future__ import annotations

import mutations
from mutations import _templated, is_num

dead_raising = _templated("dead_raising", is_num, [
    "_m = {v} + {np}.ones(3)",
    "_m = {np}.maximum({v}, {np}.ones(4)) * 2.0",
    "_m = {v} @ {np}.ones(3)",
    "_m = {np}.dot({v}, {np}.ones(2))",
    "_m = {np}.reshape({v}, (5,))",
    "_m = {np}.concatenate([{np}.atleast_1d({v}), {np}.ones((2, 2))])",
    "_m = {np}.atleast_1d({v})[3]",
    "_m = {v} / ({np}.size({v}) - 3)",
    "_m = {v} < {np}.ones(2)",
    "_m = {np}.linalg.inv({np}.outer({np}.atleast_1d({v})[:2], {np}.ones(2)))",
    "if {np}.sum({v}) > 0.0:\n    _m = {v} - {np}.ones(3) * 2.0",
    "for _j in range(2):\n    _m = {np}.matmul({np}.atleast_1d({v}), {np}.ones(2))",
    "_m = {np}.sum({v} * {np}.ones(3)) + 1.0",
    "_m = {np}.sum({v}) * 0.5\n_n = _m + {np}.ones(2) * {v}",
    "_c = int({np}.sum({np}.atleast_1d({v}) > 0.5))\n_m = {np}.sum({v}) / _c",
    "_m = ({v} * 2.0, {np}.ones(3) + {v})",
    "_m = 'v' + {v}",
    "_m = not {v}",
])


made_ranks = _templated("made_ranks", is_num, [
    "_z = {np}.zeros(3)\n_z[0] = {np}.sum({v})\n_z[1:] = _z[0] * 2.0\n{v} = {v} + _z.sum()",
    "_z = {np}.zeros((2, 3))\n_z[1] = {np}.sum({v}) * {np}.arange(3)\n{v} = {v} * _z[1, 2]",
    "_z = {np}.ones((2, 2))\n_z[0, 1] = {np}.sum({v})\n_w = _z.reshape(4)\n"
    "{v} = {v} + _w[1] * _w[3]",
    "_z = {np}.full((3,), {np}.sum({v}))\n_z[1] *= 2.0\n{v} = {v} + _z[1] + _z.T[0]",
    "_o = {np}.outer({np}.arange(1.0, 3.0), {np}.arange(2.0)) * {np}.sum({v})\n"
    "{v} = {v} + _o[1, 1] + _o.sum()",
    "_e = {np}.eye(3) * {np}.sum({v})\n_e[0, 2] = 1.0\n{v} = {v} * _e[0].sum() + "
    "_e.diagonal()[1]",
    "_d = {np}.diag({np}.arange(1.0, 4.0) * {np}.sum({v}))\n{v} = {v} + _d[1, 1] + _d[0][0]",
    "_l = {np}.linspace(0.0, 1.0, 4) * {np}.sum({v})\n_l[2] = _l[2] ** 2\n"
    "{v} = {v} + _l[2] + _l[-1]",
    "_r = {np}.arange(6.0).reshape(2, 3) * {np}.sum({v})\n_r[1, :] = _r[0, :] * 2.0\n"
    "{v} = {v} + _r[1, 2]",
    "_z = {np}.zeros(4)\nfor _j in range(4):\n    _z[_j] = {np}.sum({v}) * _j\n"
    "_q = _z.reshape(2, 2)\n{v} = {v} + _q[1, 1] * _q[0, 1]",
    "_z = {np}.zeros((3, 1))\n_z[:, 0] = {np}.sum({v})\n{v} = {v} + _z[2, 0] + _z.ravel()[1]",
    "_z = {np}.zeros(3)\n_w = _z[1:]\n_w[0] = {np}.sum({v})\n{v} = {v} + _z[1]",
    "_z = {np}.zeros((2, 2))\n_z[0] = {np}.sum({v})\n{v} = {v} + {np}.diag(_z)[0]",
    "_z = {np}.ones(2)\n_z = {np}.outer(_z, _z) * {np}.sum({v})\n_z[0] = _z[1] * 3.0\n"
    "{v} = {v} + _z[0, 0] * _z.reshape(-1)[3]",
    "_z = {np}.eye(2)[0] * {np}.sum({v})\n_z[1] = _z[0] ** 2\n{v} = {v} + _z[1] - _z[0]",
    "_z = {np}.zeros_like({v}) + 1.0\n_y = {np}.zeros(({np}.size(_z), 2))\n"
    "_y[:, 1] = _z.ravel() * {np}.sum({v})\n{v} = {v} + _y[-1, 1]",
])


whole_lists = _templated("whole_lists", is_num, [
    "_L = [{np}.zeros_like({v}) for _j in range(3)]\n_L[1] = {v} * 2.0\n_L[2] = _L[1] + {v}\n"
    "{v} = _L[0] + _L[2]",
    "_L = []\nfor _j in range(3):\n    _L.append({v} * (_j + 1))\n_u = _L.pop()\n"
    "{v} = _u + _L[0] + _L[-1]",
    "_L = [{v} * _j for _j in range(4)]\n_S = _L[1:3]\n_S[0] = _S[0] * 2.0\n"
    "{v} = _L[1] + _S[0] + _S[1]",
    "_L = [{v}, {v} * 2.0]\n_A = _L\n_A[0] = {v} * 3.0\n{v} = _L[0] + _L[1]",
    "_L = [{np}.zeros_like({v})] * 3\n_L[0] = {v}\n{v} = _L[0] + _L[1] + _L[2] * 2.0",
    "_L = [{v} * 1.0 for _ in range(3)]\nfor _j in range(3):\n"
    "    _L[_j] = _L[_j] * (_j + 1) + _L[_j - 1]\n{v} = _L[0] * _L[2]",
    "_L = []\nfor _j in range(3):\n    _L.append({np}.zeros_like({v}) + {v} * _j)\n"
    "    if _j:\n        _L[_j - 1] = _L[_j - 1] + _L[_j]\n{v} = _L[0] + _L[1] + _L[2]",
    "_L = [{v}, {v} * 2.0, {v} * 3.0]\n_L.pop(0)\n_L.insert(0, {v} * 0.5)\n"
    "{v} = _L[0] + _L[-1]",
    "_L = [{v} * 0.5, {v}]\n_M = _L[:]\n_M[0] = _M[0] * 4.0\n{v} = _L[0] + _M[0] + _M[1]",
    "_L = [{v} * 1.0]\nfor _j in range(2):\n    _L = _L + [_L[-1] * 2.0]\n{v} = _L[-1] + _L[0]",
    "_L = [{v} * _j for _j in range(3)]\n_L.reverse()\n_t = _L[0]\n_L[0] = _L[2]\n"
    "{v} = _t + _L[0] * 0.5",
    "_L = [{np}.zeros_like({v}) for _ in range(2)]\nfor _j in range(2):\n"
    "    _L[_j] += {v} * (_j + 0.5)\n{v} = _L[0] * _L[1]",
    "_L = [{v}]\n_B = [_L, [{v} * 2.0]]\n_B[0][0] = _B[1][0] * {v}\n{v} = _L[0] + _B[1][0]",
    "_L = [{v} * _j for _j in range(3)]\nwhile len(_L) > 1:\n    _a = _L.pop()\n"
    "    _L[-1] = _L[-1] + _a * 0.5\n{v} = _L[0] + {v}",
])


tree_dicts = _templated("tree_dicts", is_num, [
    "def _e(_d):\n    return {np}.sum(_d['a'] * _d['b'])\n_gf = _srcad.grad(_e)\n"
    "_g1 = _gf({{'a': {v}, 'b': 2.0}})\n_g2 = _gf({{'b': 3.0, 'a': {v}}})\n"
    "{v} = {v} + _g1['a'] * 0.5 + _g2['a'] * 0.25",
    "def _e(_d):\n    return {np}.sum(_d['a'] * _d['a'] * _d['b'])\n_gf = _srcad.grad(_e)\n"
    "_g1 = _gf({{'a': {v}, 'b': 2.0}})\n_g2 = _gf({{'a': {v}, 'b': 1.5, 'c': 5.0}})\n"
    "{v} = {v} + _g1['a'] * 0.1 + _g2['a'] * 0.2 + _g2['b'] * 0.01",
    "def _e(_d):\n    return {np}.sum({np}.sin(_d['a']) * _d['b'])\n_gf = _srcad.grad(_e)\n"
    "_g1 = _gf({{'a': {v}, 'b': 2.0}})\n"
    "_g2 = _gf({{'a': {v}, 'b': {np}.full({np}.shape({v}), 2.0)}})\n"
    "{v} = {v} + _g1['a'] * 0.5 + _g2['a'] * 0.5 + {np}.sum(_g2['b']) * 0.01",
    "def _e(_d):\n    return {np}.sum(_d['a'] ** 2) * _d['b']\n_gf = _srcad.grad(_e)\n"
    "_g1 = _gf({{'a': {v}, 'b': 2.0}})\n_g2 = _gf({{'a': {v}, 'b': 2}})\n"
    "_g3 = _gf({{'b': 1.0, 'a': {np}.asarray({v}, dtype={np}.float32) * 1.0}})\n"
    "{v} = {v} + _g1['a'] * 0.1 + _g2['a'] * 0.1 + {np}.float64({np}.sum(_g3['a'])) * 0.0",
    "def _e(_d):\n    return {np}.sum(_d['x'] * _d['y']['z'])\n_gf = _srcad.grad(_e)\n"
    "_g1 = _gf({{'x': {v}, 'y': {{'z': 2.0}}}})\n_g2 = _gf({{'y': {{'z': 0.5}}, 'x': {v}}})\n"
    "{v} = {v} + _g1['x'] + _g2['x']",
    "def _e(_d):\n    return {np}.sum(_d['a'] * _d['b'])\n_vg = _srcad.value_and_grad(_e)\n"
    "_v1, _g1 = _vg({{'a': {v}, 'b': 2.0}})\n_v2, _g2 = _vg({{'b': 2.0, 'a': {v} * 1.0}})\n"
    "{v} = {v} + _g1['a'] * 0.5 + _g2['a'] * 0.5 + _v1 * 0.0",
])


nested_star = _templated("nested_star", is_num, [
    "def _h(_a, _b):\n    return _a * _b + _a\n_p = ({v}, 2.0)\n{v} = _h(*_p)",
    "def _h(_a, _b, _c):\n    return _a * _b - _c\n_p = [{v}, {v} * 0.5, 1.0]\n"
    "{v} = _h(*_p[:2], _p[2])",
    "_k = 1.5\ndef _h(_a, _b):\n    return _a * _k + _b\n_p = ({v}, {v} * 2.0)\n"
    "{v} = _h(*_p) + _h(*reversed(_p))",
    "def _h(*_ps):\n    _s = 0.0\n    for _q in _ps:\n        _s = _s + _q * _q\n    return _s\n"
    "_p = ()\nfor _j in range(3):\n    _p = _p + ({v} * _j,)\n{v} = _h(*_p) + {v}",
    "def _h(_a, _b):\n    def _g(_c):\n        return _c * _b\n    return _g(_a) + _a\n"
    "_p = ({v}, 0.5)\n{v} = _h(*_p)",
    "def _h(_a, _b=2.0):\n    return _a ** 2 * _b\n_p = [{v}]\n{v} = _h(*_p) + _h(*_p, 0.5)",
    "_p = ({v}, {v} * 3.0)\n_f = lambda _a, _b: _a * _b\n{v} = _f(*_p) * 0.1 + {v}",
    "def _h(_a, _b):\n    return _a - _b * 0.5\n_ps = [({v}, 1.0), ({v} * 2.0, {v})]\n"
    "{v} = sum(_h(*_q) for _q in _ps)",
])


NEW = [dead_raising, made_ranks, whole_lists, tree_dicts, nested_star]
if not any(m.__name__ == "dead_raising" for m in mutations.MUTATIONS):
    mutations.MUTATIONS += NEW
