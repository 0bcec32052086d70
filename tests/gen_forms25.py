"""Sound25's generator of rule forms (tests/test_fuzz25_programs.py, families "fn" and "fn2"):
one to three calls of ``math``/NumPy functions in the forms people write them (keywords such
as ``axis`` tuples, negative axes, ``keepdims``, ``ddof``, ``ord``, ``where=``, ``initial=``,
``method=``, ``weights=``, ``UPLO``; methods of arrays; piecewise-constant functions feeding
arithmetic; linear algebra on matrices that are not symmetric), each result weighed element by
element (``sum(w * sin(r))``, ``w = 1, 2, 3, ...``) so every element's gradient counts
differently. `fn_program(seed)` and `fn2_program(seed)` give ``(text, twin, tags)`` as
`gen_programs25.program` does. Imports only the standard library and gen_programs25."""

from __future__ import annotations

from gen_programs25 import HEAD, G

FORMS = [
    'math.atan2({s}, 1.5 + {s2})', 'math.hypot({s}, {s2})', 'math.copysign({s}, 0.7) * {s2}',
    'math.fmod({s}, 0.7)', 'math.remainder({s}, 0.7)', 'divmod({s}, 0.7)[1] * {s2}',
    'divmod({s}, 0.7)[0] * {s2}', 'math.modf({s})[0] + math.modf({s2})[1]', 'math.log({P}, 3.0)',
    'math.log({P}, {P2})', 'math.pow({P}, {s})', 'pow({P}, {s2})',
    'math.log2({P}) + math.log10({P2})', 'math.log1p({P}) + math.expm1({s})',
    'math.erf({s}) + math.erfc({s2})', 'math.gamma({P}) + math.lgamma({P2})',
    'math.dist([{s}, {s2}], [0.5, {s}])', 'math.prod([{s}, {s2}, 1.5])',
    'math.cosh({s}) + math.sinh({s2}) + math.asinh({s})',
    'math.acos({s} * 0.3) + math.asin({s2} * 0.3)', 'math.degrees({s}) + math.radians({s2})',
    'math.sqrt({P}) ** 3', 'float(np.float64({s}) * {s2})', 'abs(-{s}) + (-{s2}) ** 2',
    '{s} ** -2.0 if {s} > 0.2 else {s2}', '{P} ** {s}', '(-{P}) ** 2', '{s} ** 3 + {s2} ** 0',
    'max({s}, {s2}, 0.1)', 'min([{s}, {s2}])', 'round({s}, 2) * {s2}',
    'math.trunc({s} * 3.0) * {s2} + math.ceil({s}) * {s}', 'sum([{s}, {s2}], start=0.5)',
    'np.arctan2({v}, 1.5 + {v2})', 'np.hypot({v}, {v2})', 'np.copysign({v}, {v2}) * {v2}',
    'np.fmod({v}, 0.7)', 'np.remainder({v}, 0.7)', 'np.mod({v}, {P})', 'np.divmod({v}, 0.7)[1]',
    'np.modf({v})[0]', 'np.log({p}) / np.log(3.0)', 'np.power({p}, {v2})',
    'np.float_power({p}, 2)', 'np.logaddexp({v}, {v2})', 'np.logaddexp2({v}, {v2})',
    'np.log1p({p}) + np.expm1({v})', 'np.sinc({v})', 'np.sinc({v} - {v})', 'np.sign({v}) * {v}',
    'np.heaviside({v}, 0.5) * {v2}', 'np.square({v}) + np.cbrt({p})', 'np.reciprocal({p})',
    'np.deg2rad({v}) + np.rad2deg({v2})', 'np.fabs({v}) + np.absolute({v2})',
    'np.exp2({v}) + np.log2({p})', 'np.arcsinh({v}) + np.arctanh({v2} * 0.5)',
    'np.arccosh(1.0 + {p}) + np.arccos({v} * 0.5)', 'np.nan_to_num({v} / {p})',
    'np.real({v}) + np.conj({v2})', 'np.fmax({v}, {v2}) + np.fmin({v}, 0.1)',
    'np.maximum({v}, 0.0) * np.minimum({v2}, 0.2)',
    'np.true_divide({v}, {p}) + np.floor_divide({v}, 0.3) * {v}',
    'np.negative({v}) + np.positive({v2})', 'np.clip({v}, {v2}, 0.6)', 'np.clip({v}, -0.3, None)',
    'np.clip({v}, None, {s})', '{v}.clip(-0.2, 0.3)',
    'np.round({v}, 1) * {v2} + np.trunc({v}) + np.rint({v2}) * {v}',
    'np.where({v} > {v2}, {v}, {v2} ** 2)',
    'np.select([{v} > 0.3, {v} < -0.3], [{v} * 2.0, {v2}], default={v} * {v2})',
    'np.piecewise({v}, [{v} < 0, {v} >= 0], [lambda t: -t, lambda t: t * t])',
    'np.interp({v}, [-1.0, 0.0, 1.0], [0.5, -0.5, 2.0])',
    'np.interp(0.3, [-1.0, 0.0, 1.0], {v}[:3])', 'np.polyval({v}, {s})',
    'np.polyval([1.0, -2.0, 0.5], {v})', 'np.sum({m}, axis=(0, 1))', 'np.sum({m}, axis=-1)',
    'np.mean({m}, axis=-2, keepdims=True)', 'np.max({m}, axis=(0, 1))',
    'np.amin({m}, axis=0, keepdims=True)', 'np.prod({m} * 0.5 + 1.0, axis=-1)',
    'np.var({m}, axis=1, ddof=1)', 'np.std({m}, ddof=1)',
    'np.average({m}, axis=1, weights=[1.0, 2.0, 0.5, 1.5])', 'np.average({v}, weights={p})',
    'np.median({m}, axis=1)', 'np.median({v})', 'np.percentile({v}, 30.0)',
    'np.quantile({m}, 0.75, axis=0)', 'np.ptp({m}, axis=1)', 'np.nansum({m}, axis=0)',
    'np.nanmax({m}, axis=1)', 'np.nanmean({v})', 'np.cumsum({m}, axis=0)',
    'np.cumprod({m} * 0.5 + 1.0, axis=1)', 'np.diff({m}, n=2, axis=1)',
    'np.diff({v}, prepend=0.0)', 'np.trace({q})', "np.linalg.norm({m}, ord='fro')",
    'np.linalg.norm({m}, ord=1)', 'np.linalg.norm({m}, ord=np.inf)', 'np.linalg.norm({v}, ord=1)',
    'np.linalg.norm({v}, ord=np.inf)', 'np.linalg.norm({v}, 3)', 'np.linalg.norm({m}, axis=0)',
    'np.linalg.norm({q}, 2)', 'np.linalg.norm({m}, ord=-1)', '{m}.sum(0) + {m}.max(1).sum()',
    '{m}.mean()', '{m}.min(axis=1)', '{m}.prod(axis=0)', '{m}.std(axis=0)', '{m}.var()',
    '{m}.cumsum()', 'np.all({v} > -2.0) * {v}', 'np.count_nonzero({v} > 0) * {v}',
    'np.tile({v}, 2)', 'np.repeat({v}, 2)', 'np.repeat({m}, [1, 2, 0], axis=0)',
    'np.broadcast_to({v}, (3, 4))', 'np.expand_dims({v}, 0) * {m}', 'np.squeeze({m}[:1])',
    'np.swapaxes({m}, 0, 1)', 'np.moveaxis({m}[None], 0, 2)', '{m}.reshape(-1)', '{m}.flatten()',
    '{m}.reshape(2, 6)[1]', "np.reshape({m}, (4, 3), order='F')", "{m}.ravel(order='F')",
    'np.ravel({m}.T)', 'np.atleast_2d({v})', 'np.stack([{v}, {v2}], axis=-1)',
    'np.hstack([{v}, {v2}])', 'np.vstack([{v}, {m}])', 'np.column_stack([{v}, {v2}])',
    'np.concatenate([{m}, {m}], axis=1)', 'np.split({v}, 2)[1]', 'np.array_split({v}, 3)[0]',
    'np.hsplit({m}, 2)[0]', 'np.flip({m}, axis=1)', 'np.fliplr({m})', 'np.rot90({m})',
    'np.roll({m}, 1, axis=1)', 'np.roll({m}, -2)', 'np.pad({v}, (1, 2))',
    "np.pad({v}, 1, mode='edge')", "np.pad({v}, 2, mode='reflect')", 'np.tril({q})',
    'np.triu({q}, 1)', 'np.diag({q})', 'np.diag({v})', 'np.diagonal({m})', 'np.diag({q}, k=1)',
    'np.take({m}, [0, 2, 2], axis=1)', 'np.take_along_axis({m}, np.argsort({m}, axis=1), axis=1)',
    'np.sort({m}, axis=0)', 'np.sort({m}, axis=None)', 'np.partition({v}, 1)', '{m}[:, [3, 0, 0]]',
    '{m}[[2, 0], [1, 1]]', '{m}[np.array([True, False, True])]', '{m}[..., 1]', '{m}[None, :, 2]',
    '{m}[::-1, 1:3]', '{m}[1][2:]', '{m}.T[1:]', 'np.compress([True, False, True], {m}, axis=0)',
    'np.extract({v} > 0, {v})', 'np.where({v} > 0)[0] * {v}[0]', 'np.nonzero({v} > 0)[0] * {v}[1]',
    '{v}[np.flatnonzero({v} > 0.1)]', 'np.unique(np.round({v}, 0)) * {v}[0]',
    'np.searchsorted([-0.5, 0.0, 0.5], {v}) * {v}', 'np.digitize({v}, [-0.5, 0.5]) * {v}',
    'np.argmin({m}, axis=0) * {v}', 'np.argwhere({v} > 0).sum() * {v}', 'np.dot({v}, {v2})',
    'np.inner({v}, {v2})', 'np.vdot({m}, {m})', 'np.outer({v}, {v2})',
    'np.kron({v}[:2], {v2}[1:])', 'np.cross({v}[:3], {v2}[1:])',
    'np.tensordot({m}, {m}, axes=([1], [1]))', 'np.tensordot({m}, {v}, axes=1)',
    "np.einsum('ij,ij->j', {m}, {m})", "np.einsum('i,i', {v}, {v2})", "np.einsum('ij->', {m})",
    "np.einsum('ii->i', {q})", 'np.einsum({m}, [0, 1], {v}, [1], [0])', 'np.matmul({m}, {v})',
    '{v} @ {m}.T', '{m} @ {m}.T @ {q}', 'np.linalg.multi_dot([{m}, {m}.T, {q}])',
    'np.linalg.matrix_power({q}, 3)', 'np.convolve({v}, {v2})',
    "np.convolve({v}, [1.0, -1.0], mode='valid')", "np.correlate({v}, {v2}, mode='full')",
    'np.polymul({v}[:2], {v2}[:3])', 'np.linalg.det({q})', 'np.linalg.slogdet({q})[1]',
    'np.linalg.inv({q})', 'np.linalg.solve({q}, {v}[:3])', 'np.linalg.solve({q}, {m})',
    'np.linalg.pinv({m})', 'np.linalg.eigh({q} + {q}.T)[0]', 'np.linalg.eigvalsh({q} @ {q}.T)',
    'np.linalg.cholesky({q} @ {q}.T)', 'np.linalg.qr({q})[1] ** 2',
    'np.linalg.svd({m}, compute_uv=False)', 'np.linalg.lstsq({m}.T, {v}, rcond=None)[0]',
    'np.cov({m})', 'np.corrcoef({m})', 'np.linalg.trace({q})', 'np.linalg.eigvals({q} @ {q}.T)',
    'np.linalg.matrix_rank({q}) * {q}',
]


