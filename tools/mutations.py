"""Mutations of an outside function's syntax tree, aimed at srcad's risky machinery.

``tools/mutant_programs.py`` applies one to three of these to each harvested function
(``tools/mutant_sources.py``) and checks srcad's derivatives of the mutant against central
differences and a second engine. Some mutations keep the function's value (reordering
independent statements, a loop of one turn, ``v = v + e`` as ``v += e`` on a name nothing else
holds), most change it on purpose: a mutant is only ever compared with itself. Each mutation
takes the function's tree (changed in place), the classes of its locals at return
(``mutant_sources.locals_of``) and a ``random.Random``; it returns its name when it applied.

The machinery aimed at: aliasing (``b = a; b[i] = ...``), views (``a[1:]`` written through,
rows of a matrix written in a loop), in-place operators on arrays, lists and parameters,
``out=``, ``np.add.at``, fancy and mask writes, statement order, loops made, unrolled and
turned into ``while``, early ``return``, ``break``, ``continue`` and ``for ... else`` in
loops, branches on data, lists of arrays mutated (``insert``, ``pop``, slice assignment,
starred unpacking), dicts, closures reading a name rebound after they were made, nested
functions writing their argument, recursion, default arguments (bound once, mutated later),
lambdas, comprehensions, generators, ``enumerate``, tuple swaps, ``try/finally``, ``:=``;
since session 30, lists (dicts, pairs) built and grown by nested callees, lengths and
``isinstance``/``type`` tests of lists grown in loops and branches, ``F(a)(b)``, sums made in
loops then reused, augmented or written into arrays, quotients ``a / (c + exp(u))`` in loops
and branches, numbers that become arrays by ``+=`` then aliased, and names set only in nested
loops.

Every mutant is run plainly first; one that fails or is not finite is discarded.

Imports: ast, copy.
"""

from __future__ import annotations

import ast
import copy

NP = "_np"  # the mutant's module imports numpy under this name


def stmt(text):
    return ast.parse(text).body


def blocks(fn):
    """Every statement list of ``fn`` outside nested defs (the body first)."""
    out = [fn.body]

    def visit(stmts):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(s, field, None)
                if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                    out.append(sub)
                    visit(sub)
            if isinstance(s, ast.Try):
                for h in s.handlers:
                    out.append(h.body)
                    visit(h.body)
    visit(fn.body)
    return out


