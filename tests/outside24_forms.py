"""Ordinary numerical Python, written fresh (issue 16, outside24 item 6): estimator classes
with ``super().__init__``, overridden methods, properties, ``np.vectorize``, ``sorted``/``max``
with ``key=``, ``dict.get``, ``enumerate(zip(...))``, string-keyed configs, ``isinstance``
dispatch, early returns, ``while True``/``break``, ``for``/``else``, ``math.fsum``,
``itertools``, ``functools``, nested and recursive helpers, ``xs.index``/``xs.count``, nested
functions with ``*args``/``**kwargs``. Read by tests/test_outside24_ordinary_forms.py, on
NumPy and on autograd.numpy; each ``f_*``/``g_*`` takes a vector of three."""

import collections
import dataclasses
import functools
import itertools
import math
import operator

import numpy as np

COUNT = 3
CONFIG = {"lr": 0.1, "scale": 2.0, "act": "tanh"}
ACT = {"tanh": np.tanh, "sin": np.sin}


class Estimator:
    def __init__(self, alpha=0.5):
        self.alpha = alpha

    def predict(self, w, X):
        return X @ w

    def loss(self, w, X, y):
        r = self.predict(w, X) - y
        return np.mean(r ** 2) + self.alpha * np.sum(w ** 2)


class Ridge(Estimator):
    def __init__(self, alpha=0.5, bias=0.1):
        super().__init__(alpha)
        self.bias = bias

    def predict(self, w, X):
        return super().predict(w, X) + self.bias


class Tanh(Estimator):
    def predict(self, w, X):
        return np.tanh(X @ w)


class Params:
    def __init__(self, w):
        self.w = w

    @property
    def norm(self):
        return np.sqrt(np.sum(self.w ** 2))

    def energy(self, x):
        return self.norm * x


X0 = np.array([[0.5, -1.0, 0.3], [1.2, 0.4, -0.7], [0.1, 0.9, 1.5], [-0.6, 0.2, 0.8]])
Y0 = np.array([0.3, -0.2, 1.1, 0.5])


def f_estimator(w):
    return Estimator(0.3).loss(w, X0, Y0)


def f_super(w):
    return Ridge(0.2, 0.5).loss(w, X0, Y0)


def f_override(w):
    return Tanh(0.1).loss(w, X0, Y0)


def f_property(w):
    p = Params(w)
    return p.energy(2.0) + p.norm


def f_vectorize(w):
    g = np.vectorize(lambda t: t * t + math.sin(t))
    return np.sum(g(w))


def f_sorted_key(w):
    items = sorted([(w[0], 1.0), (w[1], 2.0), (w[2], 3.0)], key=lambda p: p[1])
    return sum(a * b for a, b in items)


def f_sorted_vals(w):
    v = sorted([w[0] * 2.0, w[1], w[2] + 1.0])
    return v[0] * 3.0 + v[-1]


def f_max_key(w):
    xs = [w[0], w[1] * 2.0, w[2] - 1.0]
    return max(xs, key=lambda t: abs(t)) ** 2


def f_dict_get(w):
    d = {"a": w[0], "b": w[1]}
    return d.get("a", 0.0) * d.get("c", 2.0) + d.get("b") * w[2]


def f_enum_zip(w):
    s = 0.0
    for i, (a, b) in enumerate(zip(w, w[::-1])):
        s = s + (i + 1) * a * b
    return s


def f_config(w):
    act = ACT[CONFIG["act"]]
    return CONFIG["scale"] * np.sum(act(w * CONFIG["lr"]))


def f_isinstance(w):
    def apply(v):
        if isinstance(v, float):
            return v * v
        if isinstance(v, np.ndarray):
            return np.sum(v ** 3)
        return 0.0
    return apply(float(w[0])) + apply(w)


def f_early_return(w):
    s = 0.0
    for i in range(len(w)):
        s = s + w[i] ** 2
        if s > 0.2:
            return s * 3.0
    return s


