"""Sound25's "py2" family (tests/test_fuzz25_programs.py): more Python as people write it, over
three floats: dict items rewritten while a loop walks the keys, dicts keyed by f-strings,
``sorted``/``min``/``max`` with ``key=``, ``list.sort``/``reverse``/``index``, nested
comprehensions with conditions, ``try``/``except`` on a value, ``:=`` in a comprehension,
``statistics``, ``itertools.accumulate``/``pairwise``, ``functools.reduce(operator.mul)``,
counts of comparisons in arithmetic, ``complex``, ``zip`` lists, ``enumerate(reversed(...))``
with ``break``, ``max(..., key=)``, list ``+=`` and ``*``, starred unpacking, ``*args``/
``**kwargs`` helpers, a class with ``__add__``/``__mul__``, value-dependent ``while`` over a
list. Forms srcad refuses by design (``try``, ``:=`` in a comprehension, ``statistics``,
``[x] * n``, a class defined in the function, ...) are drawn one time in ten.
`py2_program(seed)` gives ``(text, twin, tags)`` as `gen_programs25.program` does. Imports
only the standard library and gen_programs25."""

from __future__ import annotations

from gen_programs25 import HEAD, G

HEAD2 = HEAD.replace("import math\n",
                     "import itertools\nimport math\nimport operator\nimport statistics\n", 1)


class G2(G):
    """One "py2" program being drawn."""

    def __init__(self, seed):
        super().__init__(seed, "py")

    def snippet(self):
        r = self.r
        S = self.S
        o = self.fresh("s")
        k = r.randrange(24)
        while k in (1, 6, 7, 8, 9, 13, 19, 22) and r.random() < 0.9:
            k = r.randrange(24)
        if k == 0:
            d = self.fresh("d")
            self.emit(f"{d} = {{'a': {S()}, 'b': {S()}, 'c': {S()}}}", f"for key in {d}:",
                      f"    {d}[key] = {d}[key] * {S()} + 0.1",
                      f"{o} = {d}['a'] * {d}['c'] + {d}['b']")
        elif k == 1:
            rows = self.fresh("rows")
            self.emit(f"{rows} = [[{S()}, {S()}] for _ in range(2)]", f"{rows}[0][1] = {S()}",
                      f"{o} = {rows}[0][0] * {rows}[0][1] + {rows}[1][1]")
        elif k == 2:
            d = self.fresh("d")
            self.emit(f"{d} = {{}}", "for i in range(3):", f"    {d}[f'k{{i}}'] = {S()} * (i + 1)",
                      f"{o} = {d}['k0'] + {d}['k2'] * {d}['k1']")
        elif k == 3:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]",
                      f"{o} = sorted({L}, key=lambda t: -t)[0] + min({L}, key=abs) + "
                      f"max({L}, key=lambda t: t * t)")
        elif k == 4:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]", f"{L}.sort()", f"{L}.reverse()",
                      f"{o} = {L}[0] * 2.0 + {L}[{L}.index(min({L}))]")
        elif k == 5:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]",
                      f"{o} = sum(t * u for t in {L} for u in {L} if t > u)")
        elif k == 6:
            self.emit(f"{o} = {S()}", "try:", f"    {o} = math.sqrt({o})", "except ValueError:",
                      f"    {o} = -{o} * 2.0")
        elif k == 7:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]",
                      f"{o} = sum(w for t in {L} if (w := t * t) > 0.1)")
        elif k == 8:
            self.emit(f"{o} = statistics.fmean([{S()}, {S()}, {S()}]) + "
                      f"statistics.mean([{S()}, {S()}])")
        elif k == 9:
            self.emit(f"{o} = statistics.pstdev([{S()}, {S()}, {S()}]) + "
                      f"statistics.variance([{S()}, {S()}, 1.5])")
        elif k == 10:
            self.emit(f"{o} = list(itertools.accumulate([{S()}, {S()}, {S()}]))[-1] * {S()}")
        elif k == 11:
            self.emit(f"{o} = sum(p * q for p, q in itertools.pairwise([{S()}, {S()}, {S()}]))")
        elif k == 12:
            self.emit(f"{o} = functools.reduce(operator.mul, [{S()}, {S()}, {S()}], 1.0)")
        elif k == 13:
            self.emit(f"{o} = operator.itemgetter(1)([{S()}, {S()}]) + operator.add({S()}, {S()})")
        elif k == 14:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]",
                      f"{o} = sum(t > 0 for t in {L}) * {S()} + sum(t for t in {L} if t > 0)")
        elif k == 15:
            self.emit(f"{o} = abs(complex({S()}, {S()})) + ({S()} + 1j * {S()}).real")
        elif k == 16:
            L = self.fresh("L")
            self.emit(f"{L} = list(zip([{S()}, {S()}], [{S()}, {S()}]))",
                      f"{o} = sum(p * q for p, q in {L}) + {L}[1][0]")
        elif k == 17:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]", f"{o} = 0.0",
                      f"for i, t in enumerate(reversed({L})):", f"    {o} += t * (i + 1)",
                      "    if i == 1:", "        break")
        elif k == 18:
            self.emit(f"{o} = max({S()}, {S()}, key=lambda t: abs(t - 0.1))")
        elif k == 19:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}]", f"{L} += [{S()}]", f"{L} = {L} * 2",
                      f"{o} = sum({L}[1::2]) + {L}[-1] * {L}[0]")
        elif k == 20:
            t = self.fresh("t")
            self.emit(f"{t} = ({S()}, {S()}, {S()})", f"a_, *rest_ = {t}",
                      f"{o} = a_ * sum(rest_) + {t}[-1]")
        elif k == 21:
            self.emit(f"def g_{o}(u, *args, scale=1.0, **kw):",
                      "    return (u + sum(args)) * scale + kw.get('c', 0.0)",
                      f"{o} = g_{o}({S()}, {S()}, {S()}, scale={S()}, c={S()})")
        elif k == 22:
            c = self.fresh("C")
            self.emit(f"class {c}:", "    def __init__(self, v):", "        self.v = v",
                      "    def __add__(self, other):",
                      f"        return {c}(self.v + other.v * 2.0)",
                      "    def __mul__(self, k):", f"        return {c}(self.v * k)",
                      f"{o} = ({c}({S()}) + {c}({S()}) * {S()}).v")
        else:
            L = self.fresh("L")
            self.emit(f"{L} = [{S()}, {S()}, {S()}]", f"{o} = 0.0", "i = 0",
                      f"while i < len({L}) and {L}[i] < 0.6:", f"    {o} += {L}[i] ** 2",
                      "    i += 1")
        self.s.append(o)

    def program(self):
        n = self.r.randrange(2, 5)
        for _ in range(n):
            self.snippet()
        terms = [f"{self.c()} * {s}" for s in self.s[3:]] + [self.S()]
        body = list(self.lines) + [f"return {' + '.join(terms)}"]
        return HEAD2 + "def f(x, y, z):\n" + "".join(f"    {ln}\n" for ln in body)


def py2_program(seed):
    g = G2(seed)
    text = g.program()
    return text, text.replace("import numpy as np\n", "import autograd.numpy as np\n", 1), g.tags
