"""Session 31's mutations (``tools/mutations.py`` holds the others; importing this module adds
these to its ``MUTATIONS``), aimed at what session 30 added to srcad: ``break``/``continue``
flags read as tests (``backend/tidy_flags``), an item read twice read once
(``backend/tidy_reads``: writes, aliases and calls between the reads), sums merged and a
discarded mean dropped (``backend/tidy_values``: ``x = e1; x += e2``, a mean whose count may be
zero), NumPy writes in loops (``out=``, ``np.copyto``, ``np.fill_diagonal``, ``np.add.at``:
``frontend/lower_loops``), and returns in branches (what ``has_aux`` splits: the harness's
``aux`` check, ``tools/mutant_programs.py``, rewrites every return of a mutant into a pair).

Imports: ast, tools/mutations.
"""

from __future__ import annotations

import ast

import mutations
from mutations import _pick, _templated, is_num, is_vec, stmt

break_flags = _templated("break_flags", is_num, [
    "for _j in range(3):\n    for _k in range(3):\n        if _k > _j:\n            break\n"
    "        {v} = {v} * 1.05 + 0.01 * _k\n    else:\n        {v} = {v} + 0.1",
    "_j = 0\nwhile _j < 4:\n    _j += 1\n    if _j == 2:\n        continue\n"
    "    if {np}.sum({v}) > 50.0:\n        break\n    {v} = {np}.sin({v}) + {v}",
    "for _j in range(4):\n    if _j % 2:\n        continue\n    for _k in range(2):\n"
    "        if _k:\n            continue\n        {v} = {v} * 1.1\n    if _j > 1:\n"
    "        break",
    "_done = False\nfor _j in range(3):\n    if _done:\n        break\n"
    "    {v} = {v} + {np}.tanh({v})\n    _done = {np}.sum({v}) > 0.2",
    "for _j in range(3):\n    if {np}.sum({v}) < -100.0:\n        break\nelse:\n"
    "    {v} = {v} * 2.0",
    "for _j in range(3):\n    _t = {v} * 1.0\n    if _j == 1:\n        break\n"
    "    {v} = _t * _t * 0.5 + {v}",
])


item_reads = _templated("item_reads", is_vec, [
    "_t = {v}[0] * {v}[1] + {np}.sin({v}[0])\n{v}[0] = {v}[0] * 2.0\n"
    "{v} = {v} * (_t + {v}[0])",
    "_a = {v}\n_u = {v}[0]\n_a[0] += 1.0\n{v} = {v} * (_u + {v}[0])",
    "_u = {v}[0]\n{np}.copyto({v}, {v} * 2.0)\n{v} = {v} + _u * {v}[0]",
    "_u = {v}[1] * {v}[1]\n{v}[1] = 3.0 * {v}[0]\n_w = {v}[1] * {v}[1]\n{v} = {v} * (_u + _w)",
    "_s = 0.0\nfor _j in range(2):\n    _s = _s + {v}[0] * {v}[0]\n    {v}[0] = {v}[0] * 0.5\n"
    "{v} = {v} + _s",
    "def _bump(_z):\n    _z[0] = _z[0] * 3.0\n_u = {v}[0]\n_bump({v})\n{v} = {v} * (_u + {v}[0])",
    "_u = {v}[-1]\n{v} *= 1.5\n{v} = {v} + _u * {v}[-1]",
])