def f_while_true(w):
    x = w[0]
    k = 0
    while True:
        x = x * 0.9 + math.sin(w[1])
        k += 1
        if k >= 5:
            break
    return x


def f_for_else(w):
    s = 0.0
    for v in w:
        if v > 10.0:
            break
        s = s + v * v
    else:
        s = s * 2.0
    return s


def f_global_counter(w):
    s = 0.0
    for i in range(COUNT):
        s = s + w[i % len(w)] * (i + 1)
    return s


def f_fsum(w):
    return math.fsum([w[0] * w[1], w[2] ** 2, 1.0])


def f_accumulate(w):
    return sum(itertools.accumulate([w[0], w[1], w[2]]))


def f_accumulate_mul(w):
    return list(itertools.accumulate([w[0], w[1], w[2]], lambda a, b: a * b))[-1]


def f_product(w):
    s = 0.0
    for a, b in itertools.product([w[0], w[1]], [w[2], 2.0]):
        s = s + a * b
    return s


def f_comp_cond(w):
    return sum(v ** 2 for v in w if v > 0) + sum([a * b for a in w for b in w if a != b])


def f_nested_loops(w):
    s = 0.0
    for i in range(3):
        for j in range(i):
            s = s + w[i] * w[j]
    return s


def f_recursive_helper(w):
    return _poly(w[0], 4) + _poly(w[1], 2)


def _poly(x, n):
    if n == 0:
        return 1.0
    return 1.0 + x * _poly(x, n - 1)


def f_reduce(w):
    return functools.reduce(lambda a, b: a * b + 1.0, [w[0], w[1], w[2]])


def f_lambda_map(w):
    return sum(map(lambda t: t ** 3, w))


def f_zip_star(w):
    pairs = [(w[0], w[1]), (w[2], 1.0)]
    a, b = zip(*pairs)
    return sum(a) * sum(b)


def f_min_max_builtin(w):
    return max(w[0], w[1], 0.0) + min(w[2], w[1] ** 2)


def f_np_where(w):
    return np.sum(np.where(w > 0, w ** 2, -w))


def f_clip(w):
    return np.sum(np.clip(w, -0.5, 0.5) * w)


def f_str_format(w):
    name = f"w{len(w)}"
    scale = 2.0 if name == "w3" else 1.0
    return scale * np.sum(w)


def f_tuple_return(w):
    def stats(v):
        return np.mean(v), np.std(v)
    m, s = stats(w)
    return m * s


def f_dict_loop(w):
    d = {"x": w[0], "y": w[1], "z": w[2]}
    s = 0.0
    for k, v in d.items():
        if k != "y":
            s = s + v ** 2
    return s


def f_list_of_arrays(w):
    hs = []
    h = w
    for _ in range(3):
        h = np.tanh(h * 1.1)
        hs.append(h)
    return np.sum(np.stack(hs))


def f_in_place(w):
    v = w.copy()
    v[0] += w[1]
    v *= 2.0
    return np.sum(v ** 2)


def f_slicing(w):
    return np.sum(w[1:] * w[:-1]) + w[-1] * w[0]


def f_matrix(w):
    A = np.outer(w, w) + np.eye(3)
    return np.linalg.slogdet(A)[1] + np.trace(np.linalg.inv(A))


def f_enumerate_start(w):
    return sum(i * v for i, v in enumerate(w, start=1))


def f_chained_methods(w):
    return w.reshape(3, 1).T.dot(w.reshape(3, 1)).sum()


def f_closure_counter(w):
    scale = 3.0

    def helper(v):
        return v * scale

    return np.sum(helper(w) ** 2)


def f_any_all(w):
    if all(v > -5 for v in w) and any(v > 0 for v in w):
        return np.sum(w ** 2)
    return np.sum(w)


def f_divmod(w):
    q, r = divmod(7, 3)
    return q * w[0] + r * w[1]


def f_abs_round(w):
    return abs(w[0]) * round(2.6) + int(3.9) * w[1]


def f_pow_builtin(w):
    return pow(w[0], 3) + pow(2.0, w[1])


