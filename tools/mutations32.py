"""Session 32's mutations (``tools/mutations.py`` holds the first ones, ``tools/mutations31.py``
session 31's; importing this module adds these to ``mutations.MUTATIONS``), aimed at what
session 31 added to srcad and outside code has barely met:

- ``changing_truths`` (``backend/tidy_nots``, ``backend/tidy_flags``): ``t = not ys`` then
  ``if t:`` with a list ``append``/``pop``, a dict insert or a counter changing the truth
  between; ``if c: A`` then ``if not c: B`` where ``A`` changes ``c``'s truth; flags set in
  both arms; ``while`` on a container; a break flag;
- ``reread_items`` (``backend/tidy_reads``): an item read twice with a write to the array, to a
  view of it (``v[:2]``, ``v.T``, ``v.reshape(-1)``) or to a list's element between, and reads
  behind a ``continue`` guard;
- ``growing_sizes`` (``backend/tidy_dead``, ``backend/tidy_sizes``): unused means and
  quotients, ``len()`` of a list growing in the loop whose header took its length, through an
  alias, a list holding it, a closure or a ``+=``;
- ``loop_else_jumps`` (``frontend/desugar``): ``for``/``while ... else`` with ``break``,
  ``continue`` and ``return`` in nested loops (a ``return`` placed before the function's last,
  returning the value the last would give);
- ``star_calls``: ``f(data, *params)``, ``f(*params, x)``, ``*params, a, b = params``;
- ``aux_returns`` (what ``has_aux`` splits): a return inside a loop; the harness's ``aux`` check
  builds the pair apart (``_p = (_r, AUX); return _p``) for some mutants;
- ``inner_grads``: ``srcad.grad`` called inside the differentiated code, then the same gradient
  function called with another kind or rank (a number, a vector, a matrix, an int).

Imports: ast, tools/mutations.
"""

from __future__ import annotations

import ast

import mutations
from mutations import _final_return, _pick, _templated, is_num, is_vec, is_vec1, stmt

changing_truths = _templated("changing_truths", is_num, [
    # a truth taken, then the list changed, then the truth tested
    "_ys = []\nfor _j in range(3):\n    _t = not _ys\n    _ys.append(_j)\n    if _t:\n"
    "        {v} = {v} * 1.5\n    else:\n        {v} = {v} + 0.25",
    "_ys = [{v}]\n_t = not _ys\n_ys.pop()\nif _t:\n    {v} = {v} * 3.0\nelse:\n"
    "    {v} = {v} * 0.5 + 1.0",
    # if c: A (A changes c), then if not c: B
    "_L = []\nif not _L:\n    _L.append({v} * 0.5)\n    {v} = {v} * 2.0\nif not _L:\n"
    "    {v} = {v} + 5.0\n{v} = {v} + _L[0]",
    "_n = 0\nif _n == 0:\n    _n += 1\n    {v} = {v} * 1.5\nif _n == 0:\n    {v} = {v} - 1.0",
    "_d = {{}}\nif 'a' not in _d:\n    _d['a'] = {v} * 1.0\n    {v} = {v} * 2.0\n"
    "if 'a' not in _d:\n    {v} = {v} * 100.0\n{v} = {v} + _d['a']",
    "_c = {np}.sum({v}) > 0.5\nif _c:\n    {v} = {v} * 1.2\nif not _c:\n    {v} = {v} + 0.3",
    # flags set in both arms
    "if {np}.sum({v}) > 0.5:\n    _f = True\n    {v} = {v} * 1.1\nelse:\n    _f = False\n"
    "    {v} = {v} * 0.9\nif _f:\n    {v} = {v} + 1.0\nif not _f:\n    {v} = {v} * {v}",
    "_f = False\nfor _j in range(3):\n    if _f:\n        {v} = {v} * 0.5\n        _f = False\n"
    "    else:\n        {v} = {v} + 0.1 * _j\n        _f = True",
    # while on containers
    "_st = [{v}, {v} * 0.5]\nwhile _st:\n    _u = _st.pop()\n    {v} = {v} + _u * 0.3",
    "_st = [1.0, 2.0, 3.0]\nwhile _st:\n    _q = _st.pop()\n    if _q < 1.5:\n        break\n"
    "    {v} = {v} * _q * 0.5\nelse:\n    {v} = {v} + 1.0",
    "_st = [{v} * 1.0]\n_k = 0\nwhile len(_st) < 3:\n    _st.append(_st[-1] * 0.5 + {v})\n"
    "    _k += 1\n{v} = _st[-1] + _st[0] * _k",
    # a break flag read after the loop; a not of a list taken in a loop that pops
    "_ys = [0.5, 1.5, 2.5]\n_hit = False\nfor _q in _ys:\n    if _q > 1.0:\n        _hit = True\n"
    "        break\nif _hit:\n    {v} = {v} * _q\nelse:\n    {v} = {v} - 1.0",
    "_ys = [{v}, {v} * 2.0]\n_acc = {v} * 0.0\nwhile True:\n    _e = not _ys\n    if _e:\n"
    "        break\n    _acc = _acc + _ys.pop()\n{v} = _acc",
    "_seen = {{}}\nfor _j in range(3):\n    _new = (_j % 2) not in _seen\n"
    "    _seen[_j % 2] = {v} * _j\n    if _new:\n        {v} = {v} * 1.2\n    else:\n"
    "        {v} = {v} + _seen[_j % 2]",
])


