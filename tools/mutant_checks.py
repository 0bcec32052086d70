"""More checks of a mutant for ``tools/mutant_programs.py`` (session 31): ``has_aux`` pairs and
whole Jacobians and Hessians of several arguments, against a second engine.

- ``aux`` (a mutant differentiated itself, scalar valued): every ``return E`` of the function
  (in branches and loops too, not in a nested def) becomes ``_r = E; return _r, AUX``, with
  ``AUX`` sharing the function's values (``_r`` itself, a parameter the function may have
  written into, a local set before the first return; since session 32, one mutant in three
  builds the pair apart, ``_p = (_r, AUX); return _p``). ``srcad.value_and_grad(has_aux=True)``'s
  value and aux against the plain run's, its gradient by ``differential.compare_grads`` (as
  ``rev``), and ``srcad.grad(has_aux=True)``'s gradient and aux against those.
- ``jac-fwd``, ``jac-rev`` (the function's own output, every differentiated argument at once,
  numbers and arrays mixed, inputs and output of at most 16 elements): ``srcad.jacfwd`` and
  ``srcad.jacrev`` against ``autograd.jacobian`` argument by argument, or, where autograd
  cannot run the mutant, steady central differences; where autograd disagrees, the
  differences judge (autograd may run another program: ``isinstance(x, float)``).
- ``hess-fwd``, ``hess-rev`` (the scalar target, every differentiated argument): the blocks of
  ``srcad.hessian(wrt=all, mode=...)`` against autograd's ``jacobian(grad(f, i), j)`` (where
  they disagree, central differences of srcad's gradient judge).

Imports: ast, copy, numpy, tools/differential, tools/mutations, and srcad, autograd when run.
"""

from __future__ import annotations

import ast
import copy

import differential
import numpy as np
from mutations import assigned, blocks, stmt

SMALL = 16  # the most elements of an input or an output the Jacobian checks take
WRAPPER_J = """

def _srcad_J({params}):
    return {name}({passed})
"""


# ---- has_aux ----------------------------------------------------------------------------------

def _locals_before_return(fn):
    """Names the body assigns before its first statement holding a ``return``."""
    out = []
    for s in fn.body:
        if any(isinstance(n, ast.Return) for n in ast.walk(s)):
            break
        name = assigned(s)
        if name and not name.startswith("_r"):
            out.append(name)
    return out