def assigned(s):
    """The one name ``s`` assigns (``v = e``, ``v += e``), else None."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
        return s.targets[0].id
    if isinstance(s, (ast.AugAssign, ast.AnnAssign)) and isinstance(s.target, ast.Name):
        return s.target.id
    return None


def sites(fn, info, want):
    """(block, index, name) after which ``name`` (of a class ``want`` accepts) is set."""
    out = []
    for b in blocks(fn):
        for i, s in enumerate(b):
            name = assigned(s)
            if name and name in info and want(info[name]):
                out.append((b, i, name))
    params = [a.arg for a in fn.args.args]
    for p in params:
        if p in info and want(info[p]):
            out.append((fn.body, -1, p))
    return out


def is_vec(t):
    return t[0] == "array" and t[2] == "f" and len(t[1]) >= 1 and t[1][0] >= 2


def is_vec1(t):
    return is_vec(t) and len(t[1]) == 1


def is_num(t):
    return t[0] == "float" or (t[0] == "array" and t[2] == "f" and t[1] != (0,))


def is_float(t):
    return t[0] == "float"


def _insert(block, index, stmts):
    block[index + 1:index + 1] = stmts


def _pick(rng, items):
    return items[rng.randrange(len(items))] if items else None


def _templated(name, want, forms):
    """A mutation inserting one of ``forms`` (statements with ``{v}``, a name of the kind
    ``want`` picks, and ``{np}``, NumPy's name) after a site where such a name is assigned."""
    def mutation(fn, info, rng):
        site = _pick(rng, sites(fn, info, want))
        if not site:
            return None
        b, i, v = site
        _insert(b, i, stmt(rng.choice(forms).format(v=v, np=NP)))
        return name

    mutation.__name__ = name
    return mutation


# ---- aliasing and views ------------------------------------------------------------------------

alias_item_write = _templated("alias_item_write", is_vec, [
    "_a = {v}\n_a[0] = _a[0] * 1.5 + 0.25",
    "_a = {v}\n_a[0] *= 1.5",
    "_a = {v}\n_a[-1] = {np}.sin(_a[0])",
    "_a = {v}\n_a[1] += _a[0]",
    "_a = {v}\n{v} = {v} * 1.0\n_a[0] = 2.0 * _a[0]",
])


view_write = _templated("view_write", is_vec, [
    "_w = {v}[1:]\n_w *= 1.5",
    "_w = {v}[1:]\n_w += {v}[:-1]",
    "_w = {v}[::2]\n_w[...] = {np}.tanh(_w)",
    "{v}[1:] += 0.5 * {v}[:-1]",
    "_w = {v}.T\n_w *= 2.0",
    "_w = {v}.reshape(-1)\n_w[0] = _w[0] ** 2",
    "_w = {v}[:]\n{v} = {v} + 1.0\n_w[0] = 3.0 * _w[0]",
])


def alias_then_inplace(fn, info, rng):
    site = _pick(rng, sites(fn, info, is_num))
    if not site:
        return None
    b, i, v = site
    form = rng.choice([
        "_o = {v}\n{v} *= 1.5\n{v} = {v} + 0.1 * _o",
        "_o = {v}\n{v} += {v}\n{v} = _o * {v}",
        "_o = {v}\n{v} = {v} * 1.5\n{v} += _o",
    ])
    _insert(b, i, stmt(form.format(v=v)))
    return "alias_then_inplace"


out_argument = _templated("out_argument", is_vec, [
    "{np}.multiply({v}, 1.5, out={v})",
    "{np}.add({v}, {v}, out={v})",
    "{np}.sin({v}, out={v})",
])


def param_write(fn, info, rng):
    params = [a.arg for a in fn.args.args if a.arg in info and is_num(info[a.arg])]
    p = _pick(rng, params)
    if not p:
        return None
    if is_vec(info[p]):
        form = rng.choice(["{p}[0] = {p}[0] * 2.0", "{p} += 1.0", "{p} *= {p}"])
    else:
        form = rng.choice(["{p} += 1.0", "{p} = {p} * {p}"])
    fn.body[0:0] = stmt(form.format(p=p))
    return "param_write"


copy_then_write = _templated("copy_then_write", is_vec, [
    "{v} = {v}.copy()\n{v}[0] = {v}[0] * 3.0",
    "_c = {np}.array({v})\n_c[-1] = 0.5 * _c[0]\n{v} = {v} + _c",
])


item_loop = _templated("item_loop", is_vec1, [
    "for _i in range(1, {v}.shape[0]):\n    {v}[_i] = {v}[_i] * {v}[_i - 1]",
    "for _i in range(len({v})):\n    {v}[_i] += 0.5 * {v}[_i - 1]",
    "_z = {np}.zeros({v}.shape)\nfor _i in range(len({v})):\n    _z[_i] = {v}[_i] ** 2\n"
    "{v} = _z + {v}",
])


# ---- statements and control flow ---------------------------------------------------------------

def _names(node, ctx):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def swap_adjacent(fn, info, rng):
    pairs = []
    for b in blocks(fn):
        for i in range(len(b) - 1):
            s, t = b[i], b[i + 1]
            if not all(isinstance(x, (ast.Assign, ast.AugAssign, ast.Expr)) for x in (s, t)):
                continue
            ws, wt = _names(s, ast.Store), _names(t, ast.Store)
            rs, rt = _names(s, ast.Load), _names(t, ast.Load)
            if isinstance(s, ast.AugAssign):
                rs |= ws
            if isinstance(t, ast.AugAssign):
                rt |= wt
            if not (ws & (rt | wt) or wt & rs):
                pairs.append((b, i))
    pair = _pick(rng, pairs)
    if not pair:
        return None
    b, i = pair
    b[i], b[i + 1] = b[i + 1], b[i]
    return "swap_adjacent"


def wrap_loop(fn, info, rng):
    b = _pick(rng, blocks(fn))
    if not b:
        return None
    i = rng.randrange(len(b))
    j = rng.randrange(i, len(b)) + 1
    inner = b[i:j]
    if any(isinstance(s, (ast.FunctionDef,)) for s in inner):
        return None
    turns = rng.choice([1, 1, 2])
    if turns == 2 and any(isinstance(n, ast.AugAssign) for s in inner for n in ast.walk(s)):
        turns = 1
    loop = stmt(f"for _k{len(b)} in range({turns}):\n    pass")[0]
    loop.body = inner
    b[i:j] = [loop]
    return "wrap_loop"


def unroll(fn, info, rng):
    found = []
    for b in blocks(fn):
        for i, s in enumerate(b):
            if (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse
                    and isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name)
                    and s.iter.func.id == "range" and len(s.iter.args) == 1
                    and isinstance(s.iter.args[0], ast.Constant)
                    and isinstance(s.iter.args[0].value, int) and s.iter.args[0].value <= 4
                    and not any(isinstance(n, (ast.Break, ast.Continue, ast.Return))
                                for t in s.body for n in ast.walk(t))):
                found.append((b, i))
    site = _pick(rng, found)
    if not site:
        return None
    b, i = site
    loop = b[i]
    out = []
    for k in range(loop.iter.args[0].value):
        out.extend(stmt(f"{loop.target.id} = {k}"))
        out.extend(copy.deepcopy(loop.body))
    b[i:i + 1] = out or [ast.Pass()]
    return "unroll"