reread_items = _templated("reread_items", is_vec, [
    "_w = {v}[:2]\n_u = {v}[1]\n_w[1] = _w[1] * 2.0 + 1.0\n{v} = {v} + _u * {v}[1]",
    "_w = {v}.T\n_u = {v}[0]\n_w *= 2.0\n{v} = {v} + _u * {v}[0]",
    "_w = {v}.reshape(-1)\n_u = {v}.reshape(-1)[0]\n_w[0] = _w[0] * 3.0\n"
    "{v} = {v} * (_u + {v}.reshape(-1)[0])",
    "_u = {v}[0] * 1.0\n{v}[0] = {v}[1]\n_z = {v}[0] * {v}[0]\n{v} = {v} + _u * _z",
    "_s = 0.0\nfor _j in range(len({v})):\n    if {np}.sum({v}[_j]) < 0.6:\n        continue\n"
    "    _s = _s + {np}.sum({v}[_j] * {v}[_j])\n    {v}[_j] = {v}[_j] * 0.5\n"
    "    _s = _s + {np}.sum({v}[_j])\n{v} = {v} + _s",
    "_L = [{v} * 1.0, {v} * 2.0]\n_u = _L[0]\n_L[0] = _L[1] * 0.5\n{v} = _u + _L[0] * _L[0]",
    "_L = [{v} * 1.0, {v} * 2.0]\n_u = _L[1][0]\n_L[1][0] = _L[1][0] * 3.0\n"
    "{v} = {v} + _u * _L[1][0]",
    "_L = [{v}[0], {v}[1]]\n_L[0] = _L[0] * 2.0\n{v} = {v} * (_L[0] + {v}[0])",
    "_u = {v}[1]\n{v}[1:] = {v}[:-1] * 0.5\n{v} = {v} * (_u + {v}[1])",
    "for _j in range(2):\n    _u = {v}[0]\n    if _j == 0:\n        continue\n"
    "    {v}[0] = {v}[0] * 2.0\n    {v} = {v} + _u * {v}[0]",
])


reread_items1 = _templated("reread_items1", is_vec1, [
    "_s = 0.0\nfor _j in range(len({v})):\n    if {v}[_j] < 0.6:\n        continue\n"
    "    _s = _s + {v}[_j] * {v}[_j]\n    {v}[_j] = {v}[_j] * 0.5\n    _s = _s + {v}[_j]\n"
    "{v} = {v} + _s",
    "_i = 0\n_a = {v}[_i]\n_i = 1\n_b = {v}[_i]\n{v} = {v} * (_a + 2.0 * _b)",
    "_a = {v}[0]\n{np}.sin({v}, out={v})\n_b = {v}[0]\n{v} = {v} + _a * _b",
])


