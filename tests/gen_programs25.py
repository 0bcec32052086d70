"""Sound25's independent generator of random programs (tests/test_fuzz25_programs.py runs
them): Python as people write it where the older generators (gen_programs*.py,
gen_array_programs.py) do not look. Two families of snippets, composed three to six at a time:

- "py", ``f(x, y, z)`` of three floats: lists, dicts, tuples and small user objects (a class
  with methods, a dataclass, a holder of objects) changed in loops; closures and lambdas
  capturing loop and comprehension variables (late binding, default arguments); aliasing
  (``b = a; b[0] += ...``, one list held twice); ``int``/``bool``/``float`` mixing (``k =
  int(v > c)``, comparisons in arithmetic, ``//``, ``%``, ``math.floor``); ties (``max(v,
  v)``, ``sorted([v, v, w])``); value-dependent ``while`` loops, ``break``/``continue``,
  recursion, early returns, comprehensions with conditions; ``sum``/``math.fsum``/
  ``functools.reduce``; item-of-item and attribute augmented assignment;
- "np", ``f(x, a, M)`` of a float, an array (4,) and an array (3, 4): reductions with
  ``axis``/``keepdims``, broadcasting, in-place writes on slices and views (``b[1:] += ...``,
  ``b[::2] *= ...``, ``B.T[0] += ...``), ``np.add.at``, ``out=``, masks, aliasing, one array
  held twice in a list, ``astype``, ``//``, ``%``, ``np.where``/``np.clip``/``np.abs``/
  ``np.maximum`` at ties (``np.maximum(v, v)``, ``np.max(np.concatenate([v, v]))``),
  ``argmax``/``argsort``-driven indexing, loops over rows, value-dependent loops.

Snippets srcad refuses by design (item-of-item augmented assignment, attribute writes, aliased
writes, ``pop``, ...; `PY_REFUSED`, `NP_REFUSED`) are drawn in 15% of the programs only, so
most programs are judged on their numbers. `program(seed, family)` gives ``(text, twin,
tags)``: the module text defining ``f``, the same text on ``autograd.numpy``, and the features
drawn. Every denominator is bounded away from zero; the non-smooth points are comparisons,
``abs``, ``max``/``min``, ``//``, ``%``, ``floor``, ``np.clip`` and the value-dependent trip
counts (the harness tells kinks from bugs by differences at two step sizes). Imports only
the standard library."""

from __future__ import annotations

import random

HEAD = """\
import dataclasses
import functools
import math

import numpy as np


class P:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def f(self, t):
        return self.w * t + self.b

    def bump(self, d):
        self.w += d
        return self


class Holder:
    def __init__(self, items):
        self.items = items
        self.total = 0.0


@dataclasses.dataclass
class D:
    u: float
    v: float

    def norm2(self):
        return self.u * self.u + self.v * self.v


def rec(t, n):
    if n == 0:
        return t
    return rec(t * 0.9 + math.sin(t) * 0.3, n - 1)


def arec(t, n):
    if n == 0:
        return t
    return arec(np.tanh(t) * 0.8 + t * 0.1, n - 1)


"""


#: snippet kinds srcad refuses by design (drawn in 15% of the programs only)
PY_REFUSED = {2, 3, 4, 5, 6, 7, 9, 20, 21, 23, 24, 25, 27, 28}
NP_REFUSED = {4, 5, 6}