def f_generator_fn(w):
    def gen(v):
        for t in v:
            yield t * t
    return sum(gen(w))


def f_static_method(w):
    return Helpers.square(w[0]) + Helpers.cube(w[1])


class Helpers:
    @staticmethod
    def square(t):
        return t * t

    @classmethod
    def cube(cls, t):
        return cls.square(t) * t


def f_named_tuple(w):
    import collections
    P = collections.namedtuple("P", "a b")
    p = P(w[0], w[1])
    return p.a * p.b + p._replace(a=w[2]).a


def f_dataclass(w):
    return _DC(w[0], w[1]).value()



@dataclasses.dataclass
class _DC:
    a: float
    b: float

    def value(self):
        return self.a ** 2 * self.b


def f_minimize_driver(w):
    return np.sum((w - 1.0) ** 2) + np.prod(w)


W3 = np.array([1.0, 2.0, 3.0])


class Base:
    scale = 2.0

    def act(self, z):
        return np.tanh(z)

    def forward(self, w, x):
        return self.act(w * x) * self.scale

    def __call__(self, w, x=1.5):
        return np.sum(self.forward(w, x))


class Child(Base):
    scale = 0.5

    def act(self, z):
        return np.sin(z) + super().act(z)


class Model:
    def __init__(self, n):
        self.n = n
        self.history = []

    @property
    def size(self):
        return self.n * 2

    def step(self, w):
        return w * 0.9 + 0.1

    def run(self, w):
        for _ in range(self.size):
            w = self.step(w)
        return np.sum(w ** 2)


def g_child_call(w):
    return Child()(w) + Base()(w, 0.5)


def g_model_property_loop(w):
    return Model(2).run(w)


def g_dict_comp(w):
    d = {f"k{i}": w[i] ** 2 for i in range(3)}
    return d["k0"] + d["k2"] * d["k1"]


def g_nested_dicts(w):
    p = {"layer": {"w": w[0], "b": w[1]}, "out": w[2]}
    return p["layer"]["w"] * p["out"] + p["layer"]["b"]


def g_sum_start(w):
    return sum([w[0], w[1]], w[2])


def g_list_sort_key(w):
    xs = [w[2], w[0], w[1] * 3.0]
    xs.sort(key=lambda t: -t)
    return xs[0] * 2.0 + xs[1]


def g_reversed_sorted(w):
    return sum(i * v for i, v in enumerate(reversed(sorted(w))))


def g_zip_unequal(w):
    return sum(a * b for a, b in zip(w, [1.0, 2.0]))


def g_math_prod(w):
    return math.prod([w[0], w[1], 2.0])


def g_einsum(w):
    A = np.outer(w, W3)
    return np.einsum("ij,j->", A, w)


def g_chain(w):
    return sum(itertools.chain([w[0]], [w[1], w[2]], (2.0,)))


def g_combinations(w):
    return sum(w[i] * w[j] for i, j in itertools.combinations(range(3), 2))


def g_defaultdict(w):
    d = collections.defaultdict(float)
    for i, v in enumerate(w):
        d[i % 2] += v * v
    return d[0] * d[1]


def g_min_enumerate(w):
    i, v = min(enumerate(w), key=lambda p: p[1])
    return v * (i + 1)


def g_newton(w):
    y = 1.0
    for _ in range(30):
        step = (y * y - w[0] ** 2 - 1.0) / (2.0 * y)
        y = y - step
        if abs(step) < 1e-13:
            break
    return y


def g_try_finally(w):
    try:
        s = np.sum(w ** 2)
    finally:
        pass
    return s


def g_item(w):
    s = np.sum(w)
    return float(s) * w[0] + np.float64(2.0) * w[1]


def g_itemgetter(w):
    get = operator.itemgetter(0, 2)
    a, b = get(w)
    return a * b


def g_map_two(w):
    return sum(map(lambda a, b: a * b, w, W3))


def g_argmax_index(w):
    return w[np.argmax(w)] ** 2 + w[np.argmin(w)]


def g_mask(w):
    m = w > 0
    return np.sum(w[m] ** 2) + np.sum(w[~m])


