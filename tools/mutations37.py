"""Session 37's mutations (importing this module adds these to ``mutations.MUTATIONS``), aimed
at what session 36 changed:

- ``element_fills`` (fills36's ``transform.owned_writes``, in-place backward clears): an array
  filled element by element in a loop, ``out[k] = ...``, where the old array is read after
  the loop, saved by ``.copy()`` or kept in a list, a view of it taken before, the loop left
  early, the element written by a callee, the array read whole inside the loop;
- ``fill_chains`` (the backward sweep's ``dout[k] = 0.0`` and its reads): recurrences
  ``out[k] = out[k - 1] * v[k]``, reverse order, two nested loops over one array, two arrays
  swapped, 2-d fills by rows and columns, a ``while`` loop;
- ``item_lists`` (session 37's finding): lists of lists changed through an item
  (``h[0].append(v)``, ``t = h[0]; t.append(v)``, ``extend``), then read through ``h``,
  and a list popped while its container is read at another place;
- ``given_writes`` (state36's written state, in callees srcad reads): a nested function
  writing into an array, a dict or a list it is given, or into a closure list, then the
  object read by its caller;
- ``fill_objects`` (sound36's ``number_values`` on fills): object arrays filled element by
  element with numbers, read through ``float``.

Imports: tools/mutations.
"""

from __future__ import annotations

import mutations
from mutations import _templated, is_num, is_vec1

element_fills = _templated("element_fills", is_vec1, [
    "_o = {np}.zeros({v}.shape[0])\n_old = _o\nfor _k in range({v}.shape[0]):\n"
    "    _o[_k] = {v}[_k] ** 2\n{v} = {v} * _old + _o",
    "_o = {np}.zeros({v}.shape[0])\n_keep = []\nfor _k in range({v}.shape[0]):\n"
    "    _keep.append(_o.copy())\n    _o[_k] = {np}.sin({v}[_k])\n"
    "{v} = _o + _keep[-1] * {v}",
    "_o = {np}.zeros({v}.shape[0])\n_w = _o[1:]\nfor _k in range({v}.shape[0]):\n"
    "    _o[_k] = {v}[_k] * {v}[0]\n{v} = {v} + {np}.sum(_w)",
    "_o = {np}.zeros({v}.shape[0])\nfor _k in range({v}.shape[0]):\n"
    "    _o[_k] = {v}[_k] * 2.0\n    if _k == 1:\n        break\n{v} = {v} * _o",
    "def _put(_a, _k, _u):\n    _a[_k] = _u\n_o = {np}.zeros({v}.shape[0])\n"
    "for _k in range({v}.shape[0]):\n    _put(_o, _k, {v}[_k] ** 2)\n{v} = _o * {v}",
    "_o = {np}.zeros({v}.shape[0])\n_s = 0.0\nfor _k in range({v}.shape[0]):\n"
    "    _o[_k] = {v}[_k] ** 2\n    _s = _s + {np}.sum(_o) * {v}[_k]\n{v} = {v} * _s",
    "_o = {np}.ones({v}.shape[0])\nfor _k in range({v}.shape[0]):\n    _o[_k] += {v}[_k]\n"
    "    _o[_k] *= {v}[_k]\n{v} = _o",
])