class Base:
    """Names, constants and smooth expressions of the names drawn so far."""

    def __init__(self, seed, family):
        self.r = random.Random(seed)
        self.family = family
        self.n = 0
        self.s = ["x"] if family == "np" else ["x", "y", "z"]  # scalar names
        self.v = ["a"] if family == "np" else []  # arrays (4,)
        self.m = ["M"] if family == "np" else []  # arrays (3, 4)
        self.lines = []
        self.tags = []
        self.allow = self.r.random() < 0.15

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    def c(self):
        return self.r.choice(["0.5", "1.5", "0.3", "-0.7", "2.0", "0.25", "1.1"])

    def th(self):
        return self.r.choice(["0.1", "0.2", "-0.1", "0.0", "0.35", "-0.3"])

    def S(self, d=0):
        """A smooth scalar expression of the scalar names."""
        r = self.r
        if d >= 2 or r.random() < 0.35:
            return r.choice(self.s) if r.random() < 0.85 else self.c()
        k = r.randrange(8)
        a, b = self.S(d + 1), self.S(d + 1)
        if k == 0:
            return f"({a} + {b})"
        if k == 1:
            return f"({a} - {b} * {self.c()})"
        if k == 2:
            return f"({a} * {b})"
        if k == 3:
            return f"({a} / (1.0 + {b} * {b}))"
        if k == 4:
            return f"math.sin({a})" if self.family == "py" else f"np.sin({a})"
        if k == 5:
            return f"math.tanh({a})" if self.family == "py" else f"np.tanh({a})"
        if k == 6:
            return f"math.exp(-{a} * {a})" if self.family == "py" else f"np.exp(-{a} * {a})"
        return f"({a} * {self.c()} + {b})"

    def V(self, d=0):
        """A smooth (4,) array expression."""
        r = self.r
        if d >= 2 or r.random() < 0.4:
            return r.choice(self.v)
        k = r.randrange(7)
        a, b = self.V(d + 1), self.V(d + 1)
        if k == 0:
            return f"({a} + {b})"
        if k == 1:
            return f"({a} * {self.S(1)})"
        if k == 2:
            return f"({a} * {b})"
        if k == 3:
            return f"np.sin({a})"
        if k == 4:
            return f"np.tanh({a} * {self.c()})"
        if k == 5:
            return f"({a} / (1.0 + {b} * {b}))"
        return f"({a} - {self.c()})"

    def Mx(self, d=0):
        r = self.r
        if d >= 1 or r.random() < 0.5:
            return r.choice(self.m)
        k = r.randrange(4)
        a = self.Mx(d + 1)
        if k == 0:
            return f"({a} * {self.V(1)})"
        if k == 1:
            return f"np.tanh({a})"
        if k == 2:
            return f"({a} + {self.S(1)})"
        return f"({a} * {r.choice(self.m)})"

    def emit(self, *ls):
        self.lines.extend(ls)

    # ---------------------------------------------------------------- py snippets