growing_sizes = _templated("growing_sizes", is_num, [
    "_m = {np}.mean({v})\n_d = {np}.sum({v}) / 3.0\n_q = {v} / 2.0\n{v} = {v} * 1.5",
    "_L = [{v}, {v} * 0.5]\n_s = {v} * 0.0\nfor _i in range(len(_L)):\n"
    "    for _k in range(len(_L)):\n        _s = _s + _L[_k] * 0.25\n    _L.append({v} * 0.1)\n"
    "{v} = _s + len(_L)",
    "_L = [{v}, {v} * 0.5]\n_box = [_L]\n_s = {v} * 0.0\nfor _i in range(len(_L)):\n"
    "    for _k in range(len(_L)):\n        _s = _s + _L[_k] * 0.25\n"
    "    _box[0].append({v} * 0.1)\n{v} = _s",
    "_L = [{v}, {v} * 0.5]\n_M = _L\n_s = {v} * 0.0\nfor _i in range(len(_L)):\n"
    "    for _k in range(len(_L)):\n        _s = _s + _L[_k] * 0.25\n    _M.append({v} * 0.1)\n"
    "{v} = _s",
    "_L = [{v}, {v} * 0.5]\n_s = {v} * 0.0\nfor _i in range(len(_L)):\n"
    "    for _k in range(len(_L)):\n        _s = _s + _L[_k] * 0.25\n    _L += [{v} * 0.1]\n"
    "{v} = _s",
    "_L = [{v}, {v} * 0.5]\n\ndef _grow():\n    _L.append(_L[-1] * 0.5)\n\n_s = {v} * 0.0\n"
    "for _i in range(len(_L)):\n    for _k in range(len(_L)):\n        _s = _s + _L[_k]\n"
    "    _grow()\n{v} = _s",
    "_L = [{v}]\n_n = len(_L)\nfor _i in range(3):\n    _L.append(_L[-1] * 0.5)\n"
    "    _n2 = len(_L)\n{v} = _L[-1] * _n2 + _n",
    "_L = [{v}]\nfor _i in range(2):\n    _L.append({v} * _i)\n    _t = {v} / len(_L)\n"
    "{v} = {v} + _t",
    "_c = 0\n_tot = {np}.sum({v})\n_mu = _tot / max(_c, 1)\nfor _i in range(2):\n"
    "    _c += 1\n    _mu = _tot / _c\n{v} = {v} * _mu",
    "_L = [{v}, {v} * 2.0]\n_n = len(_L)\n_L.pop()\nfor _i in range(_n):\n"
    "    if _i < len(_L):\n        {v} = {v} + _L[_i]",
])


loop_else_jumps = _templated("loop_else_jumps", is_num, [
    "for _j in range(3):\n    for _k in range(3):\n        if _k == _j:\n            break\n"
    "        {v} = {v} * 1.05\n    else:\n        {v} = {v} + 0.1\n        continue\n"
    "    {v} = {v} * 0.9",
    "for _j in range(3):\n    for _k in range(2):\n        if _j == 1:\n            continue\n"
    "        {v} = {v} + 0.1 * _k\n    else:\n        if _j == 2:\n            break\n"
    "    {v} = {v} * 1.1\nelse:\n    {v} = {v} * 100.0",
    "_j = 0\nwhile _j < 3:\n    _j += 1\n    _k = 0\n    while _k < 3:\n        _k += 1\n"
    "        if _k == 2:\n            continue\n        if _k > _j:\n            break\n"
    "        {v} = {v} * 1.1\n    else:\n        {v} = {v} - 0.2\n        continue\n"
    "    {v} = {v} + 0.05",
    "for _j in range(2):\n    for _k in range(2):\n        for _m in range(2):\n"
    "            if _m == _k:\n                break\n            {v} = {v} * 1.2\n"
    "        else:\n            continue\n        {v} = {v} + 0.3\n    else:\n"
    "        {v} = {v} * 0.8",
    "for _j in range(3):\n    if {np}.sum({v}) > 1e6:\n        break\n    for _k in range(2):\n"
    "        {v} = {np}.tanh({v}) + {v}\n    else:\n        if _j == 1:\n            break\n"
    "        continue\nelse:\n    {v} = {v} * 5.0",
])


def loop_else_returns(fn, info, rng):
    """A nested loop before the function's last return whose ``else`` parts return (the value
    the last return would give, scaled), or break and continue around a return."""
    last = _final_return(fn)
    if last is None:
        return None
    e = ast.unparse(fn.body[-1].value)
    nums = [n for n in info if is_num(info[n]) and n in {a.arg for a in fn.args.args}]
    v = _pick(rng, nums)
    if not v:
        return None
    forms = [
        "for _j in range(3):\n    for _k in range(2):\n        if _k > _j:\n            break\n"
        "    else:\n        if _j == 2:\n            return ({e}) * 1.5\n        continue\n"
        "    {v} = {v} * 1.01",
        "for _j in range(2):\n    for _k in range(2):\n        if {np}.sum({v}) > 1e6:\n"
        "            break\n    else:\n        continue\n    return ({e}) * 2.0",
        "_j = 0\nwhile _j < 3:\n    _j += 1\n    for _k in range(2):\n        if _k == _j:\n"
        "            break\n    else:\n        if {np}.sum({v}) < 0.0:\n"
        "            return ({e}) * 0.5\n    {v} = {v} * 1.02",
        "for _j in range(3):\n    for _k in range(3):\n        if _k == 1:\n            continue\n"
        "        if _j == 2 and _k == 2:\n            return ({e}) + 0.5\n    else:\n"
        "        {v} = {v} * 1.01",
    ]
    form = rng.choice(forms).format(v=v, e=e, np=mutations.NP)
    fn.body[-1:-1] = stmt(form)
    return "loop_else_returns"