class F(G):
    def __init__(self, seed):
        super().__init__(seed, "np")

    def fill(self, form):
        r = self.r
        rep = {
            "{s}": lambda: self.S(), "{s2}": lambda: self.S(),
            "{P}": lambda: f"(1.0 + {self.S()} ** 2)", "{P2}": lambda: f"(1.2 + {self.S()} ** 2)",
            "{v}": lambda: self.V(), "{v2}": lambda: self.V(),
            "{p}": lambda: f"(1.0 + {self.V()} ** 2)",
            "{m}": lambda: self.Mx(),
            "{q}": lambda: f"({self.Mx()}[:, :3] + 2.0 * np.eye(3))",
        }
        out = form
        for key, mk in rep.items():
            while key in out:
                out = out.replace(key, mk(), 1)
        del r
        return out

    def program(self):
        r = self.r
        n = r.randrange(1, 4)
        forms = [r.choice(FORMS) for _ in range(n)]
        self.tags.extend(forms)
        for form in forms:
            o = self.fresh("r")
            e = self.fill(form)
            self.emit(f"{o} = {e}")
            w = self.fresh("w")
            # weight the result by a fixed pattern so every element counts differently
            self.emit(f"{w} = np.arange(1.0, np.size({o}) + 1.0).reshape(np.shape({o}))",
                      f"acc = acc + np.sum({w} * np.sin({o}))")
        body = ["acc = 0.0"] + self.lines + [f"return acc + {self.S()}"]
        return HEAD + "def f(x, a, M):\n" + "".join(f"    {ln}\n" for ln in body)


