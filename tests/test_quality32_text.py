"""Loops a NumPy user writes, read back as a careful person would write them, with exact
gradients: an item read twice inside a ``continue``'s guard is read and saved once; a
``break``'s flag set at the end of an ``if``'s arm is the comparison itself (``broke_2 =
s_1 > 5.0``, no ``if c: v = True else: v = False``); the backward sweep's ``nz_`` flag copies
and ``if nz_dt_1: pass`` go; a loop's copy read before its source is rebound in an ``if``'s
arms is no copy. Each text property sits beside central differences
(tests/twin_checks.central), srcad's tape and the tangent, over a small generated family
(more under ``SRCAD_LONG_PROPERTIES=1``), and beside cases where a truth changes between
two tests (a list an ``append`` fills; an array whose truth is ambiguous still raises)."""

import re

import numpy as np
import pytest
from sampling import LONG
from test_quality31_text import _check  # grad against central differences, the tape, jvp
from twin_checks import central, close

import srcad
from srcad import tape


def guard_reads_twice(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0.0:
            continue
        s = s + x[i] * x[i]
        if s > 5.0:
            break
    return s


def guard_then_break_on_product(x):
    p = 1.0
    for i in range(len(x)):
        if x[i] < -0.5:
            continue
        p = p * (1.0 + x[i] * x[i])
        if p > 4.0:
            break
    return p


def running_max(x):
    best = x[0]
    for v in x[1:]:
        if v > best:
            best = v
    return best * best


def running_min_scaled(x):
    best = x[0] * 2.0
    for v in x[1:]:
        if v * 2.0 < best:
            best = v * 2.0
    return best * np.sin(best)


def early_return(x):
    acc = 1.0
    for v in x:
        if v > 1.0:
            return acc * v
        acc = acc * (1.0 + v)
    return acc


def break_on_list(x):
    """The break's test is a list's truth, which the append after it changes: its flag is
    not replaced by the list (only a comparison's or a ``not``'s new value crosses the
    ``if``'s end)."""
    ys = []
    s = 0.0
    for v in x:
        if v < 0.0:
            continue
        if ys:
            s = s + v * ys[-1]
            if s > 1.0:
                break
        ys.append(v)
    return s + len(ys) * 0.0


def find_first(x):
    for i in range(len(x)):
        if x[i] > 0.8:
            break
    return x[i] * 2.0 + x[0]


def ternary(x):
    y = x[0] * x[1] if x[0] > 0.3 else -x[1]
    return y + (3.0 if y > 2.0 else y)


CASES = [find_first, ternary, guard_reads_twice, guard_then_break_on_product, running_max,
         running_min_scaled, early_return, break_on_list]

#: what each text must not hold, and must hold
TEXT = {
    find_first: (["n_iter", "pass"], []),
    ternary: (["pass"], []),
    guard_reads_twice: (["t_4", "broke_2 = True", "broke_2 = False\n            "],
                        [r"broke_2 = s_1 > 5\.0", r"stack\.append\(t_3\)"]),
    guard_then_break_on_product: (["broke_2 = True", "t_4 = x[i]"], [r"broke_2 = p_1 > 4\.0"]),
    running_max: (["nz_", "pass", "dbest_2"], [r"dt_1 = dbest_1"]),
    running_min_scaled: (["pass", "nz_dbest_2"], []),
    early_return: (["dacc_1 = dacc\n", "dresult_1 = dresult\n", "nz_dresult_1 = nz_dresult\n"], []),
    break_on_list: ([], []),
}


def _vectors(rng, n):
    sizes = [2, 3, 5, 7]
    return [rng.uniform(-1.5, 2.5, size=sizes[k % len(sizes)]) for k in range(n)]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_text_and_gradients(f):
    rng = np.random.default_rng(32)
    for x in _vectors(rng, 16 if LONG else 2):
        _check(f, x)
    x = np.array([0.45, -1.2, 2.05, 0.3, 1.15])
    _check(f, x)
    text = srcad.source(srcad.grad(f), x)
    absent, present = TEXT[f]
    for part in absent:
        assert part not in text, (f.__name__, part, text)
    for pattern in present:
        assert re.search(pattern, text), (f.__name__, pattern, text)


def test_every_path_of_the_break_and_continue():
    """The family's inputs take every way through ``guard_reads_twice``: a skipped item, a
    break, the end reached; each against central differences and the tape."""
    for x in ([0.5, -1.0, 0.7], [1.0, 2.1, 3.0, -1.0], [-1.0, -2.0], [3.0], [0.1] * 6):
        _check(guard_reads_twice, np.array(x))


def ambiguous_break(x):
    s = x * 0.0
    for _ in range(3):
        if x[0] < -10.0:
            continue
        s = s + x
        if s > 1.0:  # an array of two: its truth is ambiguous, as in NumPy
            break
    return np.sum(s)


def test_an_ambiguous_truth_still_raises():
    """``broke_2 = s_1 > 1.0`` takes the comparison's truth where the flag is tested: an
    array's ambiguous truth raises there, as the user's ``if`` does."""
    x = np.array([0.3, 0.4])
    with pytest.raises(ValueError):
        ambiguous_break(x)
    with pytest.raises(ValueError):
        srcad.grad(ambiguous_break)(x)


def break_past(x, c):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0.0:
            continue
        s = s + x[i] * x[i]
        if s > c:
            break
    return s * 3.0


@pytest.mark.parametrize("n", [3, 5, 8] if LONG else [5])
def test_a_break_flag_set_in_the_last_turn(n):
    """A break taken at the first item, on the last, and on none: the flag's value ``s_1 >
    c`` is read by the ``if broke_2: break`` only."""
    x = np.linspace(0.2, 1.4, n)
    for c in (0.01, float(np.sum(x ** 2)) - 1e-3, 100.0):
        g = srcad.grad(break_past)(x, c)
        assert close(g, central(break_past, (x, c), 0), 1e-5), (x, c)
        assert close(g, tape.grad(break_past)(x, c), 1e-12), (x, c)


#: functions tidy rewrites, each run before and after on the same inputs: a copy read
#: after its source is rebound in an ``if``'s arm, a flag whose test is a list an append
#: fills before the flag is read, a flag set in an arm and tested after the ``if``
TIDIED = ['''
def f(b, t):
    out = []
    for k in range(3):
        a = b
        if t:
            c = a
            b = b + 1.0
            out.append(a)
        else:
            out.append(a * 2.0)
        t = not t
    return out, b
''', '''
def f(b, t):
    out = []
    for k in range(4):
        a = b
        if t:
            if k > 1:
                b = 0.0
            out.append(a)
        out.append(a)
        t = k % 2 == 0
    return out, b
''', '''
def f(x, t):
    ys = []
    out = 0
    for v in x:
        if v > t:
            if ys:
                broke = True
            else:
                broke = False
            ys.append(v)
        else:
            broke = False
        if broke:
            break
        out += 1
    return out, ys
''', '''
def f(x, t):
    out = 0.0
    for v in x:
        if v > t:
            w = v * 2.0
            if w > 3.0:
                broke = True
            else:
                broke = False
        else:
            broke = False
        if broke:
            break
        out += v
    return out
''', '''
def f(x, t):
    n = 0
    for v in x:
        n += 1
    for _ in range(n):
        pass
    return n
''', '''
def f(x, t):
    n = 0
    for v in x:
        n += 1
        if v > t:
            break
    for _ in range(n):
        pass
    return v
''']


@pytest.mark.parametrize("k", range(len(TIDIED)))
def test_tidy_keeps_what_each_function_computes(k):
    import ast

    from srcad.backend.tidy import tidy

    def run(tree):
        space = {}
        exec(compile(ast.fix_missing_locations(tree), "<tidied>", "exec"), space)
        return space["f"]

    tree = ast.parse(TIDIED[k])
    before = run(ast.parse(TIDIED[k]))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    tree.body[0] = tidy(tree.body[0], names - {"b", "t", "x"})
    after = run(tree)
    for args in ((1.0, True), (1.0, False), ([0.5, 1.0, 2.0, 0.2], 0.7),
                 ([2.0, 0.1, 1.9, 3.0], 0.0)):
        if k < 2 and isinstance(args[0], list) or k >= 2 and not isinstance(args[0], list):
            continue
        assert before(*args) == after(*args), (ast.unparse(tree), args)