star_calls = _templated("star_calls", is_num, [
    "def _h(_a, _b, _c=1.0):\n    return _a * _b + _c\n_ps = ({v} * 0.5, 2.0)\n"
    "{v} = _h({v}, *_ps)",
    "def _h(_a, _b, _c):\n    return _a * _b + _c * _a\n_ps = [{v} * 0.5, 0.25]\n"
    "{v} = _h(*_ps, {v})",
    "_ps = [{v}, {v} * 2.0, 3.0, 0.5]\n*_hd, _a, _b = _ps\n{v} = _a * _b + _hd[0] * _hd[1]",
    "_ps = ({v} * 1.0, {v} + 1.0, 0.5)\n_a, *_tl = _ps\n{v} = _a * _tl[0] + _tl[-1]",
    "def _h(_d, *_ps):\n    _s = _d\n    for _p in _ps:\n        _s = _s * _p\n    return _s\n"
    "_ps = (0.5, {v})\n{v} = _h({v}, *_ps) + _h({v})",
    "def _h(_d, _p, _q):\n    return _d * _p - _q\n_ps = [{v}, 0.5]\n_ps, _a, _b = _ps, 2.0, 3.0\n"
    "{v} = _h({v} * _a, *_ps) + _b",
    "_ps = [{v} * 0.5, {v} * 0.25]\n{v} = {np}.add({v}, *_ps[1:]) + max(*[1.0, 2.0])",
    "def _h(_a, _b):\n    return _a * _b\n_ps = [({v}, 2.0), ({v} * 0.5, 3.0)]\n_s = 0.0\n"
    "for _p in _ps:\n    _s = _s + _h(*_p)\n{v} = _s",
])


def aux_returns(fn, info, rng):
    """A return inside a loop before the last (the value the last would give), the loop's
    other turns changing what the last return reads, for ``has_aux``'s split."""
    last = _final_return(fn)
    if last is None:
        return None
    e = ast.unparse(fn.body[-1].value)
    nums = [n for n in info if is_num(info[n]) and n in {a.arg for a in fn.args.args}]
    v = _pick(rng, nums)
    if not v:
        return None
    form = rng.choice([
        "for _j in range(3):\n    if _j == 2:\n        return ({e}) * 1.0\n    {v} = {v} * 1.05",
        "for _j in range(3):\n    if {np}.sum({v}) > 1e6:\n        return ({e}) * 2.0\n"
        "    {v} = {v} + 0.01",
        "_j = 0\nwhile True:\n    _j += 1\n    if _j > 2:\n        return {e}\n"
        "    {v} = {v} * 0.98",
    ]).format(v=v, e=e, np=mutations.NP)
    fn.body[-1:-1] = stmt(form)
    return "aux_returns"


inner_grads = _templated("inner_grads", is_num, [
    "_gf = _srcad.grad(lambda _z: {np}.sum({np}.sin(_z) * _z))\n{v} = {v} + _gf({v})",
    "_gf = _srcad.grad(lambda _z: {np}.sum(_z * _z * _z))\n{v} = {v} + _gf({v}) * 0.1\n"
    "_c = _gf(1.5) + {np}.sum(_gf({np}.ones((2, 2))))\n{v} = {v} * _c",
    "def _e(_z, _a):\n    return {np}.sum({np}.tanh(_z) * _a)\n_gf = _srcad.grad(_e, wrt=0)\n"
    "{v} = {v} + _gf({v}, 2.0)\n{v} = {v} + {np}.sum(_gf({np}.ones(3), 1.0)) + _gf(2, 1.0)",
    "_gf = _srcad.grad(lambda _z: {np}.sum({np}.exp(-_z * _z)))\n_s = 0.0\n"
    "for _j in range(2):\n    _s = _s + {np}.sum(_gf({v} * (_j + 1)))\n{v} = {v} + _s",
])


NEW = [changing_truths, reread_items, reread_items1, growing_sizes, loop_else_jumps,
       loop_else_returns, star_calls, aux_returns, inner_grads]
if not any(m.__name__ == "changing_truths" for m in mutations.MUTATIONS):
    mutations.MUTATIONS += NEW