def for_to_while(fn, info, rng):
    found = []
    for b in blocks(fn):
        for i, s in enumerate(b):
            if (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse
                    and isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name)
                    and s.iter.func.id == "range" and len(s.iter.args) == 1
                    and not any(isinstance(n, ast.Continue) for t in s.body
                                for n in ast.walk(t))):
                found.append((b, i))
    site = _pick(rng, found)
    if not site:
        return None
    b, i = site
    loop = b[i]
    t = loop.target.id
    new = stmt(f"_n{i} = {ast.unparse(loop.iter.args[0])}\n{t} = 0\n"
               f"while {t} < _n{i}:\n    pass")
    new[-1].body = loop.body + stmt(f"{t} = {t} + 1")
    b[i:i + 1] = new
    return "for_to_while"


def _final_return(fn):
    if fn.body and isinstance(fn.body[-1], ast.Return) and fn.body[-1].value is not None:
        return fn.body[-1]
    return None


def early_return(fn, info, rng):
    ret = _final_return(fn)
    if ret is None:
        return None
    e = ast.unparse(ret.value)
    nums = [n for n in info if is_num(info[n])]
    v = _pick(rng, nums)
    if v and rng.random() < 0.6:
        upd = rng.choice(["{v} = {v} * 1.1", "{v} = {np}.sin({v}) + {v}"])
        cond = rng.choice(["{np}.sum({v}) > 0.0", "{np}.sum({v}) < 1.0", "_k == 1"])
        text = (f"for _k in range(3):\n    {upd}\n    if {cond}:\n        return {e}\n"
                f"return {e}").format(v=v, np=NP)
    else:
        text = f"for _k in range(3):\n    if _k == 1:\n        return {e}\nreturn {e}"
    fn.body[-1:] = stmt(text)
    return "early_return"


while_break = _templated("while_break", is_num, [
    "_c = 0\nwhile True:\n    _c += 1\n    {v} = {np}.sin({v}) + {v}\n    if _c >= 2:\n"
    "        break",
    "_c = 0\nwhile _c < 3:\n    _c = _c + 1\n    if _c == 2:\n        continue\n"
    "    {v} = {v} * 1.2",
])