zero_means = _templated("zero_means", is_num, [
    "_c = {np}.sum({v} > 0.5)\n_m = {np}.sum({v}) / max(_c, 1)\n{v} = {v} + _m",
    "_sel = {np}.atleast_1d({v})[{np}.atleast_1d({v}) > 0.5]\nif _sel.size:\n"
    "    {v} = {v} * {np}.mean(_sel)",
    "_n = len([_t for _t in {np}.atleast_1d({v}) if _t > 0.5])\n"
    "_m = {np}.sum({v}) / _n if _n else 0.0\n{v} = {v} + _m",
    "_n = 0\nfor _t in {np}.atleast_1d({v}):\n    if _t > 0.5:\n        _n += 1\n"
    "_tot = {np}.sum({v})\nif _n > 0:\n    {v} = {v} * (_tot / _n)",
    "_n = int({np}.sum({np}.atleast_1d({v}) > 0.5))\n_tot = {np}.sum({v} ** 2)\n"
    "_m = _tot / _n if _n > 0 else _tot\n{v} = {v} + _m",
    "_m = {np}.mean({v})\n_m2 = {np}.sum({v}) / {np}.size({v})\n{v} = {v} * 2.0",
])


merged_sums = _templated("merged_sums", is_num, [
    "_s = {v} * 2.0\n_s += {v} ** 2\n_s += {np}.sin({v})\n{v} = _s",
    "_s = {v} * 1.0\nif {np}.sum({v}) > 0.5:\n    _s += {v}\n_s += 2.0\n{v} = {v} * _s",
    "_s = {np}.sum({v})\n_s += {np}.sum({v} ** 2)\n_u = _s\n_s += 1.0\n{v} = {v} * _u + _s",
    "_s = {v} + 0.0\nfor _j in range(2):\n    _s += {v} * _j\n    _s = _s * 0.5\n{v} = _s",
    "_s = {v} * 0.5\n_t = _s\n_s = _s + {v}\n_s += _t\n{v} = _s * _t",
    "_s = {v} * 1.0\n_s -= {v} ** 2\n_s *= 0.5\n_s += {np}.cos({v})\n{v} = _s",
])


loop_writes = _templated("loop_writes", is_vec, [
    "for _j in range(2):\n    {np}.multiply({v}, 1.5, out={v})",
    "for _j in range(2):\n    {np}.copyto({v}, {np}.sin({v}) + {v})",
    "for _j in range(2):\n    {np}.add.at({v}, [0, 0], {v}[[1, 1]] * 0.5)",
    "_b = {v}.copy()\nfor _j in range(2):\n    {np}.add({v}, _b, out=_b)\n{v} = _b",
    "_M = {np}.outer({v}.ravel()[:3], {v}.ravel()[:3])\nfor _j in range(2):\n"
    "    {np}.fill_diagonal(_M, {np}.diag(_M) * 0.5)\n{v} = {v} + _M.sum()",
    "_b = {np}.zeros_like({v})\nfor _j in range(3):\n    if _j == 1:\n        continue\n"
    "    {np}.add(_b, {v} * _j, out=_b)\n{v} = _b + {v}",
    "for _j in range(2):\n    {np}.copyto({v}, {v} * 0.5, where={v} > 0.6)",
])


def branch_returns(fn, info, rng):
    """A return in a branch before the last (the value the last would give), so that what
    ``has_aux`` splits meets merges of returns."""
    last = fn.body[-1] if fn.body else None
    if not (isinstance(last, ast.Return) and last.value is not None):
        return None
    e = ast.unparse(last.value)
    nums = [n for n in info if is_num(info[n]) and n in {a.arg for a in fn.args.args}]
    v = _pick(rng, nums)
    if not v:
        return None
    cond = rng.choice(["{np}.sum({v}) > 0.5", "{np}.sum({v}) < 0.0"]).format(v=v, np="_np")
    form = rng.choice([f"if {cond}:\n    return {e}\n",
                       f"if {cond}:\n    return {e}\nelse:\n    return ({e}) * 1.0\n"])
    fn.body[-1:] = stmt(form + (f"return {e}" if "else" not in form else ""))
    return "branch_returns"


NEW = [break_flags, item_reads, zero_means, merged_sums, loop_writes, branch_returns]
if not any(m.__name__ == "break_flags" for m in mutations.MUTATIONS):
    mutations.MUTATIONS += NEW
