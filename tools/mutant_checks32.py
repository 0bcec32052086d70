"""Session 32's check of a mutant for ``tools/mutant_programs.py``: one Jacobian function called
again with other arguments.

``jac-again``: ``srcad.jacfwd``, ``srcad.jacrev`` and ``srcad.jacobian`` of the mutant's own
output (every differentiated argument at once) are made once and called first with the
arguments the harness prepared, then, the same objects, with arguments of other shapes and ranks
(the other input profiles of ``tools/mutant_sources.py`` the plain function runs on), a
number where an array was, and an ``int`` where a number was: srcad's specialisations are
keyed on the kinds of the arguments, so each call must give the Jacobian of its own arguments.
Each against autograd's ``jacobian``, argument by argument (central differences judging where
autograd disagrees, as ``tools/mutant_checks.jacobian_rows`` does). An ``int`` argument is
only judged where srcad returns a gradient (a refusal to differentiate an ``int`` naming no
line is not counted).

Imports: copy, numpy, tools/mutant_checks, tools/mutant_sources, and srcad, autograd when run.
"""

from __future__ import annotations

import copy

import mutant_checks
import mutant_sources
import numpy as np


def _variants(fn, prepared, rs):
    """Argument lists of other shapes and kinds than ``prepared.args`` (at most four)."""
    ints = mutant_sources.int_names(fn.node)
    out = []
    for profile in mutant_sources.PROFILES:
        vals = mutant_sources.profile_values(fn.params, ints, profile, rs, True)
        args = [vals[p] for p in fn.params]
        if any(np.shape(a) != np.shape(b) for a, b in zip(args, prepared.args)):
            out.append((f"profile {profile!r}", args))
    first = next((j for j in prepared.wrt if isinstance(prepared.args[j], np.ndarray)), None)
    if first is not None:
        args = list(copy.deepcopy(prepared.args))
        args[first] = float(rs.uniform(0.3, 1.2))
        out.append((f"a number for argument {first}", args))
    num = next((j for j in prepared.wrt if isinstance(prepared.args[j], float)), None)
    if num is not None:
        args = list(copy.deepcopy(prepared.args))
        args[num] = 1
        out.append((f"an int for argument {num}", args))
    rs.shuffle(out)
    return out[:4]


def again_rows(fn, node, prepared, folder, load, module_text, failure, rs):
    """The ``jac-again`` row (none where nothing else runs or autograd cannot run it)."""
    import autograd

    import srcad
    wrt = tuple(prepared.wrt)
    scaled = {fn.params[j] for j in wrt}
    extra = mutant_checks.WRAPPER_J.format(
        params=", ".join(fn.params), name=fn.name,
        passed=", ".join(f"{p} * 1.0" if p in scaled else p for p in fn.params))
    mod = load(module_text(fn, node, True) + extra, folder, prepared.data)
    amod = load(module_text(fn, node, True, "autograd") + extra, folder, prepared.data,
                "autograd")
    jfun, path = mod._srcad_J, mod.__file__
    made = [("jacfwd", srcad.jacfwd(jfun, wrt=wrt)), ("jacrev", srcad.jacrev(jfun, wrt=wrt)),
            ("jacobian", srcad.jacobian(jfun, wrt=wrt))]
    calls = [("the first arguments", list(prepared.args))] + _variants(fn, prepared, rs)
    judged = 0
    for what, args in calls:
        try:
            out = np.asarray(jfun(*copy.deepcopy(args)), float)
        except Exception:  # noqa: BLE001 - the plain function does not run on these
            continue
        if not np.all(np.isfinite(out)) or out.size > mutant_checks.SMALL or any(
                np.size(args[j]) > mutant_checks.SMALL for j in wrt):
            continue
        try:
            want = [np.asarray(autograd.jacobian(amod._srcad_J, j)(*copy.deepcopy(args)),
                               float) for j in wrt]
        except Exception:  # noqa: BLE001 - no second opinion for these
            continue
        shape = np.shape(out)
        for name, jac in made:
            try:
                got = jac(*copy.deepcopy(args))
            except srcad.SrcadError as e:
                if what.startswith("an int"):
                    continue
                return [("jac-again",) + failure(e, path)]
            except Exception as e:  # noqa: BLE001
                kind, detail = failure(e, path)
                return [("jac-again", kind, f"{name} on {what}: {detail}")]
            got = got if isinstance(got, tuple) else (got,)
            for j, g, w in zip(wrt, got, want):
                d = mutant_checks._differs(g, w)
                if d and mutant_checks._arbitrated(jfun, args, j, g, prepared, shape):
                    return [("jac-again", "WRONG", f"{name} on {what}, argument {j}: {d}")]
            judged += 1
    return [("jac-again", "PASS", "")] if judged > 3 else []