def data_branch(fn, info, rng):
    cands = []
    for b in blocks(fn):
        for i, s in enumerate(b):
            if isinstance(s, ast.Assign) and assigned(s):
                cands.append((b, i))
    site = _pick(rng, cands)
    nums = [n for n in info if is_num(info[n]) and n in {a.arg for a in fn.args.args}]
    u = _pick(rng, nums)
    if not site or not u:
        return None
    b, i = site
    s = b[i]
    other = copy.deepcopy(s)
    if rng.random() < 0.5:
        other.value = ast.BinOp(left=other.value, op=ast.Mult(), right=ast.Constant(0.5))
    branch = stmt(f"if {NP}.sum({u}) > {rng.choice(['0.0', '1.5', '-1.0'])}:\n    pass\n"
                  f"else:\n    pass")[0]
    branch.body, branch.orelse = [s], [other]
    b[i] = branch
    return "data_branch"


def ternary(fn, info, rng):
    site = _pick(rng, sites(fn, info, is_num))
    if not site:
        return None
    b, i, v = site
    _insert(b, i, stmt(f"{v} = {v} * 2.0 if {NP}.sum({v}) > 1.0 else -{v}"))
    return "ternary"


def tuple_swap(fn, info, rng):
    groups = {}
    for n, t in info.items():
        if is_num(t):
            groups.setdefault(t, []).append(n)
    pairs = [g for g in groups.values() if len(g) >= 2]
    g = _pick(rng, pairs)
    if not g:
        return None
    u, v = rng.sample(g, 2)
    site = _pick(rng, [s for s in sites(fn, info, is_num) if s[2] in (u, v)])
    if not site:
        return None
    b, i, _ = site
    _insert(b, i, stmt(f"{u}, {v} = {v}, {u}"))
    return "tuple_swap"


# ---- containers, closures, defaults ------------------------------------------------------------

list_of_arrays = _templated("list_of_arrays", is_num, [
    "_L = [{v}, {v} * 2.0]\n_L[0] += 1.0\n_L.append(_L[1] * _L[0])\n{v} = _L[-1] - _L[0]",
    "_L = [{v}]\nfor _j in range(2):\n    _L.append({np}.sin(_L[-1]))\n{v} = sum(_L)",
    "_L = [{v}, {v}]\n_L[1] = _L[1] * 3.0\n_L[0] *= 2.0\n{v} = _L[0] + _L[1]",
    "_L = [{v} * 1.0, {v} + 1.0]\n_L.reverse()\n{v} = _L[0] * _L[1]",
    "_L = [{v}, 2.0 * {v}]\nfor _j in range(len(_L)):\n    _L[_j] = _L[_j] ** 2\n"
    "{v} = _L[0] + _L[1]",
    "_L = []\n_L.append({v})\n_M = _L\n_M.append({v} * 3.0)\n{v} = _L[0] * _L[1]",
])


closure_rebind = _templated("closure_rebind", is_num, [
    "def _g(_t):\n    return _t * {v}\n{v} = {v} + 1.0\n{v} = _g({v})",
    "def _g(_t):\n    return _t + {np}.sin({v})\n_r = _g({v})\n{v} = {v} * 2.0\n"
    "{v} = _g(_r)",
    "def _g(_t):\n    return _t * {v}\n{v} += 1.0\n{v} = _g({v})",
    "_f = lambda _t: _t * {v}\n{v} = {v} * 0.5\n{v} = _f({v})",
    "def _g():\n    return {v} * {v}\n{v} = _g()",
])


default_argument = _templated("default_argument", is_num, [
    "def _h(_t, _s={v}):\n    return _t * _s\n{v} = {v} * 2.0\n{v} = _h({v})",
    "def _h(_t, _s={v}):\n    return _t * _s\n{v} *= 2.0\n{v} = _h({v})",
    "def _h(_t, _s={v}, _u=2.0):\n    return _t * _s + _u\n{v} = _h({v}, _u={v})",
    "_f = lambda _t, _s={v}: _t - _s\n{v} = {v} ** 2\n{v} = _f({v})",
])