fill_chains = _templated("fill_chains", is_vec1, [
    "_o = {np}.ones({v}.shape[0])\nfor _k in range(1, {v}.shape[0]):\n"
    "    _o[_k] = _o[_k - 1] * {v}[_k]\n{v} = _o * {v}",
    "_o = {np}.zeros({v}.shape[0])\n_o[-1] = {v}[-1]\n"
    "for _k in range({v}.shape[0] - 2, -1, -1):\n    _o[_k] = _o[_k + 1] * {v}[_k] + {v}[_k]\n"
    "{v} = _o",
    "_o = {np}.zeros({v}.shape[0])\nfor _j in range(2):\n    for _k in range({v}.shape[0]):\n"
    "        _o[_k] = _o[(_k + 1) % {v}.shape[0]] * {v}[_k] + {v}[_j]\n{v} = _o ** 2",
    "_a = {np}.zeros({v}.shape[0])\n_b = {np}.zeros({v}.shape[0])\n"
    "for _k in range({v}.shape[0]):\n    _a[_k] = {v}[_k] * 2.0\n    _b[_k] = _a[_k] * {v}[_k]\n"
    "    _a, _b = _b, _a\n{v} = _a * _b + _a",
    "_m = {np}.zeros((2, {v}.shape[0]))\nfor _k in range({v}.shape[0]):\n"
    "    _m[0, _k] = {v}[_k] ** 2\n    _m[1, _k] = _m[0, _k] * {v}[_k]\n{v} = _m[1] + _m[0]",
    "_o = {np}.zeros({v}.shape[0])\n_k = 0\nwhile _k < {v}.shape[0]:\n"
    "    _o[_k] = {v}[_k] ** 3\n    _k += 1\n{v} = _o * {v}",
    "_o = {np}.zeros({v}.shape[0])\nfor _k in range({v}.shape[0]):\n"
    "    _o[_k // 2] = _o[_k // 2] + {v}[_k] ** 2\n{v} = _o * _o",
])

item_lists = _templated("item_lists", is_num, [
    "_h = [[]]\n_h[0].append({v} * 2.0)\n{v} = _h[0][0] * {v}",
    "_h = [[1.0], []]\n_t = _h[1]\n_t.append({v} * 1.5)\n{v} = _h[1][-1] + _h[0][0]",
    "_h = [[]]\n_h[0].extend([{v}, {v} * 2.0])\n{v} = _h[0][1] * _h[0][0]",
    "_p = [[{v} * 1.0, {v} * 2.0], {v} * 3.0]\n_ys = _p[0]\n_ys.pop()\n{v} = _ys[-1] * _p[1]",
    "_h = [[]]\nfor _k in range(2):\n    _h[0].append({v} * (_k + 1.0))\n{v} = _h[0][0] * _h[0][1]",
    "_h = {{'a': []}}\n_h['a'].append({v} * 2.0)\n{v} = _h['a'][0] * {v}",
])

given_writes = _templated("given_writes", is_num, [
    "def _fill(_a, _u):\n    for _k in range(_a.shape[0]):\n        _a[_k] = _u * (_k + 1.0)\n"
    "_o = {np}.zeros(3)\n_fill(_o, {np}.sum({v}))\n{v} = {v} * {np}.sum(_o)",
    "def _bump(_d, _u):\n    _d['s'] = _d['s'] + _u\n_d = {{'s': 1.0}}\n"
    "_bump(_d, {np}.sum({v}))\n{v} = {v} * _d['s']",
    "def _push(_l, _u):\n    _l.append(_u * 2.0)\n_l = []\n_push(_l, {v})\n{v} = _l[0] * {v}",
    "_c = [1.0]\ndef _scale(_u):\n    _c[0] = _c[0] * _u\n    return _c[0]\n"
    "{v} = _scale({v}) + _c[0] * {v}",
    "def _acc(_a, _u):\n    _a += _u\n_o = {np}.zeros(2)\n_acc(_o, {np}.sum({v}))\n"
    "{v} = {v} * _o[1]",
])

fill_objects = _templated("fill_objects", is_vec1, [
    "_o = {np}.empty({v}.shape[0], dtype=object)\nfor _k in range({v}.shape[0]):\n"
    "    _o[_k] = {v}[_k] ** 2\n{v} = {v} * float({np}.sum(_o))",
    "_o = {np}.zeros({v}.shape[0], dtype=object)\nfor _k in range({v}.shape[0]):\n"
    "    _o[_k] = float({v}[_k]) * 2.0\n{v} = {v} + _o[0]",
])

NEW = [element_fills, fill_chains, item_lists, given_writes, fill_objects]
if not any(m.__name__ == "element_fills" for m in mutations.MUTATIONS):
    mutations.MUTATIONS += NEW