class PySnippets:
    """The "py" family's snippets."""

    def py_snippet(self):
        r = self.r
        k = r.randrange(30)
        while k in PY_REFUSED and not self.allow:
            k = r.randrange(30)
        S = self.S
        o = self.fresh("s")
        if k == 0:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]",
                      f"for i in range(len({L})):",
                      f"    {L}[i] = {L}[i] * {S()} + {S()}",
                      f"{o} = sum({L})")
        elif k == 1:
            d = self.fresh("d")
            self.emit(f"{d} = {{'p': {S()}, 'q': {S()}}}",
                      f"{d}['p'] += {S()}", f"{d}['q'] *= {d}['p']",
                      f"{o} = {d}['p'] - {d}['q']")
        elif k == 2:
            nm = self.fresh("nest")
            self.emit(f"{nm} = [[{S()}, {S()}], [{S()}, {S()}]]",
                      f"for row in {nm}:", f"    row[0] += row[1] * {S()}",
                      f"{nm}[1][0] *= {S()}",
                      f"{o} = {nm}[0][0] + {nm}[1][0] * {nm}[1][1]")
        elif k == 3:
            b = self.fresh("box")
            self.emit(f"{b} = {{'k': [{S()}, {S()}], 'm': ({S()}, {S()})}}",
                      f"{b}['k'][1] += {b}['m'][0] * {S()}",
                      f"{o} = {b}['k'][0] * {b}['k'][1] + {b}['m'][1]")
        elif k == 4:
            ps = self.fresh("ps")
            body = r.choice([f"p.bump({S()})"] if not self.allow else [
                f"p.w += {S()}", f"p.bump({S()})", f"p.b *= {S()}", f"p.b = p.f({S()})"])
            self.emit(f"{ps} = [P({S()}, {S()}), P({S()}, {S()})]",
                      f"for p in {ps}:", f"    {body}",
                      f"{o} = sum(p.f({S()}) for p in {ps})")
        elif k == 5:
            h = self.fresh("h")
            self.emit(f"{h} = Holder([P({S()}, {S()}), P({S()}, {S()})])",
                      f"{h}.items[1].w *= {S()}",
                      f"{h}.total += {h}.items[0].f({S()})",
                      f"{h}.total += {h}.items[1].b",
                      f"{o} = {h}.total + {h}.items[1].w")
        elif k == 6:
            dd = self.fresh("dd")
            self.emit(f"{dd} = D({S()}, {S()})", f"{dd}.u += {S()}",
                      f"{dd}2 = dataclasses.replace({dd}, v={S()})",
                      f"{o} = {dd}.norm2() + {dd}2.v * {dd}2.u")
        elif k == 7:  # late binding of a comprehension variable
            fs = self.fresh("fs")
            self.emit(f"{fs} = [lambda t: t * k + {S()} for k in ({S()}, {S()}, {S()})]",
                      f"{o} = sum(g({S()}) for g in {fs})")
            self.tags.append("late_comp")
        elif k == 8:
            fs = self.fresh("fs")
            self.emit(f"{fs} = [lambda t, k=k: t * k for k in ({S()}, {S()})]",
                      f"{o} = {fs}[0]({S()}) + {fs}[1]({S()})")
            self.tags.append("default_capture")
        elif k == 9:  # closures in a loop, a captured local changed after
            fs, cc = self.fresh("fs"), self.fresh("cc")
            self.emit(f"{cc} = {S()}", f"{fs} = []", "for k in range(3):",
                      f"    {fs}.append(lambda t: t * {cc} + k)",
                      f"{cc} = {S()}",
                      f"{o} = {fs}[0]({S()}) + {fs}[2]({S()})")
            self.tags.append("late_loop")
        elif k == 10:
            self.emit(f"{o} = functools.reduce(lambda p, q: p * q + 0.5, [{S()}, {S()}, {S()}],"
                      f" {S()})")
        elif k == 11:
            self.emit(f"{o} = math.fsum([{S()}, {S()}, {S()}]) + sum(({S()}, {S()}), {S()})")
        elif k == 12:
            self.emit(f"{o} = sum([t * {S()} for t in ({S()}, {S()}, {S()}) if t > {self.th()}])")
        elif k == 13:
            n = self.fresh("n")
            self.emit(f"{o} = {S()}", f"{n} = 0",
                      f"while abs({o}) < 3.0 and {n} < 6:",
                      f"    {o} = {o} * 1.5 + {S()}", f"    {n} += 1")
        elif k == 14:
            self.emit(f"{o} = 0.0", f"for t in [{S()}, {S()}, {S()}, {S()}]:",
                      f"    if t > {self.th()}:", "        continue",
                      f"    {o} += t * {S()}", f"    if {o} < -0.4:", "        break")
        elif k == 15:
            self.emit(f"{o} = rec({S()}, {r.randrange(1, 4)})")
        elif k == 16:
            kk = self.fresh("k")
            self.emit(f"{kk} = int({S()} > {self.th()})",
                      f"{o} = {S()} * {kk} + {S()} * (1 - {kk})")
            self.tags.append("int_bool")
        elif k == 17:
            self.emit(f"{o} = {S()} * ({S()} > {self.th()}) + ({S()} < {self.th()}) * {S()}")
            self.tags.append("bool_arith")
        elif k == 18:
            self.emit(f"{o} = ({S()} // 0.7) * {S()} + {S()} % 0.9 + math.floor({S()}) * {S()}")
            self.tags.append("floordiv_mod")
        elif k == 19:  # ties
            v = r.choice(self.s)
            w = S()
            form = r.choice([f"max({v}, {v})", f"min({v}, {v}, {v} * 1.0)", f"abs({v} - {v}) + {v}",
                             f"sorted([{v}, {v}, {w}])[0]", f"max([{v}, {w}, {v}])",
                             f"min({v}, {w}) + max({v}, {w})", f"max({v} * 2.0, {v} + {v})"])
            self.emit(f"{o} = {form}")
            self.tags.append("tie")
        elif k == 20:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}]", f"{L}b = {L}", f"{L}b[0] += {S()}",
                      f"{o} = {L}[0] * {L}[1]")
            self.tags.append("alias_list")
        elif k == 21:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}]", f"{L}m = [{L}, {L}]", f"{L}m[0][1] *= {S()}",
                      f"{o} = {L}m[1][1] + {L}[0]")
            self.tags.append("alias_twice")
        elif k == 22:
            p, q = self.fresh("p"), self.fresh("q")
            self.emit(f"{p}, {q} = {S()}, {S()}", "for _ in range(3):",
                      f"    {p}, {q} = {q}, {p} * {self.c()} + math.sin({q})",
                      f"{o} = {p} + {q}")
        elif k == 23:
            ob = self.fresh("objs")
            self.emit(f"{ob} = {{'a': P({S()}, {S()})}}", f"{ob}['a'].b += {S()}",
                      f"{o} = {ob}['a'].f({S()})")
        elif k == 24:
            self.emit(f"{o} = P({S()}, {S()}).bump({S()}).bump({S()}).f({S()})")
        elif k == 25:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}]", f"{L}.extend([{S()}])", f"{L}.insert(0, {S()})",
                      f"{o} = {L}.pop(1) * {L}[-1] + {L}[0]")
        elif k == 26:
            d = self.fresh("d")
            self.emit(f"{d} = {{'u': {S()}, 'v': {S()}, 'w': {S()}}}",
                      f"{o} = sum(val * i for i, val in enumerate({d}.values()))",
                      f"for key, val in {d}.items():", f"    {o} += val * val * {self.c()}")
        elif k == 27:
            acc = self.fresh("acc")
            self.emit(f"{acc} = [{S()}]", "def inner(t):", f"    {acc}[0] += t * {self.c()}",
                      f"    return {acc}[0]", f"{o} = inner({S()}) + inner({S()})")
            self.tags.append("closure_mutates")
        elif k == 28:
            t = self.fresh("t")
            self.emit(f"{t} = ({S()}, [{S()}, {S()}])", f"{t}[1][0] += {t}[0]",
                      f"{o} = {t}[1][0] * {t}[1][1]")
        else:
            self.emit(f"{o} = {S()} if {S()} > {self.th()} else {S()}")
        self.s.append(o)

    # ---------------------------------------------------------------- np snippets