comprehension = _templated("comprehension", is_vec, [
    "{v} = {np}.array([_t * 2.0 for _t in {v}])",
    "{v} = {v} + sum([_t ** 2 for _t in {v}])",
    "_acc = 0.0\nfor _i, _t in enumerate({v}):\n    _acc = _acc + _t * (_i + 1)\n"
    "{v} = {v} + _acc",
    "{v} = {np}.array([_a * _b for _a, _b in zip({v}, {v}[::-1])])",
])


def augment_forms(fn, info, rng):
    """``v = v OP e`` as ``v OP= e`` (in place on an array) or the reverse."""
    found = []
    for b in blocks(fn):
        for i, s in enumerate(b):
            if (isinstance(s, ast.Assign) and assigned(s) and isinstance(s.value, ast.BinOp)
                    and isinstance(s.value.left, ast.Name) and s.value.left.id == assigned(s)
                    and isinstance(s.value.op, (ast.Add, ast.Sub, ast.Mult, ast.Div))):
                found.append((b, i, "aug"))
            elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
                found.append((b, i, "plain"))
    site = _pick(rng, found)
    if not site:
        return None
    b, i, how = site
    s = b[i]
    if how == "aug":
        b[i] = ast.copy_location(ast.AugAssign(target=ast.Name(id=s.targets[0].id,
                                                                ctx=ast.Store()),
                                               op=s.value.op, value=s.value.right), s)
    else:
        b[i] = ast.copy_location(ast.Assign(
            targets=[ast.Name(id=s.target.id, ctx=ast.Store())],
            value=ast.BinOp(left=ast.Name(id=s.target.id, ctx=ast.Load()), op=s.op,
                            right=s.value)), s)
    return "augment_forms"


MUTATIONS = [alias_item_write, view_write, alias_then_inplace, out_argument, param_write,
             copy_then_write, item_loop, swap_adjacent, wrap_loop, unroll, for_to_while,
             early_return, while_break, data_branch, ternary, tuple_swap, list_of_arrays,
             closure_rebind, default_argument, comprehension, augment_forms]


# ---- more: calls that write, rows, fancy indices, dicts, generators, try, walrus -------------

def callee_writes(fn, info, rng):
    """A nested function that changes its argument in place (the caller's array)."""
    site = _pick(rng, sites(fn, info, is_vec))
    if not site:
        return None
    b, i, v = site
    form = rng.choice([
        "def _m(_z):\n    _z *= 2.0\n_m({v})",
        "def _m(_z):\n    _z[0] = _z[0] * 3.0\n    return _z[1:]\n_q = _m({v})\n"
        "{v} = {v} + _q.sum()",
        "def _m(_z, _s):\n    _z += _s\n    return _z\n{v} = _m({v} * 1.0, {v})",
    ])
    _insert(b, i, stmt(form.format(v=v)))
    return "callee_writes"


def row_loop(fn, info, rng):
    """Rows of an array are views: writing them in a loop writes the array."""
    site = _pick(rng, sites(fn, info, is_vec))
    if not site:
        return None
    b, i, v = site
    nd = len(info[v][1]) if v in info and info[v][0] == "array" else 1
    if nd >= 2:
        form = rng.choice(["for _r in {v}:\n    _r *= 2.0",
                           "for _r in {v}:\n    _r[0] = _r[0] * _r[-1]",
                           "for _j, _r in enumerate({v}):\n    _r += _j * 0.5"])
    else:
        form = rng.choice(["for _j, _t in enumerate({v}):\n    {v}[_j] = _t * (_j + 1.0)",
                           "for _j in range({v}.size):\n    if {v}[_j] > 0.6:\n"
                           "        {v}[_j] = {v}[_j] ** 2"])
    _insert(b, i, stmt(form.format(v=v)))
    return "row_loop"