def fn_program(seed):
    g = F(seed)
    text = g.program()
    twin = text.replace("import numpy as np\n", "import autograd.numpy as np\n", 1)
    return text, twin, g.tags


FORMS2 = [
    'np.sum({m}, where={m} > 0.1)', 'np.sum({v}, initial=0.5)', 'np.max({v}, initial=0.3)',
    'np.min({m}, axis=1, initial=0.0)', 'np.mean({m}, axis=0, where=[True, False, True, True])',
    'np.prod({m} * 0.5 + 1.0, where={m} > 0.0)', 'np.std({v}, mean=np.mean({v}, keepdims=True))',
    'np.var({m}, axis=1, correction=1)', 'np.std({m}, axis=0, correction=1, keepdims=True)',
    "np.quantile({v}, 0.4, method='nearest')", "np.percentile({v}, 60.0, method='midpoint')",
    'np.percentile({m}, [20.0, 80.0], axis=1)', "np.quantile({v}, 0.3, method='lower')",
    'np.median({m}, axis=0, keepdims=True)',
    'np.average({m}, axis=0, weights={p}[:3], returned=True)[0]',
    'np.average({m}, axis=0, weights={p}[:3], returned=True)[1]',
    'np.linalg.norm({m}, axis=1, keepdims=True)', "np.linalg.norm({m}, 'nuc')",
    'np.linalg.norm({q}, -2)', 'np.linalg.cond({q})', 'np.linalg.vector_norm({m}, axis=1)',
    'np.linalg.matrix_norm({q})', 'np.linalg.vector_norm({v}, ord=3)', 'np.vecdot({m}, {v})',
    'np.linalg.vecdot({m}, {m})', 'np.matvec({m}, {v})', 'np.vecmat({v}[:3], {m})',
    'np.maximum.reduce({m}, axis=0)', 'np.add.reduce({m}, axis=1)', 'np.multiply.accumulate({v})',
    'np.add.outer({v}, {v2})', 'np.add.accumulate({m}, axis=1)', 'np.minimum.accumulate({v})',
    'np.maximum.reduce([{v}, {v2}])', 'np.trace({q}, offset=1)', 'np.diagonal({m}, offset=-1)',
    'np.insert({v}, 1, {s})', 'np.delete({v}, [0, 2])', 'np.append({v}, {v2})',
    'np.resize({v}, 6)', 'np.meshgrid({v}, {v2}[:2])[0]',
    "np.meshgrid({v}, {v2}[:2], indexing='ij')[1]", '{q}[np.triu_indices(3)]',
    '{q}[np.tril_indices(3, -1)]', 'np.gradient({v})', 'np.gradient({m}, axis=1)',
    'np.gradient({v}, 0.5)', 'np.gradient({v}, edge_order=2)', 'np.trapezoid({v})',
    'np.trapezoid({m}, dx=0.5, axis=0)', 'np.trapezoid({v}, x=[0.0, 0.3, 1.0, 1.2])',
    'np.ediff1d({v})', 'np.ediff1d({v}, to_begin=[{s}])', 'np.unwrap({v} * 4.0)',
    'np.angle({v} + 1j * {v2})', 'np.i0({v})', 'np.vander({v}[:3])',
    'np.vander({v}[:3], 2, increasing=True)', 'np.nanprod({m} * 0.5 + 1.0, axis=0)',
    'np.nanstd({m}, axis=1)', 'np.nanvar({v})', 'np.nanmin({m}, axis=0)', 'np.nanmedian({v})',
    'np.nanpercentile({v}, 50.0)', 'np.nancumsum({v})', 'np.nancumprod({v} * 0.5 + 1.0)',
    'np.cumulative_sum({v})', 'np.cumulative_sum({m}, axis=1, include_initial=True)',
    'np.cumulative_prod({v} + 2.0)', 'np.cumsum({m}, axis=None)', 'np.sort({v})[::-1]',
    '-np.sort(-{v})', 'np.partition({m}, 1, axis=1)[:, :2]', 'np.lexsort(({v}, {v2})) * {v}',
    'np.take_along_axis({v}, np.argpartition({v}, 2), 0)',
    "np.einsum('ij,kj->ik', {m}, {m}, optimize=True)", "np.einsum('...j,j->...', {m}, {v})",
    "np.einsum('ij,ij->', {m}, {m}, optimize='greedy')", 'np.dot({m}, {v}) @ np.dot({m}, {v2})',
    '{v}.dot({v2})', '{m}.dot({v})', '{m}.T.dot({m})', '{m}.trace()', '{q}.diagonal()',
    '{m}.max(axis=1, keepdims=True)', '{m}.clip(min=-0.2)', '{m}.clip(max={s})',
    '{m}.round(1) * {m}', '{m}.cumprod(axis=1)', '{m}.ptp()',
    '{m}.sum(axis=0, keepdims=True, initial=1.0)', '{v}.mean(where={v} > 0.0)',
    '{m}.var(axis=1, ddof=2)', "{m}.reshape((2, -1), order='F')", '{m}.transpose(1, 0)',
    '{m}.swapaxes(0, 1)', '{m}.squeeze()', '{v}.repeat(2)', '{m}.take([1, 1], axis=0)',
    '{v}.conj()', '{v}.real + {v2}.imag', '{v}.item(1) * {v2}', 'float({v}[2]) * {v2}',
    '{v}.tolist()[0] * {v2}', 'np.array({v}.tolist()) * {v2}', 'np.asarray([{v}[0], {s}])',
    'np.array([[{s}, {s2}], [{s2}, 1.0]])', 'np.full(3, {s})', 'np.full_like({v}, {s})',
    'np.zeros_like({v}) + {v}', 'np.ones_like({m}) * {m}', 'np.copy({v})',
    'np.array({m}, copy=True)', 'np.asarray({m}, dtype=float)',
    '{v}.astype(np.float32).astype(float)', 'np.float64({s}) * {v}', 'np.array({s}, ndmin=1)',
    'np.linspace({s}, {s2}, 4)', 'np.linspace(0.0, {s}, 3, endpoint=False)',
    'np.logspace(0.0, {s}, 3)', 'np.geomspace(1.0, {P}, 3)', 'np.arange(3) * {s}',
    'np.tri(3, 4) * {m}', 'np.eye(3, 4, k=1) * {m}', 'np.where({m} > 0)[1] * 1.0 + {m}[0, 0]',
    'np.choose([0, 1, 0, 1], [{v}, {v2}])', 'np.select([{v} > 0], [{v}])',
    'np.put_along_axis({v}.copy(), np.array([1]), {s}, 0)',
    'np.interp({v}, {v2} * 0.0 + [0.0, 1.0, 2.0, 3.0], {v2})',
    'np.polyfit([0.0, 1.0, 2.0, 3.0], {v}, 2)', 'np.roots([1.0, {s}, -2.0])',
    'np.poly1d([{s}, 1.0])({v})', 'np.polyder([{s}, {s2}, 1.0])', 'np.polyint([{s}, {s2}])',
    'np.polyadd([{s}], [{s2}, 1.0])', 'np.histogram({v}, bins=3)[0] * {v}[:3]',
    'np.bincount([0, 1, 1, 3], weights={v})', 'np.count_nonzero({m} > 0, axis=0) * {v}',
    'np.isclose({v}, {v2}) * {v}', 'np.allclose({v}, {v2}) * {v}',
    'np.array_equal({v}, {v}) * {v}', 'np.logical_and({v} > 0, {v2} > 0) * {v}',
    'np.any({m} > 0.5, axis=1) * {m}[:, 0]', 'np.signbit({v}) * {v}', 'np.isfinite({v}) * {v}',
    'np.nan_to_num({v}, nan=0.0, posinf=1.0)', 'np.real_if_close({v} + 0j)',
    'np.round({v}, decimals=1) + {v}', 'np.around({v}) * {v}', 'np.fix({v}) + np.floor({v}) * {v}',
    'np.spacing({v}) * 0.0 + {v}', 'np.ldexp({v}, 2)', 'np.frexp({v})[0]',
    'np.nextafter({v}, 2.0)', 'np.float_power({p}, {v2})', 'np.power({p}, 3)',
    'np.power({v}, 2.0)', 'np.power(2.0, {v})', 'np.sqrt({p}) ** 3',
    'np.divide({v}, {p}, where={v} > 0, out=np.zeros(4))', 'np.multiply({v}, {v2}, where={v} > 0)',
]


class F2(F):
    def program(self):
        r = self.r
        n = r.randrange(1, 4)
        forms = [r.choice(FORMS2) for _ in range(n)]
        self.tags.extend(forms)
        for form in forms:
            o = self.fresh("r")
            self.emit(f"{o} = np.asarray({self.fill(form)}, dtype=float)")
            w = self.fresh("w")
            self.emit(f"{w} = np.arange(1.0, np.size({o}) + 1.0).reshape(np.shape({o}))",
                      f"acc = acc + np.sum({w} * np.sin({o}))")
        body = ["acc = 0.0"] + self.lines + [f"return acc + {self.S()}"]
        return HEAD + "def f(x, a, M):\n" + "".join(f"    {ln}\n" for ln in body)


def fn2_program(seed):
    g = F2(seed)
    text = g.program()
    twin = text.replace("import numpy as np\n", "import autograd.numpy as np\n", 1)
    return text, twin, g.tags