class NpSnippets:
    """The "np" family's snippets."""

    def np_snippet(self):
        r = self.r
        k = r.randrange(34)
        while k in NP_REFUSED and not self.allow:
            k = r.randrange(34)
        S, V, Mx = self.S, self.V, self.Mx
        kind = "v"
        o = self.fresh("b")
        if k == 0:
            ax = r.choice(["axis=0", "axis=1", "axis=1, keepdims=True", "axis=0, keepdims=True"])
            red = r.choice(["np.sum", "np.mean", "np.max", "np.min", "np.prod", "np.std",
                            "np.var"])
            e = f"{red}({Mx()}, {ax})" if red != "np.prod" else f"{red}(1.0 + 0.1 * {Mx()}, {ax})"
            self.emit(f"{o}r = {e}", f"{o} = np.sum({o}r * {o}r) + {S()}")
            kind = "s"
            self.tags.append("axis_red")
        elif k == 1:
            self.emit(f"{o} = {V()}.copy()", f"{o}[1:] += {V()}[:3]", f"{o}[::2] *= {S()}",
                      f"{o}[-1] -= {S()}")
            self.tags.append("slice_inplace")
        elif k == 2:
            self.emit(f"{o} = np.zeros(4)", f"np.add.at({o}, [0, 2, 2, 3], {V()} * {S()})")
            self.tags.append("add_at")
        elif k == 3:
            self.emit(f"{o} = np.empty(4)", f"np.multiply({V()}, {V()}, out={o})",
                      r.choice([f"np.sin({o}, out={o})", f"np.add({o}, {S()}, out={o})",
                                f"np.tanh({o}, out={o})"]))
            self.tags.append("out")
        elif k == 4:
            B = self.fresh("B")
            self.emit(f"{B} = {Mx()}.copy()", f"{B}v = {B}[1]", f"{B}v *= {S()}",
                      f"{B}[:, 2] += {V()}[:3]", f"{B}.T[0] += {S()}")
            self.m.append(B)
            self.tags.append("view_write")
            return
        elif k == 5:
            self.emit(f"{o} = {V()}.copy()", f"{o}c = {o}", f"{o}c[2] = {S()}",
                      f"{o} = {o} * {V()}")
            self.tags.append("alias")
        elif k == 6:
            self.emit(f"{o}0 = {V()} * 1.0", f"{o}L = [{o}0, {o}0]", f"{o}L[0][1] += {S()}",
                      f"{o} = {o}L[1] + {o}0 * {S()}")
            self.tags.append("alias_twice")
        elif k == 7:
            v = V()
            self.emit(f"{o}k = np.argmax({v})", f"{o} = {v}[{o}k] * {S()}")
            kind = "s"
            self.tags.append("argmax")
        elif k == 8:
            v = V()
            self.emit(f"{o}i = np.argsort({v})",
                      f"{o} = {v}[{o}i] * np.array([1.0, 2.0, 3.0, 4.0])")
            self.tags.append("argsort")
        elif k == 9:
            self.emit(f"{o} = np.sort({V()}) * np.array([1.0, -2.0, 0.5, 3.0])")
            self.tags.append("sort")
        elif k == 10:
            self.emit(f"{o} = ({V()} > {self.th()}).astype(float) * {V()}")
            self.tags.append("astype")
        elif k == 11:
            v = V()
            self.emit(f"{o} = ({v} // 0.5) * {v} + {v} % 0.7 + {v}.astype(np.float64)")
            self.tags.append("floordiv_mod")
        elif k == 12:
            v = V()
            self.emit(f"{o}n = int(np.sum({v} > 0))", f"{o} = np.sum({v}[: {o}n + 1]) * {S()}")
            kind = "s"
            self.tags.append("value_slice")
        elif k == 13:
            v = self.r.choice(self.v)
            w = V()
            form = r.choice([f"np.where({v} > {v}, {v}, 2.0 * {v})",
                             f"np.clip({v}, {v} - 0.0, {v} + 1.0)",
                             f"np.clip({v}, {v} - 1.0, {v})",
                             f"np.maximum({v}, {v})", f"np.minimum({v}, {v})",
                             f"np.abs({v} - {v}) + {v}", f"np.fmax({v}, {v})",
                             f"np.max(np.stack([{v}, {v}]), axis=0)",
                             f"np.max(np.concatenate([{v}, {v}])) + {v}",
                             f"np.min(np.concatenate([{v}, {w}, {v}])) + {v}",
                             f"np.maximum({v}, {w}) + np.minimum({v}, {w})",
                             f"np.sort(np.concatenate([{v}, {v}]))[:4]",
                             f"np.amax(np.stack([{v}, {v} * 1.0]), axis=0)",
                             f"np.max(np.stack([{v}, {v}]).T, axis=1)",
                             f"np.median(np.stack([{v}, {v}, {w}]), axis=0)",
                             f"np.linalg.norm(np.stack([{v}, {v}]), axis=0)",
                             f"np.ptp(np.stack([{v}, {v} * 2.0]), axis=0)",
                             ])
            self.emit(f"{o} = {form}")
            self.tags.append("tie")
        elif k == 14:
            self.emit(f"{o} = np.clip({V()}, -0.5, 0.5) + np.abs({V()})")
            self.tags.append("clip_abs")
        elif k == 15:
            m = Mx()
            self.emit(f"{o} = np.zeros(4)", f"for row in {m}:", f"    {o} = {o} + row * {S()}")
            self.tags.append("row_loop")
        elif k == 16:
            B = self.fresh("B")
            self.emit(f"{B} = {Mx()}.copy()", "for i in range(3):",
                      f"    {B}[i] = {B}[i] * {S()} + {V()}")
            self.m.append(B)
            self.tags.append("row_write")
            return
        elif k == 17:
            self.emit(f"{o} = {V()} * 1.0", f"{o}n = 0",
                      f"while np.sum({o} * {o}) < 4.0 and {o}n < 5:",
                      f"    {o} = {o} * 1.3 + 0.1", f"    {o}n += 1")
        elif k == 18:
            m = Mx()
            self.emit(f"{o}M = ({m} - {m}.mean(axis=1, keepdims=True)) / "
                      f"(1.0 + {m}.std(axis=1, keepdims=True))",
                      f"{o} = np.sum({o}M * {V()}[None, :], axis=0)")
            self.tags.append("keepdims")
        elif k == 19:
            self.emit(f"{o} = {Mx()}.T @ ({Mx()} @ {V()}) * 0.1")
        elif k == 20:
            self.emit(f"{o} = np.cumsum({Mx()}, axis=1)[1] + np.cumprod(1.0 + 0.1 * {V()})")
            self.tags.append("cum")
        elif k == 21:
            m = Mx()
            self.emit(f"{o} = np.sum({m}[{m} > {self.th()}]) + {V()}")
            self.tags.append("mask_read")
        elif k == 22:
            self.emit(f"{o} = {V()}[[0, 0, 3, 1]] * {V()}")
            self.tags.append("fancy_read")
        elif k == 23:
            self.emit(f"{o} = np.einsum('ij,j->i', {Mx()}, {V()})[[0, 1, 2, 2]]")
        elif k == 24:
            self.emit(f"{o} = {V()}.copy()", f"{o}[{o} < {self.th()}] = 0.0",
                      f"{o}[{o} > {self.th()}] *= {S()}")
            self.tags.append("mask_write")
        elif k == 25:
            self.emit(f"{o} = np.roll({V()}, 1) + np.flip({V()}) + np.take({V()}, [3, 0, 0, 1])")
        elif k == 26:
            self.emit(f"{o} = {V()}.copy()", f"{o}w = {o}[1:]", f"{o}w *= {S()}",
                      f"{o}w[0] += {S()}")
            self.tags.append("view_alias")
        elif k == 27:
            self.emit(f"{o} = arec({V()}, {r.randrange(1, 4)})")
        elif k == 28:
            B = self.fresh("B")
            self.emit(f"{B} = {Mx()} + 0.0", f"{B}[{B} > {self.th()}] = {S()}",
                      f"{B}[0, :] += {V()}", f"{B}[:, ::2] *= {S()}")
            self.m.append(B)
            self.tags.append("mat_write")
            return
        elif k == 29:
            m = Mx()
            self.emit(f"{o}i = np.argmax({m}, axis=1)", f"{o} = {m}[np.arange(3), {o}i]",
                      f"{o} = np.concatenate([{o}, [{S()}]])")
            self.tags.append("argmax_axis")
        elif k == 30:
            v = V()
            self.emit(f"{o}s = sorted([{v}[0], {v}[1], {v}[2]])",
                      f"{o} = {o}s[0] * {S()} + {o}s[2] + max({v}[3], {v}[0])")
            kind = "s"
            self.tags.append("py_on_items")
        elif k == 31:
            self.emit(f"{o} = {V()}.copy()", f"{o} += {V()}[::-1]", f"{o}[:2] = {o}[2:]",
                      f"{o}[1::2] /= (1.0 + {V()}[::2] ** 2)")
            self.tags.append("overlap_write")
        elif k == 32:
            m = Mx()
            self.emit(f"{o}k = np.sum({m} > 0, axis=0)", f"{o} = {o}k * {V()} + ({V()} > 0) * 1.0")
            self.tags.append("count_arith")
        else:
            self.emit(f"{o} = np.where({V()} > {self.th()}, {V()}, {V()} * 0.5)")
            self.tags.append("where")
        if kind == "s":
            self.s.append(o)
        else:
            self.v.append(o)