fancy_write = _templated("fancy_write", is_vec, [
    "{v}[[0, 0, 1]] += 1.5 * {v}[[1, 0, 0]]",
    "{np}.add.at({v}, [0, 0, 1], {v}[[1, 1, 0]])",
    "{v}[{v} > 0.6] *= 2.0",
    "{v}[[1, 0]] = {v}[[0, 1]]",
    "{v}[...] = {np}.cos({v})",
    "{np}.copyto({v}, {v} * 2.0)",
])


def list_surgery(fn, info, rng):
    site = _pick(rng, sites(fn, info, is_num))
    if not site:
        return None
    b, i, v = site
    form = rng.choice([
        "_L = [{v}, {v} * 2.0]\n_L.insert(0, {v} + 1.0)\n_L.pop(1)\n{v} = _L[0] * _L[-1]",
        "_L = [{v}, {v} * 2.0, {v} * 3.0]\n_L[0:2] = [_L[1] * _L[2]]\n{v} = sum(_L)",
        "_L = [{v}, {v} + 1.0]\n_L.extend([_L[0] * _L[1]])\n_t = _L.pop()\n"
        "{v} = _t + _L[0]",
        "_a, *_rest = [{v}, {v} * 2.0, {v} * 3.0]\n{v} = _a + sum(_rest)",
        "_L = [{v}, {v} * 2.0]\nfor _t in _L:\n    _t *= 2.0\n{v} = _L[0] + _L[1]",
        "_D = {{'a': {v}}}\n_D['a'] = _D['a'] * 2.0\n_D['b'] = _D['a'] + {v}\n{v} = _D['b']",
    ])
    _insert(b, i, stmt(form.format(v=v)))
    return "list_surgery"


generator_forms = _templated("generator_forms", is_num, [
    "{v} = {v} + sum((_t * 2.0 for _t in [{v}, {v} ** 2]))",
    "if (_q := {np}.sum({v})) > 0.5:\n    {v} = {v} * _q",
    "try:\n    {v} = {v} * 2.0\nfinally:\n    {v} = {v} + 1.0",
    "def _r(_t, _n):\n    return _t if _n == 0 else _r({np}.sin(_t), _n - 1)\n"
    "{v} = _r({v}, 2)",
    "{v} = max({v} * 1.0, {v} * 2.0) if {np}.ndim({v}) == 0 else {v}",
])


loop_continue = _templated("loop_continue", is_num, [
    "for _j in range(4):\n    if _j % 2 == 0:\n        continue\n    {v} = {v} * 1.1 + 0.1",
    "_acc = {v} * 0.0\nfor _j in range(3):\n    _acc = _acc + {v}\n"
    "    if {np}.sum(_acc) > 2.0:\n        break\n{v} = _acc",
    "for _j in range(3):\n    {v} = {np}.tanh({v})\nelse:\n    {v} = {v} * 2.0",
])


MUTATIONS += [callee_writes, row_loop, fancy_write, list_surgery, generator_forms,
              loop_continue]


# ---- session 30: lists built by callees, lengths, F(a)(b), loop sums, exp quotients --------

callee_lists = _templated("callee_lists", is_num, [
    "def _mk(_t):\n    return [_t, _t * 2.0]\n_L = _mk({v})\n{v} = _L[0] * _L[1]",
    "def _mk(_t, _n):\n    _out = []\n    for _j in range(_n):\n"
    "        _out.append(_t * (_j + 1.0))\n    return _out\n_L = _mk({v}, 3)\n{v} = sum(_L)",
    "def _mk(_t):\n    return [(_t, _t ** 2), (_t * 0.5, _t)]\n_P = _mk({v})\n"
    "{v} = _P[0][1] + _P[1][0] * _P[1][1]",
    "def _grow(_L, _t):\n    _L.append(_t * 2.0)\n    return _L\n_L = _grow([{v}], {v})\n"
    "{v} = _L[0] * _L[-1]",
    "def _mk(_t):\n    return {{'a': _t, 'b': {np}.sin(_t)}}\n_D = _mk({v})\n"
    "{v} = _D['a'] * _D['b']",
    "_L = [{v}]\n_H = [_L, _L]\n_H[0].append({v} * 2.0)\n{v} = _H[1][0] * _H[1][-1]",
    "def _mk(_t):\n    _out = [_t]\n    _out.append(_out[0] * 3.0)\n    return _out\n"
    "_L = _mk({v})\n_L[0] = _L[0] + _L[1]\n{v} = _L[0] - _mk({v})[1]",
    "def _pair(_t):\n    return [_t * 2.0], [_t + 1.0]\n_A, _B = _pair({v})\n_A.extend(_B)\n"
    "{v} = _A[0] * _A[1]",
])


