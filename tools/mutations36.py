"""Session 36's mutations (importing this module adds these to ``mutations.MUTATIONS``), aimed
at what session 35 changed in the transform:

- ``copied_items`` (forms35's ``srcad.analysis.written_places``, ``transform.reverse``'s
  borrowed floats): a dict or list copied (``dict(d)``, ``d.copy()``, ``{**d}``, ``list(xs)``,
  ``xs[:]``, a comprehension), an item of the copy rebound then ``op=`` (the copy's own
  array), or ``op=`` straight into the shared item (the original changed too: an array is
  shared by both), float items, then both read;
- ``number_writes`` (saves35's number writes and fresh copies): ``a[k] = t`` of a number
  into a fresh array, ``t`` rebound after the write, in a loop, through a view taken before,
  a second copy of the array, then the array read;
- ``carried_arrays`` (saves35's carried shapes, the lead's ``loop_sums``): ``total += row **
  2`` over the rows of a matrix made of the value, ``total`` a number first then an array,
  an alias of ``total`` taken before the loop, a sum carried through two loops, a growing
  array, a whole-sum read after the loop;
- ``nested_items`` (trees35's nested item kinds): dicts of dicts and lists of arrays, an
  inner container read by a name then written (item rebound, ``op=``), read back through
  the outer one;
- ``narrow_dtypes`` (sound35's ``kept_dtype``): ``op=`` into float32/float16 arrays and items
  of constants, in loops and callees, then read downstream (constants only: a differentiated
  value rounded to float32 has ``astype``'s derivative, which central differences cannot
  confirm; ``y *= z[0]`` of a Python float ``y`` and a float32 item is float32, NumPy's weak
  scalars: seed 3603's one WRONG, the template's);
- ``object_arrays`` (sound35's leftover, ``srcad.rules.raising``): arrays of dtype=object
  holding numbers or arrays read in arithmetic; a discarded ``+``, ``*``, ``-``, ``np.add``
  of object arrays of strings, of ``None``, of lists (NumPy raises: the derivatives must).

Imports: tools/mutations.
"""

from __future__ import annotations

import mutations
from mutations import _templated, is_num, is_vec1

copied_items = _templated("copied_items", is_num, [
    "_d = {{'a': {v} * 1.0, 'b': 2.0}}\n_e = dict(_d)\n_e['a'] = _e['a'] * 2.0\n"
    "_e['a'] += {v}\n{v} = _e['a'] * _d['a']",
    "_d = {{'a': {v} * 1.0, 'b': 2.0}}\n_e = _d.copy()\n_e['a'] += {v}\n"
    "{v} = _e['a'] * _d['a']",
    "_l = [{v} * 1.0, 2.0]\n_m = _l[:]\n_m[0] += {v}\n{v} = _m[0] * _l[0]",
    "_l = [{v} * 1.0, 2.0]\n_m = list(_l)\n_m[0] = _m[0] + 0.5\n_m[0] *= {v}\n"
    "{v} = _m[0] + _l[0] * _m[1]",
    "_d = {{'a': {v} * 1.0, 'b': {v} * 2.0}}\n_e = {{**_d, 'b': 1.0}}\n_e['a'] *= {v}\n"
    "{v} = _e['a'] + _d['a'] * _e['b']",
    "_d = {{'a': {v} * 1.0, 'b': {v} * 2.0}}\n_e = {{_k: _u for _k, _u in _d.items()}}\n"
    "_e['b'] = _e['b'] - {v}\n_e['b'] -= 1.0\n{v} = _e['b'] * _d['b']",
    "_l = [{np}.sum({v}), 2.0]\n_m = list(_l)\n_m[0] += 1.0\n_m[1] *= {np}.sum({v})\n"
    "{v} = {v} * (_m[0] * _l[0] + _m[1] * _l[1])",
    "_d = {{'s': {np}.sum({v}) * 1.0}}\n_e = dict(_d)\n_e['s'] += {np}.sum({v})\n"
    "_e['s'] *= 2.0\n{v} = {v} * _e['s'] + _d['s']",
    "_l = [{v} * 1.0]\nfor _k in range(2):\n    _m = list(_l)\n    _m[0] = _m[0] * 1.5\n"
    "    _m[0] += {v}\n    _l = _m\n{v} = _l[0]",
])

number_writes = _templated("number_writes", is_num, [
    "_a = {np}.zeros(3)\n_t = {np}.sum({v})\n_a[0] = _t\n_t = _t * 2.0\n_a[1] = _a[0] * _t\n"
    "{v} = {v} * {np}.sum(_a)",
    "_a = {np}.zeros(3)\nfor _k in range(3):\n    _a[_k] = {np}.sum({v}) * (_k + 1.0)\n"
    "{v} = {v} + _a[2] * _a[0]",
    "_a = {np}.zeros(3)\n_b = _a[1:]\n_a[1] = {np}.sum({v}) ** 2\n{v} = {v} * {np}.sum(_b)",
    "_a = {np}.ones(3)\n_c = _a.copy()\n_a[0] = {np}.sum({v})\n_c[1] = _a[0] * 3.0\n"
    "{v} = {v} * (_c[1] + _a[0] + _c[0])",
    "_a = {np}.zeros(2)\n_a[0] = {np}.sum({v})\n_a[0] = _a[0] * _a[0]\n_a[1] = _a[0]\n"
    "{v} = {v} + _a[1]",
    "_a = {np}.zeros((2, 2))\n_a[0, 1] = {np}.sum({v})\n_a[1] = _a[0] * 2.0\n"
    "{v} = {v} * {np}.sum(_a ** 2)",
])