def g_lambda_defaults(w):
    fs = [lambda t, k=k: t * k for k in range(1, 4)]
    return sum(f(v) for f, v in zip(fs, w))


def g_setdefault(w):
    d = {}
    for i, v in enumerate(w):
        d.setdefault(i % 2, []).append(v)
    return sum(d[0]) * sum(d[1])


def g_chained_cmp(w):
    if -1.0 < w[0] < 1.0:
        return w[0] ** 2 * w[1]
    return w[1]


def g_hypot(w):
    return math.hypot(w[0], w[1]) + np.linalg.norm(w)


def g_expit(w):
    import scipy.special
    return np.sum(scipy.special.expit(w)) + scipy.special.logsumexp(w)


def g_ternary_comp(w):
    return sum(v if v > 0 else -2.0 * v for v in w)


def g_walrus(w):
    if (s := np.sum(w)) > 0:
        return s ** 2
    return s


def g_np_random(w):
    rng = np.random.default_rng(0)
    eps = rng.standard_normal(3)
    return np.sum((w + 0.5 * eps) ** 2)


def g_scan_cumsum(w):
    return np.sum(np.cumsum(w) ** 2) + np.prod(np.cumprod(w))


def g_stack_concat(w):
    a = np.concatenate([w, w[:1] * 2.0])
    b = np.stack([w, w ** 2], axis=1)
    return np.sum(a) * np.sum(b[:, 1])


def g_kwargs(w):
    def f(x, **opts):
        return x * opts.get("scale", 1.0) + opts["shift"]
    return np.sum(f(w, shift=1.0, scale=3.0))


def g_star_args(w):
    def f(*xs):
        return sum(x * x for x in xs)
    return f(*w)


def g_partial(w):
    def lin(x, a, b):
        return a * x + b
    h = functools.partial(lin, a=2.0, b=w[2])
    return h(w[0]) * h(w[1])


def g_class_attr_list(w):
    return Weights().total(w)


class Weights:
    coefs = (0.5, 1.5, 2.5)

    def total(self, w):
        return sum(c * v for c, v in zip(self.coefs, w))


def g_str_keys_loop(w):
    names = ["a", "b", "c"]
    params = dict(zip(names, w))
    out = 0.0
    for n in sorted(params):
        out = out * 0.5 + params[n]
    return out


def g_enumerate_reversed_objects(w):
    layers = [Lay(w[0]), Lay(w[1])]
    h = w[2]
    for k, lay in enumerate(reversed(layers)):
        h = lay(h) * (k + 1)
    return h


class Lay:
    def __init__(self, a):
        self.a = a

    def __call__(self, h):
        return np.tanh(self.a * h)


def g_zip_objects(w):
    layers = [Lay(w[0]), Lay(w[1])]
    s = 0.0
    for lay, c in zip(layers, [1.0, 2.0]):
        s = s + lay(c)
    return s


def g_list_index(w):
    xs = list(w)
    k = xs.index(max(xs))
    return xs[k] * 2.0 + xs.count(xs[0]) * w[1]


def g_tuple_index(w):
    t = (w[0], w[1], w[2])
    return t.index(w[1]) * w[1] + w[0]


def g_nested_star(w):
    def f(*xs):
        return sum(x * x for x in xs)
    return f(w[0], w[1], w[2]) + f(w[0], 2.0)


def g_nested_kwargs(w):
    k = w[1] * 2.0

    def f(x, *rest, **opts):
        return x * k * opts.get("scale", 1.0) + sum(rest) + opts["shift"]
    return f(w[0], w[1], w[2], shift=w[0], scale=3.0) + f(w[2], shift=1.0)


def g_nested_lambda_star(w):
    g = lambda *xs: sum(xs) ** 2  # noqa: E731
    return g(w[0], w[1], 3.0)


def g_recursive_nested(w):
    def rec(n, y):
        return y if n == 0 else rec(n - 1, np.sin(y) * w[1] + y)
    return rec(3, w[0]) + rec(1, w[2])