fixed_lengths = _templated("fixed_lengths", is_num, [
    "_L = [{v}]\nfor _j in range(2):\n    _L.append(_L[-1] * 0.5)\nif len(_L) == 3:\n"
    "    {v} = _L[2] + _L[0]\nelse:\n    {v} = _L[0]",
    "_L = [{v}]\nif {np}.sum({v}) > 0.5:\n    _L.append({v} * 2.0)\n{v} = _L[-1] * len(_L)",
    "if isinstance({v}, float):\n    {v} = {v} * 2.0\nelse:\n    {v} = {v} * 3.0",
    "_T = ({v}, {v} * 2.0)\nif len(_T) == 2 and type(_T) is tuple:\n    {v} = _T[0] + _T[1]",
    "_L = []\nfor _j in range(3):\n    if _j != 1:\n        _L.append({v} * _j)\n"
    "{v} = {v} + _L[len(_L) - 1]",
    "_L = [{v}]\nwhile len(_L) < 3:\n    _L.append(_L[-1] * 1.5)\n{v} = sum(_L)",
    "_L = [{v}, {v}]\n_n = len(_L)\n_L.append({v} * _n)\n{v} = _L[_n]",
    "_L = [{v}, {v} * 2.0]\nif isinstance(_L, list) and len(_L) > 1:\n    _L.pop(0)\n"
    "{v} = _L[0] * len(_L)",
])


applied_calls = _templated("applied_calls", is_num, [
    "def _F(_s):\n    def _G(_t):\n        return _t * _s\n    return _G\n{v} = _F({v})({v} + 1.0)",
    "_F = lambda _s: lambda _t: _t + {np}.sin(_s)\n{v} = _F({v})({v})",
    "def _F(_s):\n    return lambda _t: _t * _s ** 2\n_g = _F({v})\n{v} = _g({v}) + _F(2.0)({v})",
    "def _F(_n):\n    def _G(_t):\n        for _j in range(_n):\n            _t = {np}.tanh(_t)\n"
    "        return _t\n    return _G\n{v} = _F(2)({v})",
    "def _F(_s):\n    def _G(_t):\n        return _t * _s\n    return _G\n_s = {v} * 1.0\n"
    "_g = _F(_s)\n_s = _s + 1.0\n{v} = _g({v}) * _F(_s)(1.0)",
])


loop_sums = _templated("loop_sums", is_num, [
    "_s = 0.0\nfor _j in range(3):\n    _s = _s + {np}.sum({v} * (_j + 1.0))\n"
    "{v} = {v} * _s + _s ** 2",
    "_s = 0.0\nfor _j in range(3):\n    _s += {np}.sum({v}) * _j\n    {v} = {v} + _s",
    "_acc = {np}.zeros(3)\nfor _j in range(3):\n    _s = 0.0\n    for _k in range(2):\n"
    "        _s += {np}.sum({v}) * (_k + 1.0)\n    _acc[_j] = _s * _j\n"
    "{v} = {v} + {np}.sum(_acc ** 2)",
    "_s = 0.0\nfor _j in range(2):\n    _s = _s + {np}.sum({np}.sin({v}))\n    _s *= 1.5\n"
    "{v} = {v} * _s",
    "_t = 0.0\nfor _j in range(3):\n    _t = _t + {np}.sum({v})\n    {v} = {v} * 0.5 + _t",
    "_s = 0.0\nfor _j in range(2):\n    _s = _s + {np}.sum({v} ** 2)\n_u = _s\n_s += 1.0\n"
    "{v} = {v} * _u / _s",
])