carried_arrays = _templated("carried_arrays", is_vec1, [
    "_m = {np}.outer({v}, {v})\n_tot = {np}.zeros({v}.shape)\nfor _r in _m:\n"
    "    _tot += _r ** 2\n{v} = _tot",
    "_tot = 0.0\nfor _k in range(3):\n    _tot += {v} ** 2 * _k\n{v} = {v} + _tot",
    "_tot = {np}.zeros_like({v})\n_keep = _tot.copy()\nfor _k in range(2):\n"
    "    _tot += {v} * (_k + 1.0)\n    _keep = _keep + _tot\n{v} = _keep * _tot",
    "_tot = {np}.zeros_like({v})\nfor _k in range(2):\n    for _j in range(2):\n"
    "        _tot += {v} ** 2 * (_j + _k)\n{v} = _tot + {np}.sum(_tot)",
    "_tot = {v}[:1] * 1.0\nfor _k in range({v}.shape[0]):\n"
    "    _tot = {np}.concatenate([_tot, {v}[_k:_k + 1] ** 2])\n{v} = {v} * {np}.sum(_tot)",
    "_s = 0.0\n_tot = {np}.zeros_like({v})\nfor _k in range(3):\n    _tot += {v} * _k\n"
    "    _s += {np}.sum(_tot)\n{v} = {v} * _s",
    "_tot = {np}.zeros_like({v})\n_k = 0\nwhile _k < 3:\n    _tot = _tot + {v} ** 2\n"
    "    if _k == 1:\n        _tot *= 0.5\n    _k += 1\n{v} = _tot",
])

nested_items = _templated("nested_items", is_num, [
    "_p = {{'a': {{'w': {v} * 1.0, 'b': [{v} * 2.0, 1.0]}}}}\n_q = _p['a']\n"
    "_w = _q['w'] * 2.0\n{v} = _w * _p['a']['b'][0] + _q['b'][1]",
    "_p = {{'a': {{'w': {v} * 1.0}}, 'c': [[{v}, {v} * 0.5]]}}\n"
    "{v} = _p['a']['w'] * _p['c'][0][1] + _p['c'][0][0]",
    "_p = [[{v} * 1.0, 2.0], [{v} * 3.0]]\n_q = _p[0]\n_r = _q[0] * _p[1][0]\n{v} = _r + _q[1]",
    "_p = {{'a': {{'w': {v} * 1.0}}}}\n_i = _p['a']\n_i['w'] = _i['w'] * {v}\n{v} = _p['a']['w']",
    "_p = {{'a': [{v} * 1.0, {v} * 2.0]}}\n_p['a'][1] = _p['a'][1] + {v}\n"
    "{v} = _p['a'][0] * _p['a'][1]",
    "def _h(_t):\n    return _t['a']['w'] * _t['a']['b'][1]\n"
    "{v} = _h({{'a': {{'w': {v}, 'b': [1.0, {v} * 2.0]}}}})",
])

narrow_dtypes = _templated("narrow_dtypes", is_num, [
    "_z = {np}.ones(3, dtype={np}.float32)\nfor _k in range(3):\n    _z[_k] += 0.1 * _k\n"
    "{v} = {v} * {np}.float64(_z[2])",
    "_z = {np}.ones(2, dtype={np}.float16)\n_z *= 1.7\n_z /= 3.0\n"
    "{v} = {v} + {np}.float64(_z[0]) * {v}",
    "def _h(_a):\n    _a *= 1.3\n    return _a\n"
    "{v} = {v} * {np}.float64(_h({np}.ones(2, dtype={np}.float32))[1])",
    "_z = [{np}.ones(2, dtype={np}.float32), {np}.ones(2)]\n_z[0] += 0.25\n_z[1] += _z[0]\n"
    "{v} = {v} * _z[1][0]",
    "_z = {np}.ones(2, dtype={np}.float32)\n_y = {v} * 1.0\n_y *= {np}.float64(_z[0])\n{v} = _y",
    "_z = {np}.full(2, 0.5, dtype={np}.float32)\n_z **= 2\n"
    "{v} = {v} * _z.astype(float)[1]",
])

object_arrays = _templated("object_arrays", is_num, [
    "_o = {np}.empty(2, dtype=object)\n_o[0] = {v}\n_o[1] = {v} * 2.0\n{v} = _o[0] * _o[1]",
    "_o = {np}.array([1.0, 2.0], dtype=object)\n{v} = {v} * float({np}.sum(_o))",
    "_o = {np}.array(['a', 'b'], dtype=object)\n_m = _o + 1\n{v} = {v} * 1.5",
    "_o = {np}.array([None, None])\n_m = _o * _o\n{v} = {v} * 1.5",
    "_o = {np}.array(['a', 'b'], dtype=object)\n_m = _o - _o\n{v} = {v} * 1.5",
    "_o = {np}.empty(2, dtype=object)\n_o[0] = [1.0]\n_o[1] = [2.0]\n_m = _o * 1.5\n"
    "{v} = {v} * 1.5",
    "def _h(_a, _x):\n    _m = {np}.add(_a, 1.0)\n    return _x * 2.0\n"
    "{v} = _h({np}.array(['a', 'b'], dtype=object), {v})",
    "_o = {np}.array(['a', 'b'])\n_m = _o + 1\n{v} = {v} * 1.5",
    "_o = {np}.array([{v}, {v}], dtype=object)\n_m = _o / 2.0\n{v} = {v} * 1.5",
])

NEW = [copied_items, number_writes, carried_arrays, nested_items, narrow_dtypes, object_arrays]
if not any(m.__name__ == "copied_items" for m in mutations.MUTATIONS):
    mutations.MUTATIONS += NEW