def with_aux(node, k):
    """``node`` with every return a pair ``(value, aux)``, or None (a return without value)."""
    fn = copy.deepcopy(node)
    params = [a.arg for a in fn.args.args]
    names = _locals_before_return(fn) or params or ["_r"]
    local = names[-1 - k // 2 % len(names)]
    forms = ["_r", f"[_r * 2.0, {params[0] if params else '_r'}]",
             f"{{'v': _r, 'n': {local}}}", f"({local}, _r)"]
    aux = forms[k // 2 % len(forms)]
    found = False
    for b in blocks(fn):
        for i in range(len(b) - 1, -1, -1):
            s = b[i]
            if isinstance(s, ast.Return):
                if s.value is None:
                    return None
                found = True
                pair = (f"_r = {ast.unparse(s.value)}\nreturn _r, {aux}" if k % 3 else
                        f"_r = {ast.unparse(s.value)}\n_p = (_r, {aux})\nreturn _p")
                b[i:i + 1] = [ast.copy_location(x, s) for x in stmt(pair)]
    return ast.fix_missing_locations(fn) if found else None


def _same(a, b):
    """Whether two aux values are equal (containers item by item, arrays to 1e-12)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if callable(a) and callable(b):  # a nested def: srcad's lifted copy (a partial), alike
        return True
    try:
        return bool(np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-12, atol=1e-12,
                                                                   equal_nan=True))
    except TypeError:  # (an object array: == item by item, session 36)
        same = a == b
        return bool(np.all(same)) if isinstance(same, np.ndarray) else bool(same)


def aux_rows(fn, node, prepared, folder, k, load, module_text, fw, xs, other, rs, failure):
    """The ``aux`` check's row (none when the mutant's returns cannot be paired)."""
    import srcad
    paired = with_aux(node, k)
    if paired is None:
        return []
    args, wrt = prepared.args, prepared.wrt
    try:
        mod = load(module_text(fn, paired, True), folder, prepared.data)
        f = getattr(mod, fn.name)
        plain, plain_aux = f(*copy.deepcopy(args))
    except Exception:  # noqa: BLE001 - the paired function does not run plainly
        return []
    path = mod.__file__
    try:
        (value, aux), g = srcad.value_and_grad(f, wrt=wrt, has_aux=True)(*copy.deepcopy(args))
        g = g if isinstance(g, tuple) else (g,)
        if not differential.close(value, plain) or not _same(aux, plain_aux):
            return [("aux", "WRONG", f"value {value!r} aux {aux!r}; plain {plain!r} "
                                     f"{plain_aux!r}"[:400])]
        check, outcome, detail = differential.compare_grads(fw, xs, g, other, rs)
        if outcome != "PASS":
            return [("aux", outcome, detail)]
        g2, aux2 = srcad.grad(f, wrt=wrt, has_aux=True)(*copy.deepcopy(args))
        g2 = g2 if isinstance(g2, tuple) else (g2,)
        if not _same(aux2, plain_aux) or not all(
                np.allclose(a, b, rtol=1e-10, atol=1e-12) for a, b in zip(g, g2)):
            return [("aux", "WRONG", f"grad(has_aux) {g2!r} {aux2!r}, value_and_grad's "
                                     f"{g!r}"[:400])]
        return [("aux", "PASS", "")]
    except Exception as e:  # noqa: BLE001
        return [("aux",) + failure(e, path)]


# ---- Jacobians and Hessians of every argument ---------------------------------------------

def _central(fun, args, j, shape):
    """Central differences of ``fun`` along argument ``j`` at two steps, or None if unsteady."""
    x = args[j]
    outs = []
    for h in (1e-6, 1e-5):
        cols = []
        for i in range(int(np.size(x))):
            e = np.zeros(np.shape(x))
            e.flat[i] = h
            up, down = list(copy.deepcopy(args)), list(copy.deepcopy(args))
            up[j] = x + (e if np.ndim(x) else h)
            down[j] = x - (e if np.ndim(x) else h)
            cols.append((np.asarray(fun(*up), float) - np.asarray(fun(*down), float)) / (2 * h))
        outs.append(np.stack(cols, axis=-1).reshape(tuple(shape) + np.shape(x)))
    mag = max(1.0, float(np.max(np.abs(outs[0]))) if outs[0].size else 1.0)
    if not np.all(np.isfinite(outs[0])) or np.max(np.abs(outs[0] - outs[1]), initial=0) > \
            1e-4 * mag:
        return None
    return outs[0]


def _differs(got, want, tol=1e-6):
    got, want = np.asarray(got, float), np.asarray(want, float)
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    mag = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    if np.max(np.abs(got - want), initial=0) > tol * mag:
        return f"srcad {got.ravel()[:6]!r}, expected {want.ravel()[:6]!r}"
    return None


def _arbitrated(fun, args, j, got, prepared, shape=None):
    """Whether srcad's ``got`` (disagreeing with autograd's) also disagrees with steady
    central differences of ``fun`` along argument ``j`` (autograd may run another program:
    ``isinstance(x, float)`` of its boxes is False); True where they are not steady."""
    want = _central(fun, args, j, prepared.shape if shape is None else shape)
    return want is None or _differs(got, want, 1e-5) is not None


def jacobian_rows(fn, node, prepared, folder, load, module_text, target, failure):
    """``jac-fwd``, ``jac-rev``, ``hess-fwd``, ``hess-rev`` rows (none for large inputs)."""
    import srcad
    args, wrt = prepared.args, prepared.wrt
    if any(np.size(args[j]) > SMALL for j in wrt) or int(np.prod(prepared.shape)) > SMALL:
        return []
    arrays = {p for p, a in zip(fn.params, args) if isinstance(a, np.ndarray)}
    passed = ", ".join(f"{p}.copy()" if p in arrays else p for p in fn.params)
    extra = WRAPPER_J.format(params=", ".join(fn.params), name=fn.name, passed=passed)
    mod = load(module_text(fn, node, True) + extra, folder, prepared.data)
    jfun = mod._srcad_J
    path = mod.__file__
    want_j, want_h, engine = None, None, "differences"
    try:
        import autograd
        amod = load(module_text(fn, node, True, "autograd") + extra, folder, prepared.data,
                    "autograd")
        want_j = [np.asarray(autograd.jacobian(amod._srcad_J, j)(*copy.deepcopy(args)), float)
                  for j in wrt]
        engine = "autograd"
    except Exception:  # noqa: BLE001 - autograd cannot run it
        want_j = None
    if want_j is None:
        want_j = [_central(jfun, args, j, prepared.shape) for j in wrt]
        if any(w is None for w in want_j):
            return []
    rows = []
    for name, jac in (("jac-fwd", srcad.jacfwd), ("jac-rev", srcad.jacrev)):
        try:
            got = jac(jfun, wrt=tuple(wrt))(*copy.deepcopy(args))
            got = got if isinstance(got, tuple) else (got,)
            if isinstance(jfun(*copy.deepcopy(args)), tuple):  # (corpus32) JAX's layout, one
                # item per output, each one per argument: stacked per argument, as autograd's
                got = tuple(np.stack([np.asarray(o[a], float) for o in got])
                            for a in range(len(wrt)))
            bad = next((f"argument {j}: {d}" for j, g, w in zip(wrt, got, want_j)
                        if (d := _differs(g, w)) and _arbitrated(jfun, args, j, g, prepared)),
                       None)
            rows.append((name, "WRONG" if bad else "PASS", f"{bad} [{engine}]" if bad else ""))
        except Exception as e:  # noqa: BLE001
            rows.append((name,) + failure(e, path))
    if engine != "autograd" or target is None:
        return rows
    try:
        tmod = load(target[0], folder, prepared.data, "autograd")
        if target[1] is not None:
            tmod._W = target[1]
        tf = getattr(tmod, target[2])
        want_h = [[np.asarray(autograd.jacobian(autograd.grad(tf, i), j)(
            *copy.deepcopy(args)), float) for j in wrt] for i in wrt]
    except Exception:  # noqa: BLE001
        return rows
    for mode in ("fwd", "rev"):
        try:
            H = srcad.hessian(target[3], wrt=tuple(wrt), mode=mode)(*copy.deepcopy(args))
            if not isinstance(H, tuple):
                H = ((H,),)
            bad = next((f"block {i},{j}: {d}" for a, i in enumerate(wrt)
                        for b, j in enumerate(wrt) if (d := _differs(H[a][b], want_h[a][b]))
                        and _arbitrated(srcad.grad(target[3], wrt=i), args, j, H[a][b],
                                        prepared, np.shape(args[i]))), None)
            rows.append((f"hess-{mode}", "WRONG" if bad else "PASS", bad or ""))
        except Exception as e:  # noqa: BLE001
            rows.append((f"hess-{mode}",) + failure(e, path))
    return rows