exp_quotients = _templated("exp_quotients", is_num, [
    "{v} = 1.0 / (1.0 + {np}.exp(-{v}))",
    "_d = 2.0 + {np}.exp({v})\n{v} = {v} / _d",
    "_d = 1.0 + {np}.exp(-{v})\nfor _j in range(2):\n    {v} = {v} / _d",
    "_d = 0.5 + {np}.exp({v} * 2.0)\nif {np}.sum({v}) > 0.5:\n    {v} = 3.0 / _d\nelse:\n"
    "    {v} = {v} * _d",
    "_d = 1.0 + {np}.exp(-{v})\n_d = _d * 2.0\n{v} = 1.0 / _d",
    "_d = 1.0 + {np}.exp(-{v})\n_q = 1.0 / _d\n_d += 1.0\n{v} = _q + 1.0 / _d",
    "_e = {np}.exp(-{v})\n{v} = {v} / (1.0 + _e) + _e / (2.0 + _e)",
    "_d = 1.0 + {np}.exp(-{v})\nwhile {np}.sum(_d) > 0.0:\n    {v} = {v} / _d\n    break",
])


added_numbers = _templated("added_numbers", is_num, [
    "_k = 0\nfor _j in range(1, 3):\n    _k += {v} * _j\n{v} = _k",
    "_k = 0.0\n_k += {v}\n_k *= 2.0\n{v} = {v} + _k",
    "_k = 0\nfor _j in range(2):\n    _k += {v} * (_j + 1.0)\n_k2 = _k\n_k += 1.0\n"
    "{v} = _k2 * _k",
    "_k = 0\nfor _j in range(1, 3):\n    _k += {v} * _j\n_c = _k\n_c *= 1.5\n{v} = {v} + _k",
    "_k = 0\nfor _j in range(1, 3):\n    _k += {v} * _j\nfor _r in {np}.atleast_1d(_k):\n"
    "    _r *= 2.0\n{v} = {v} + _k",
    "_k = 0\nif {np}.sum({v}) > 0.3:\n    _k += {v}\n_k = _k * 2.0\n{v} = {v} + _k",
])


nested_names = _templated("nested_names", is_num, [
    "for _j in range(2):\n    for _k in range(2):\n        _n = {v} * (_j + _k + 1.0)\n"
    "{v} = {v} + _n",
    "for _k in range(1):\n    for _k in range(2):\n        _r = {np}.sin({v})\n"
    "{v} = {np}.cos(_r)",
    "for _j in range(2):\n    for _k in range(_j):\n        _n = {v} * 2.0\n{v} = _n + {v}",
    "for _j in range(3):\n    if _j > 0:\n        for _k in range(2):\n"
    "            _n = {v} * _k\n            {v} = {v} + 0.1 * _n\n{v} = {v} * _n",
    "_m = 0.0\nfor _j in range(2):\n    for _k in range(2):\n        _m = _m + {v} * _k\n"
    "        _n = _m\n{v} = _n * {v}",
])


MUTATIONS += [callee_lists, fixed_lengths, applied_calls, loop_sums, exp_quotients,
              added_numbers, nested_names]


def mutate(fn, info, rng, count):
    """A mutated copy of ``fn`` and the names of the mutations applied (maybe fewer than
    ``count`` when some do not apply)."""
    fn = copy.deepcopy(fn)
    done = []
    for _ in range(count * 3):
        if len(done) >= count:
            break
        m = rng.choice(MUTATIONS)
        name = m(fn, info, rng)
        if name:
            done.append(name)
    return ast.fix_missing_locations(fn), done
