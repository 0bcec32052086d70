"""Session 33's checks of a mutant for ``tools/mutant_programs.py``.

- ``raises`` (a mutant whose plain run raises, counted INVALID before session 33): where the
  function raises, its derivatives raise (srcad's policy, ``srcad.rules.raising``): its
  ``srcad.value_and_grad`` and ``srcad.jvp`` are called on the same arguments; one returning
  a value is WRONG (a derivative where the function is not defined). Raising, of any type, or
  refusing (a ``SrcadError`` naming the line) keeps the mutant INVALID, the row saying how.
- ``trees`` (a mutant differentiated itself, every argument differentiated, after its
  gradient passed): ``srcad.grad`` of a function of a dict of its arguments called with the
  dict, then, the same object, with the keys in the other order and with an extra key (its
  gradient zero); ``srcad.grad`` of a function reading the fields of its argument called with
  a named tuple, another named tuple class of the same fields, a dataclass and another
  dataclass of the same fields. ``srcad.tree_keys`` finds the specialisation by the
  argument's structure: each call must give the mutant's own gradient (checked as ``rev``),
  in the structure and class of the argument it was given.

Imports: copy, numpy, and srcad when run.
"""

from __future__ import annotations

import copy

import numpy as np

TREES = """

import collections as _co
import dataclasses as _dc

_T1 = _co.namedtuple("_T1", {fields!r})
_T2 = _co.namedtuple("_T2", {fields!r})
_D1 = _dc.make_dataclass("_D1", {fields!r})
_D2 = _dc.make_dataclass("_D2", {fields!r})


def _srcad_K(_d):
    return {name}({by_key})


def _srcad_A(_d):
    return {name}({by_field})
"""


def raise_rows(target, args, wrt, raised, path, failure):
    """The ``raises`` rows of a mutant whose plain run raised ``raised``."""
    import srcad
    rows = []
    calls = [("raises-rev", lambda: srcad.value_and_grad(target, wrt=wrt)(
        *copy.deepcopy(args))),
             ("raises-fwd", lambda: srcad.jvp(target, tuple(copy.deepcopy(args)), tuple(
                 np.ones_like(np.asarray(args[j], dtype=float)) if np.ndim(args[j]) else 1.0
                 for j in wrt), wrt=wrt))]
    for check, run in calls:
        try:
            out = run()
        except srcad.SrcadError as e:
            kind, detail = failure(e, path)
            rows.append((check, "INVALID", f"{kind}: {detail}"[:300]))
            continue
        except Exception as e:  # noqa: BLE001 - raised, as the function does
            same = "the same type" if isinstance(e, type(raised)) else "another type"
            rows.append((check, "INVALID", f"raised {type(e).__name__} ({same}) where the "
                                           f"function raised {type(raised).__name__}"))
            continue
        rows.append((check, "WRONG", f"returned {out!r} where the function raised "
                                     f"{type(raised).__name__}: {raised}"[:400]))
    return rows


def tree_rows(fn, node, prepared, folder, load, module_text, g, failure):
    """The ``trees`` row (none where not every argument is differentiated)."""
    import srcad
    args, wrt, params = prepared.args, tuple(prepared.wrt), list(fn.params)
    if not params or len(wrt) != len(params):
        return []
    fields = [f"f{k}" for k in range(len(params))]
    extra = TREES.format(fields=fields, name=fn.name,
                         by_key=", ".join(f"_d[{p!r}]" for p in params),
                         by_field=", ".join(f"_d.{f}" for f in fields))
    try:
        mod = load(module_text(fn, node, True) + extra, folder, prepared.data)
    except Exception:  # noqa: BLE001 - (the module does not load again)
        return []
    path = mod.__file__
    want = [np.asarray(x, dtype=float) for x in g]
    scale = max([1.0] + [float(np.max(np.abs(w))) for w in want if np.size(w)])

    def close(got, k):
        got = np.asarray(got, dtype=float)
        return got.shape == want[k].shape and np.allclose(got, want[k], rtol=1e-8,
                                                          atol=1e-10 * scale)

    keyed = dict(zip(params, copy.deepcopy(args)))
    calls = [("a dict", keyed), ("its keys in the other order", dict(reversed(list(
        copy.deepcopy(keyed).items())))), ("an extra key", {**copy.deepcopy(keyed),
                                                              "_srcad_extra": 1.5})]
    try:
        by_key = srcad.grad(mod._srcad_K)
        for what, arg in calls:
            out = by_key(arg)
            if not isinstance(out, dict) or set(out) != set(arg) or not all(
                    close(out[p], k) for k, p in enumerate(params)) or (
                    "_srcad_extra" in out and out["_srcad_extra"] != 0.0):
                return [("trees", "WRONG", f"grad of a dict, called with {what}: {out!r}, "
                                           f"the gradient {want!r}"[:400])]
        by_field = srcad.grad(mod._srcad_A)
        for cls in (mod._T1, mod._T2, mod._D1, mod._D2):
            out = by_field(cls(*copy.deepcopy(args)))
            if type(out) is not cls or not all(close(getattr(out, f), k)
                                               for k, f in enumerate(fields)):
                return [("trees", "WRONG", f"grad of a {cls.__name__}: {out!r}, the "
                                           f"gradient {want!r}"[:400])]
        return [("trees", "PASS", "")]
    except Exception as e:  # noqa: BLE001
        return [("trees",) + failure(e, path)]