class G(Base, PySnippets, NpSnippets):
    """One program being drawn."""

    def program(self):
        n = self.r.randrange(3, 7)
        for _ in range(n):
            (self.py_snippet if self.family == "py" else self.np_snippet)()
        # combine: every name made contributes
        terms = [f"{self.c()} * {s}" for s in self.s[1 if self.family == "np" else 3:]]
        terms += [f"{self.c()} * np.sum({v})" for v in self.v[1:]]
        terms += [f"{self.c()} * np.sum({m} * {m})" for m in self.m[1:]]
        terms.append(self.S())
        if self.family == "np":
            terms.append(f"np.sum({self.V()})")
            terms.append(f"np.sum({self.Mx()})")
        ret = " + ".join(terms)
        body = list(self.lines)
        if self.r.random() < 0.25:
            body += [f"if {self.S()} > {self.th()}:", f"    return {self.S()} + {terms[0]}"]
            self.tags.append("early_return")
        body.append(f"return {ret}")
        args = "x, y, z" if self.family == "py" else "x, a, M"
        text = HEAD + f"def f({args}):\n" + "".join(f"    {ln}\n" for ln in body)
        return text


def program(seed, family):
    g = G(seed, family)
    text = g.program()
    twin = text.replace("import numpy as np\n", "import autograd.numpy as np\n", 1)
    return text, twin, g.tags
