"""Check srcad against PyTorch's OpInfo database: other people's sample inputs, torch's gradients.

    python tools/opinfo_suite.py [--only NAME ...] [--samples 24] [--hvp 3] [--json FILE]

PyTorch's ``torch.testing._internal.common_methods_invocations.op_db`` lists, for hundreds of
operators, sample inputs written by PyTorch's authors (shapes, ``dim``/``keepdim``, broadcasting,
empty arrays, edge values). It is read at run time from the installed torch (nothing copied
here). For each OpInfo whose name maps to a NumPy/SciPy function (the table ``SPECS`` below:
the NumPy call, how torch's positional arguments are named, how its keywords are renamed,
``dim`` -> ``axis``, ``keepdim`` -> ``keepdims``), each float64 sample becomes a small module

    def f(x0, x1):
        out = np.sum(x0, axis=1, keepdims=True)
        return np.sum(out * W0)

(``W0``, ... fixed random weights, one per floating output; a complex output counts by its
real and imaginary parts; the tensors torch marks ``requires_grad`` are the parameters, every
other argument is written literally or held as a constant). The NumPy call's value must equal
the torch op's on the same inputs (else the sample is UNMAPPED: the two libraries mean
different things). Then ``srcad.grad`` (reverse, every parameter), ``srcad.jvp`` (forward,
random tangents) and, for the first ``--hvp`` samples of an op, ``srcad.hvp`` (the first
parameter) are compared with ``torch.autograd`` on the torch op. A disagreement is judged by
central differences of the NumPy function (two step sizes): steady differences that agree
with srcad -> PASS (torch differs); steady differences that disagree -> WRONG; unsteady ones
(a kink: ties, ``abs`` at 0, ``clip`` at a bound) -> CONVENTION when srcad's directional
derivative lies between the one-sided differences, else KINK (look at it by hand). A sample
torch cannot differentiate is judged by the differences alone.

Outcomes per sample: PASS, WRONG, CONVENTION, KINK, REFUSED (``SrcadError``), CRASH (any other
exception from srcad or its code, or a timeout), UNMAPPED (no NumPy counterpart for this
sample's arguments or values). Ops not in ``SPECS`` are counted as UNMAPPED ops. Needs torch
(and ``expecttest``, which torch's testing module imports: a stand-in is made when it is
missing) and SciPy. The case module and the judging are ``tools/differential.py``'s (shared
with ``tools/jax_records_suite.py``).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import string
import sys
import tempfile
import time
import types
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import differential as D  # noqa: E402
from differential import OUTCOMES, close  # noqa: E402

COMMON = {"dim": "axis", "keepdim": "keepdims"}


class Unmapped(Exception):
    """This sample has no NumPy counterpart (an argument, a value convention)."""


class Star:
    """A list written as the call's positional arguments (``np.einsum(eq, a, b)``)."""

    def __init__(self, items):
        self.items = items


class Code:
    """An argument written as an expression around a value: ``Code('np.ravel({})', x)``."""

    def __init__(self, fmt, value):
        self.fmt, self.value = fmt, value


def S(expr, tpos=(), npos=("input",), kw=None, fix=None, defaults=None, pick=None):
    """One table entry: the NumPy expression (a callable's name, or a template in ``{name}``
    of torch's argument names), torch's positional names after ``input``, the names passed
    positionally to NumPy, keyword renames (None: drop), a function editing the arguments;
    ``pick``: the item of torch's result NumPy returns (``sort``'s values, not its indices)."""
    return {"expr": expr, "tpos": tuple(tpos), "npos": tuple(npos),
            "kw": {**COMMON, **(kw or {})}, "fix": fix, "defaults": defaults or {},
            "pick": pick}


# ---- argument fixes ---------------------------------------------------------------------------

def _ddof(d):
    unbiased = d.pop("unbiased", None)
    correction = d.pop("correction", None)
    if unbiased is not None and correction is not None:
        raise Unmapped("both unbiased and correction")
    if unbiased is not None:
        d["ddof"] = 1 if unbiased else 0
    elif correction is not None:
        d["ddof"] = correction
    else:
        d["ddof"] = 1


def _drop_none(*names):
    def fix(d):
        for n in names:
            if n in d and d[n] is None:
                del d[n]
    return fix


def _vector_norm(d):
    if d.get("dim") is None:
        d["input"] = Code("np.ravel({})", d["input"])
        d.pop("dim", None)
        if d.get("keepdim"):
            raise Unmapped("keepdim of a flattened norm")
        d.pop("keepdim", None)
    elif isinstance(d["dim"], (tuple, list)):
        if len(d["dim"]) != 1:
            raise Unmapped("a vector norm over several dims")
        d["dim"] = d["dim"][0]
    if _ndim(d["input"]) == 0:
        raise Unmapped("a 0-d norm")


def _torch_norm(d):
    p = d.pop("p", "fro")
    d["ord"] = 2 if p == "fro" and d.get("dim") is None else p
    if p == "fro" and isinstance(d.get("dim"), (tuple, list)) and len(d["dim"]) == 2:
        d["ord"] = "fro"
    if p == "nuc":
        return
    if d.get("ord") == "fro":
        return
    _vector_norm(d)


def _clamp_min(d):
    d["max"] = None


def _clamp_max(d):
    d["max"], d["min"] = d.pop("min"), None


def _clip(d):
    d.setdefault("min", None)
    d.setdefault("max", None)
    if d["min"] is None and d["max"] is None:
        raise Unmapped("clip without bounds")


def _sort(d):
    if d.pop("descending", False):
        raise Unmapped("descending sort")
    d.pop("stable", None)


def _diff(d):
    for n in ("prepend", "append"):
        if n in d and d[n] is None:
            del d[n]


def _alpha(d):
    alpha = d.pop("alpha", None)
    if alpha is not None:
        d["other"] = Code(f"{alpha!r} * {{}}", d["other"])


def _einsum(d):
    d["input"] = Star(d["input"])


def _star_input(d):
    d["input"] = Star(d["input"])


def _solve_triangular(d):
    if not d.pop("left", True):
        raise Unmapped("left=False")
    d["lower"] = not d.pop("upper")
    d["unit_diagonal"] = d.pop("unitriangular", False)
    if _ndim(d["input"]) != 2:
        raise Unmapped("batched triangular solve")


def _quantile(d):
    d["method"] = d.pop("interpolation", "linear")


def _cov(d):
    c = d.pop("correction", 1)
    d["ddof"] = c
    for n in ("fweights", "aweights"):
        if d.get(n) is None:
            d.pop(n, None)


def _axes_tuple(d):
    if isinstance(d.get("dim"), int):
        d["dim"] = (d["dim"],)
    if isinstance(d.get("s"), int):
        d["s"] = (d["s"],)


def _ndim(v):
    import torch
    while isinstance(v, Code):
        v = v.value
    return v.dim() if isinstance(v, torch.Tensor) else np.ndim(v)


UNARY = {
    "abs": "np.abs", "acos": "np.arccos", "acosh": "np.arccosh", "asin": "np.arcsin",
    "asinh": "np.arcsinh", "atan": "np.arctan", "atanh": "np.arctanh", "ceil": "np.ceil",
    "cos": "np.cos", "cosh": "np.cosh", "deg2rad": "np.deg2rad", "rad2deg": "np.rad2deg",
    "digamma": "scipy.special.digamma", "erf": "scipy.special.erf",
    "erfc": "scipy.special.erfc", "erfinv": "scipy.special.erfinv", "exp": "np.exp",
    "exp2": "np.exp2", "expm1": "np.expm1", "floor": "np.floor", "i0": "np.i0",
    "lgamma": "scipy.special.gammaln", "log": "np.log", "log10": "np.log10",
    "log1p": "np.log1p", "log2": "np.log2", "neg": "np.negative", "positive": "np.positive",
    "reciprocal": "np.reciprocal", "round": "np.round", "sigmoid": "scipy.special.expit",
    "sign": "np.sign", "sgn": "np.sign", "sin": "np.sin", "sinc": "np.sinc", "sinh": "np.sinh",
    "sqrt": "np.sqrt", "square": "np.square", "tan": "np.tan", "tanh": "np.tanh",
    "trunc": "np.trunc", "angle": "np.angle", "real": "np.real", "conj": "np.conj",
    "conj_physical": "np.conjugate", "clone": "np.copy", "logit": "scipy.special.logit",
    "special.entr": "scipy.special.entr", "special.erfcx": "scipy.special.erfcx",
    "special.i0e": "scipy.special.i0e", "special.i1": "scipy.special.i1",
    "special.i1e": "scipy.special.i1e", "special.log_ndtr": "scipy.special.log_ndtr",
    "special.ndtr": "scipy.special.ndtr", "special.ndtri": "scipy.special.ndtri",
    "special.bessel_j0": "scipy.special.j0", "special.bessel_j1": "scipy.special.j1",
    "special.bessel_y0": "scipy.special.y0", "special.bessel_y1": "scipy.special.y1",
    "special.modified_bessel_i0": "scipy.special.i0",
    "special.modified_bessel_i1": "scipy.special.i1",
    "special.modified_bessel_k0": "scipy.special.k0",
    "special.modified_bessel_k1": "scipy.special.k1",
    "special.scaled_modified_bessel_k0": "scipy.special.k0e",
    "special.scaled_modified_bessel_k1": "scipy.special.k1e",
    "nan_to_num": "np.nan_to_num", "fliplr": "np.fliplr", "flipud": "np.flipud",
    "ravel": "np.ravel", "atleast_1d": "np.atleast_1d", "atleast_2d": "np.atleast_2d",
    "atleast_3d": "np.atleast_3d", "linalg.det": "np.linalg.det", "det": "np.linalg.det",
    "linalg.slogdet": "np.linalg.slogdet", "linalg.inv": "np.linalg.inv",
    "linalg.svdvals": "np.linalg.svdvals", "linalg.eigvalsh": "np.linalg.eigvalsh",
    "linalg.cholesky": "np.linalg.cholesky", "linalg.eigh": "np.linalg.eigh",
    "linalg.pinv": "np.linalg.pinv", "linalg.qr": "np.linalg.qr", "linalg.svd": "np.linalg.svd",
    "linalg.multi_dot": "np.linalg.multi_dot", "linalg.tensorinv": "np.linalg.tensorinv",
    "linalg.cond": "np.linalg.cond", "linalg.diagonal": "np.linalg.diagonal",
    "linalg.lu": "scipy.linalg.lu", "corrcoef": "np.corrcoef", "trace": "np.trace",
    "t": "np.transpose", "msort": "np.sort", "matrix_exp": "scipy.linalg.expm",
    "fft.fftshift": "np.fft.fftshift", "fft.ifftshift": "np.fft.ifftshift",
    "round.decimals_0": "np.round", "round.decimals_3": "np.round",
    "round.decimals_neg_3": "np.round", "pinverse": "np.linalg.pinv",
}

BINARY = {
    "mul": "np.multiply", "div.no_rounding_mode": "np.divide", "true_divide": "np.true_divide",
    "div.floor_rounding": "np.floor_divide", "floor_divide": "np.floor_divide",
    "atan2": "np.arctan2", "copysign": "np.copysign", "float_power": "np.float_power",
    "fmax": "np.fmax", "fmin": "np.fmin", "fmod": "np.fmod", "hypot": "np.hypot",
    "ldexp": "np.ldexp", "logaddexp": "np.logaddexp", "logaddexp2": "np.logaddexp2",
    "maximum": "np.maximum", "minimum": "np.minimum", "max.binary": "np.maximum",
    "min.binary": "np.minimum", "pow": "np.power", "remainder": "np.remainder",
    "nextafter": "np.nextafter", "xlogy": "scipy.special.xlogy",
    "special.xlog1py": "scipy.special.xlog1py", "special.zeta": "scipy.special.zeta",
    "heaviside": "np.heaviside", "igamma": "scipy.special.gammainc",
    "igammac": "scipy.special.gammaincc", "kron": "np.kron", "outer": "np.outer",
    "inner": "np.inner", "dot": "np.dot", "vdot": "np.vdot", "matmul": "np.matmul",
    "mm": "np.matmul", "mv": "np.matmul", "bmm": "np.matmul", "linalg.solve": "np.linalg.solve",
}

REDUCTIONS = {  # (input, dim, keepdim) -> np.f(input, axis=, keepdims=)
    "sum": "np.sum", "nansum": "np.nansum", "mean": "np.mean", "nanmean": "np.nanmean",
    "prod": "np.prod", "amax": "np.amax", "amin": "np.amin", "max.reduction_no_dim": "np.max",
    "min.reduction_no_dim": "np.min", "max.reduction_with_dim": "np.max",
    "min.reduction_with_dim": "np.min", "logsumexp": "scipy.special.logsumexp",
    "median": "np.median", "nanmedian": "np.nanmedian",
}

SPECS = {}
for _name, _expr in UNARY.items():
    SPECS[_name] = S(_expr, kw={"decimals": "decimals", "nan": "nan", "posinf": "posinf",
                                "neginf": "neginf", "UPLO": "UPLO", "hermitian": "hermitian",
                                "mode": "mode", "upper": "upper", "full_matrices":
                                "full_matrices", "ind": "ind", "p": "p", "offset": "offset",
                                "pivot": None})
for _name, _expr in BINARY.items():
    SPECS[_name] = S(_expr, ("other",), ("input", "other"))
for _name, _expr in REDUCTIONS.items():
    SPECS[_name] = S(_expr, ("dim", "keepdim"))
SPECS.update({
    "add": S("np.add", ("other",), ("input", "other"), fix=_alpha),
    "sub": S("np.subtract", ("other",), ("input", "other"), fix=_alpha),
    "polygamma.polygamma_n_0": S("scipy.special.polygamma", ("n",), ("n", "input")),
    **{f"polygamma.polygamma_n_{k}": S("scipy.special.polygamma", ("n",), ("n", "input"))
       for k in range(1, 5)},
    "special.polygamma.special_polygamma_n_0": S("scipy.special.polygamma", ("n",),
                                                 ("n", "input")),
    "clamp": S("np.clip", ("min", "max"), ("input", "min", "max"), fix=_clip),
    "clamp_min": S("np.clip", ("min",), ("input", "min", "max"), fix=_clamp_min),
    "clamp_max": S("np.clip", ("min",), ("input", "min", "max"), fix=_clamp_max),
    "where": S("np.where", ("condition", "other"), ("condition", "input", "other")),
    "masked_fill": S("np.where({mask}, {value}, {input})", ("mask", "value")),
    "masked_select": S("{input}[np.broadcast_to({mask}, np.broadcast_shapes("
                       "np.shape({input}), np.shape({mask})))]", ("mask",)),
    "__getitem__": S("{input}[{index}]", ("index",)),
    "frac": S("{input} - np.trunc({input})"),
    "rsqrt": S("1.0 / np.sqrt({input})"),
    "dist": S("np.linalg.norm(np.ravel({input} - {other}), {p})", ("other", "p"),
              defaults={"p": 2}),
    "std": S("np.std", ("dim",), fix=_ddof, kw={"ddof": "ddof"}),
    "var": S("np.var", ("dim",), fix=_ddof, kw={"ddof": "ddof"}),
    "std.unbiased": S("np.std", ("unbiased",), fix=_ddof, kw={"ddof": "ddof"}),
    "var.unbiased": S("np.var", ("unbiased",), fix=_ddof, kw={"ddof": "ddof"}),
    "softmax": S("scipy.special.softmax", ("dim",)),
    "log_softmax": S("scipy.special.log_softmax", ("dim",)),
    "softmax.with_dtype": S("scipy.special.softmax", ("dim",)),
    "log_softmax.with_dtype": S("scipy.special.log_softmax", ("dim",)),
    "cumsum": S("np.cumsum", ("dim",)),
    "cumprod": S("np.cumprod", ("dim",)),
    "cummax": S("np.maximum.accumulate", ("dim",)),
    "cummin": S("np.minimum.accumulate", ("dim",)),
    "logcumsumexp": S("np.logaddexp.accumulate", ("dim",)),
    "linalg.vector_norm": S("np.linalg.norm", ("ord", "dim", "keepdim"), fix=_vector_norm,
                            kw={"ord": "ord"}),
    "linalg.norm": S("np.linalg.norm", ("ord", "dim", "keepdim"), kw={"ord": "ord"}),
    "linalg.matrix_norm": S("np.linalg.norm", ("ord", "dim", "keepdim"), kw={"ord": "ord"},
                            defaults={"ord": "fro", "dim": (-2, -1)}),
    "norm": S("np.linalg.norm", ("p", "dim", "keepdim"), fix=_torch_norm, kw={"ord": "ord"}),
    "norm.fro": S("np.linalg.norm", ("p", "dim", "keepdim"), fix=_torch_norm,
                  kw={"ord": "ord"}),
    "norm.inf": S("np.linalg.norm", ("p", "dim", "keepdim"), fix=_torch_norm,
                  kw={"ord": "ord"}),
    "norm.nuc": S("np.linalg.norm", ("p", "dim", "keepdim"), fix=_torch_norm,
                  kw={"ord": "ord"}),
    "diff": S("np.diff", ("n", "dim", "prepend", "append"), fix=_diff,
              kw={"n": "n", "prepend": "prepend", "append": "append"}),
    "quantile": S("np.quantile", ("q", "dim", "keepdim"), ("input", "q"), fix=_quantile,
                  kw={"method": "method"}),
    "nanquantile": S("np.nanquantile", ("q", "dim", "keepdim"), ("input", "q"),
                     fix=_quantile, kw={"method": "method"}),
    "trapezoid": S("np.trapezoid", ("x",), kw={"x": "x", "dx": "dx"}),
    "trapz": S("np.trapezoid", ("x",), kw={"x": "x", "dx": "dx"}),
    "cumulative_trapezoid": S("scipy.integrate.cumulative_trapezoid", ("x",),
                              kw={"x": "x", "dx": "dx"}),
    "reshape": S("np.reshape", ("shape",), ("input", "shape")),
    "transpose": S("np.swapaxes", ("dim0", "dim1"), ("input", "dim0", "dim1")),
    "permute": S("np.transpose", ("dims",), ("input", "dims")),
    "movedim": S("np.moveaxis", ("source", "destination"), ("input", "source", "destination")),
    "flip": S("np.flip", ("dims",), ("input", "dims")),
    "roll": S("np.roll", ("shifts", "dims"), ("input", "shifts"), kw={"dims": "axis"}),
    "rot90": S("np.rot90", ("k", "dims"), ("input", "k"), kw={"dims": "axes"},
               defaults={"k": 1}),
    "squeeze": S("np.squeeze", ("dim",)),
    "squeeze.multiple": S("np.squeeze", ("dim",)),
    "unsqueeze": S("np.expand_dims", ("dim",), ("input", "dim")),
    "tile": S("np.tile", ("dims",), ("input", "dims")),
    "repeat": S("np.tile", ("repeats",), ("input", "repeats")),
    "repeat_interleave": S("np.repeat", ("repeats", "dim"), ("input", "repeats"),
                           kw={"output_size": None}),
    "diag": S("np.diag", ("diagonal",), ("input", "diagonal")),
    "diagonal": S("np.diagonal", ("offset", "dim1", "dim2"),
                  kw={"offset": "offset", "dim1": "axis1", "dim2": "axis2"}),
    "tril": S("np.tril", ("diagonal",), ("input", "diagonal")),
    "triu": S("np.triu", ("diagonal",), ("input", "diagonal")),
    "cat": S("np.concatenate", ("dim",)),
    "stack": S("np.stack", ("dim",)),
    "hstack": S("np.hstack"), "vstack": S("np.vstack"), "dstack": S("np.dstack"),
    "column_stack": S("np.column_stack"),
    "broadcast_to": S("np.broadcast_to", ("size",), ("input", "size")),
    "broadcast_tensors": S("np.broadcast_arrays", fix=_star_input),
    "tensor_split": S("np.array_split", ("indices_or_sections", "dim"),
                      ("input", "indices_or_sections")),
    "hsplit": S("np.hsplit", ("indices_or_sections",), ("input", "indices_or_sections")),
    "vsplit": S("np.vsplit", ("indices_or_sections",), ("input", "indices_or_sections")),
    "dsplit": S("np.dsplit", ("indices_or_sections",), ("input", "indices_or_sections")),
    "take_along_dim": S("np.take_along_axis", ("indices", "dim"), ("input", "indices")),
    "index_select": S("np.take({input}, {index}, axis={dim})", ("dim", "index")),
    "take": S("np.take", ("index",), ("input", "index")),
    "einsum": S("np.einsum({equation}, {input})", ("equation",), fix=_einsum),
    "tensordot": S("np.tensordot", ("other", "dims"), ("input", "other"), kw={"dims": "axes"}),
    "cross": S("np.cross", ("other", "dim"), ("input", "other")),
    "linalg.cross": S("np.cross", ("other", "dim"), ("input", "other")),
    "linalg.vecdot": S("np.vecdot", ("y", "dim"), ("input", "y")),
    "sort": S("np.sort", ("dim", "descending"), fix=_sort),
    "linalg.matrix_power": S("np.linalg.matrix_power", ("n",), ("input", "n")),
    "linalg.tensorsolve": S("np.linalg.tensorsolve", ("other", "dims"), ("input", "other"),
                            kw={"dims": "axes"}),
    "linalg.solve_triangular": S("scipy.linalg.solve_triangular", ("B",), ("input", "B"),
                                 fix=_solve_triangular,
                                 kw={"lower": "lower", "unit_diagonal": "unit_diagonal"}),
    "cov": S("np.cov", fix=_cov, kw={"ddof": "ddof", "fweights": "fweights",
                                     "aweights": "aweights"}),
})
for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    SPECS["fft." + _name] = S("np.fft." + _name, ("n", "dim", "norm"),
                              kw={"n": "n", "norm": "norm"})
for _name in ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"):
    SPECS["fft." + _name] = S("np.fft." + _name, ("s", "dim", "norm"), fix=_axes_tuple,
                              kw={"s": "s", "norm": "norm", "dim": "axes"})
for _name in ("max.reduction_with_dim", "min.reduction_with_dim", "median", "nanmedian"):
    SPECS[_name]["pick"] = 0  # (values, indices): NumPy gives the values
SPECS.update({
    "div.floor_rounding": S("np.floor_divide", ("other",), ("input", "other"),
                            kw={"rounding_mode": None}),
    "div.trunc_rounding": S("np.trunc({input} / {other})", ("other",),
                            kw={"rounding_mode": None}),
    "linalg.diagonal": S("np.diagonal", defaults={"dim1": -2, "dim2": -1},
                         kw={"offset": "offset", "dim1": "axis1", "dim2": "axis2"}),
    "linalg.pinv": S("np.linalg.pinv", kw={"rtol": "rtol", "hermitian": "hermitian",
                                           "atol": None}),
})
for _name in ("sort", "cummax", "cummin"):
    SPECS[_name]["pick"] = 0
for _name in ("fftshift", "ifftshift"):
    SPECS["fft." + _name] = S("np.fft." + _name, ("dim",), kw={"dim": "axes"})


# ---- making the module of one sample ----------------------------------------------------------

class Sample:
    """The NumPy module text of one sample, its parameters and the torch side rebuilt."""

    def __init__(self):
        self.params = []  # (name, numpy value, torch leaf)
        self.consts = {}  # name -> numpy value
        self.names = {}  # id of a sample's tensor -> (its name, its torch value)

    def render(self, v):
        """(text for the NumPy call, the same value for torch with fresh leaves)."""
        import torch
        if isinstance(v, Code):
            text, tv = self.render(v.value)
            return v.fmt.format(text), tv
        if isinstance(v, Star):
            parts = [self.render(x) for x in v.items]
            return ", ".join(p[0] for p in parts), [p[1] for p in parts]
        if isinstance(v, torch.Tensor):
            if id(v) in self.names:  # one tensor passed twice: one parameter
                return self.names[id(v)]
            if v.is_complex():
                raise Unmapped("complex tensor")
            value = v.detach().cpu().numpy().copy()
            if v.requires_grad and v.dtype == torch.float64:
                name = f"x{len(self.params)}"
                leaf = torch.tensor(value, dtype=torch.float64, requires_grad=True)
                self.params.append((name, value, leaf))
                self.names[id(v)] = (name, leaf)
                return name, leaf
            if v.dtype not in (torch.float64, torch.float32, torch.int64, torch.int32,
                               torch.bool, torch.int16, torch.int8, torch.uint8):
                raise Unmapped(f"tensor of {v.dtype}")
            name = f"C{len(self.consts)}"
            self.consts[name] = value
            self.names[id(v)] = (name, v.detach())
            return name, v.detach()
        if isinstance(v, (list, tuple)):
            parts = [self.render(x) for x in v]
            inner = ", ".join(p[0] for p in parts)
            if isinstance(v, tuple):
                return f"({inner}{',' if len(parts) == 1 else ''})", tuple(p[1] for p in parts)
            return f"[{inner}]", [p[1] for p in parts]
        if isinstance(v, torch.Size):
            return repr(tuple(v)), v
        if isinstance(v, float):
            if math.isnan(v):
                return "np.nan", v
            if math.isinf(v):
                return ("np.inf" if v > 0 else "-np.inf"), v
            return repr(v), v
        if v is None or isinstance(v, (bool, int, str, slice)) or v is Ellipsis:
            return repr(v), v
        if isinstance(v, torch.dtype):
            raise Unmapped(f"a dtype {v}")
        raise Unmapped(f"an argument of type {type(v).__name__}")


def _normalise(spec, sample):
    import torch
    args = list(sample.args)
    if len(args) > len(spec["tpos"]):
        raise Unmapped(f"{len(args)} positional arguments")
    d = {"input": sample.input}
    d.update(zip(spec["tpos"], args))
    for k, v in sample.kwargs.items():
        if k in d:
            raise Unmapped(f"{k} twice")
        d[k] = v
    if "dtype" in d:
        if d["dtype"] not in (None, torch.float64):
            raise Unmapped(f"dtype={d['dtype']}")
        del d["dtype"]
    for k, v in spec["defaults"].items():
        d.setdefault(k, v)
    if spec["fix"] is not None:
        spec["fix"](d)
    return d


def build(spec, sample):
    """(Sample with params, NumPy call text, torch-side (input, args, kwargs) rebuilt)."""
    d = _normalise(spec, sample)
    out = Sample()
    rendered = {}
    rebuilt = {}
    for k, v in d.items():  # parameters named in the order of torch's arguments
        rendered[k], rebuilt[k] = out.render(v)
    expr = spec["expr"]
    if "{" in expr:
        used = {name for _, name, _, _ in string.Formatter().parse(expr) if name}
        extra = {k for k in set(d) - used if spec["kw"].get(k, "") is not None}
        if extra:
            raise Unmapped(f"argument(s) {sorted(extra)} not in the template")
        call = expr.format(**rendered)
    else:
        pos = [rendered[n] for n in spec["npos"] if n in d]
        kws = []
        for k in d:
            if k in spec["npos"]:
                continue
            if k not in spec["kw"]:
                raise Unmapped(f"argument {k}={d[k]!r}")
            if spec["kw"][k] is not None:
                kws.append(f"{spec['kw'][k]}={rendered[k]}")
        call = f"{expr}({', '.join(pos + kws)})"
    # the torch side: the sample's own structure with the fresh leaves in place
    torch_args = _rebuild_torch(sample, out)
    return out, call, torch_args


def _rebuild_torch(sample, out):
    import torch

    def walk(v):
        if isinstance(v, torch.Tensor):
            if id(v) in out.names:
                return out.names[id(v)][1]
            return v.detach()
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, tuple) and not isinstance(v, torch.Size):
            return tuple(walk(x) for x in v)
        return v

    # each tensor of the sample replaced by the leaf its parameter was made from
    inp = walk(sample.input)
    args = [walk(a) for a in sample.args]
    kwargs = {k: walk(v) for k, v in sample.kwargs.items()}
    return inp, args, kwargs


def flatten_outputs(value, path=""):
    """[(path, kind)] of an output's floating parts: kind 're', 'im' or 'plain'."""
    import torch
    if isinstance(value, (tuple, list)):
        found = []
        for i, v in enumerate(value):
            found += flatten_outputs(v, f"{path}[{i}]")
        return found
    if isinstance(value, torch.Tensor):
        if value.is_complex():
            return [(path, "re"), (path, "im")]
        return [(path, "plain")] if value.is_floating_point() else []
    if isinstance(value, (np.ndarray, np.generic, float)):
        kind = np.asarray(value).dtype.kind
        if kind == "c":
            return [(path, "re"), (path, "im")]
        return [(path, "plain")] if kind == "f" else []
    return []


def make_module(out, call, parts, folder, key):
    return D.make_module([p[0] for p in out.params], call, parts, folder, f"opinfo_{key}",
                         out.consts)


# ---- judging ---------------------------------------------------------------------------------

AGREE = "torch differs; central differences agree with srcad"


def judge(fn, xs, vs, claimed):
    return D.judge(fn, xs, vs, claimed, D.fixed_steps, AGREE)


def _torch_grads(op, targs, parts, weights, leaves, create_graph=False, pick=None):
    import torch
    inp, args, kwargs = targs
    out = op(inp, *args, **kwargs)
    if pick is not None and isinstance(out, tuple):
        out = out[pick]
    total = torch.zeros((), dtype=torch.float64)
    for (path, kind), w in zip(parts, weights):
        total = total + (D.part(out, path, kind).to(torch.float64) * torch.from_numpy(w)).sum()
    if not total.requires_grad:
        return total, [torch.zeros_like(x) for x in leaves]
    grads = torch.autograd.grad(total, leaves, allow_unused=True, create_graph=create_graph)
    return total, [torch.zeros_like(x) if g is None else g for g, x in zip(grads, leaves)]


def run_sample(op, spec, sample, key, folder, rng, do_hvp, timeout):
    """One sample: a list of (check, outcome, detail)."""

    import srcad
    try:
        out, call, targs = build(spec, sample)
    except Unmapped as e:
        return [("map", "UNMAPPED", str(e))]
    if not out.params:
        return [("map", "UNMAPPED", "no differentiable tensor")]
    try:
        tout = op(targs[0], *targs[1], **targs[2])
    except Exception as e:  # noqa: BLE001 - the sample itself fails in torch
        return [("map", "UNMAPPED", f"torch: {type(e).__name__}: {str(e)[:100]}")]
    if spec["pick"] is not None and isinstance(tout, tuple):
        tout = tout[spec["pick"]]
    parts = flatten_outputs(tout)
    if not parts:
        return [("map", "UNMAPPED", "no floating output")]
    weights = []
    for path, kind in parts:
        shape = tuple(D.part(tout, path, kind).shape)
        weights.append(rng.standard_normal(shape))
    try:
        mod, text = make_module(out, call, parts, folder, key)
        for i, w in enumerate(weights):
            setattr(mod, f"W{i}", w)
        xs = [p[1].copy() for p in out.params]
        nout = mod.g(*xs)
    except Exception as e:  # noqa: BLE001 - NumPy refuses these arguments
        return [("map", "UNMAPPED", f"numpy: {type(e).__name__}: {str(e)[:100]}")]
    if flatten_outputs(nout) != parts:
        return [("map", "UNMAPPED", "outputs differ in structure")]
    for path, kind in parts:
        a = np.asarray(D.part(nout, path, kind))
        b = D.part(tout, path, kind).detach().resolve_neg().resolve_conj().numpy()
        if a.shape != b.shape or not close(a, b, 1e-7):
            return [("map", "UNMAPPED", f"value differs at out{path} ({kind})")]
    f = mod.f
    leaves = [p[2] for p in out.params]
    try:
        _, tgrads = _torch_grads(op, targs, parts, weights, leaves, pick=spec["pick"])
        tgrads = [g.detach().resolve_neg().resolve_conj().numpy() for g in tgrads]
    except Exception:  # noqa: BLE001 - torch has no derivative here: differences alone
        tgrads = None
    n = len(xs)

    def reverse():
        g = srcad.grad(f, wrt=tuple(range(n)) if n > 1 else 0)(*xs)
        g = list(g) if n > 1 else [g]
        return D.compare_grads(f, xs, g, tgrads, rng, steps=D.fixed_steps, agree=AGREE)

    results = [D.checked("rev", timeout, reverse)]
    vs = [rng.standard_normal(np.shape(x)) for x in xs]

    def forward():
        value, tangent = srcad.jvp(f, tuple(xs), tuple(vs))
        return D.compare_jvp(f, xs, vs, value, tangent, tgrads, steps=D.fixed_steps,
                             agree=AGREE)

    results.append(D.checked("fwd", timeout, forward))
    if do_hvp:
        results.append(D.checked("hvp", timeout, _check_hvp, op, targs, parts, weights, leaves,
                                 f, xs, rng, spec["pick"]))
    return [(c, o, d + ("" if o in ("PASS", "UNMAPPED") else f"\n{text}")) for c, o, d in results]


def _check_hvp(op, targs, parts, weights, leaves, f, xs, rng, pick=None):
    import torch

    import srcad
    v = rng.standard_normal(np.shape(xs[0]))
    hv = srcad.hvp(f, tuple(xs), v, wrt=0)
    hv = np.asarray(hv, dtype=float)
    try:
        _, tg = _torch_grads(op, targs, parts, weights, leaves, create_graph=True, pick=pick)
        if tg[0].requires_grad:
            (th,) = torch.autograd.grad((tg[0] * torch.from_numpy(v)).sum(), leaves[0],
                                        allow_unused=True)
            th = np.zeros(np.shape(xs[0])) if th is None else th.detach().resolve_neg().numpy()
        else:
            th = np.zeros(np.shape(xs[0]))
        if close(hv, th, 1e-5):
            return ("hvp", "PASS", "")
    except Exception:  # noqa: BLE001 - no second derivative in torch
        th = None
    # the differences of torch's gradient (or srcad's reverse one) along v, one element
    k = int(np.argmax(np.abs(hv - th))) if th is not None and hv.size else 0
    e = np.zeros(np.shape(xs[0]))
    e.flat[k] = 1.0

    def grad_k(*ys):
        import srcad as s
        gk = s.grad(f, wrt=0)(*ys)
        return float(np.sum(np.asarray(gk) * e))

    vs = [v] + [np.zeros(np.shape(y)) for y in xs[1:]]
    outcome, detail = judge(grad_k, xs, vs, float(np.sum(hv * e)))
    return ("hvp", outcome, f"(H v)[{k}]: {detail}")


# ---- the run ---------------------------------------------------------------------------------

def load_op_db():
    try:
        import expecttest  # noqa: F401
    except ImportError:  # torch's testing module imports it for its TestCase only
        stand_in = types.ModuleType("expecttest")
        stand_in.TestCase = unittest.TestCase
        sys.modules["expecttest"] = stand_in
    import warnings
    warnings.filterwarnings("ignore")
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def op_key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def spread(items, n):
    """At most ``n`` of ``items``, evenly spread (the first and last kept)."""
    if n <= 0 or len(items) <= n:
        return list(items)
    step = (len(items) - 1) / (n - 1) if n > 1 else 1
    return [items[round(i * step)] for i in range(n)]


def run(only=(), samples=24, hvp=3, timeout=60, seed=0, verbose=True):
    import torch
    torch.set_default_dtype(torch.float64)
    op_db = load_op_db()
    rng = np.random.default_rng(seed)
    rows = []
    unmapped_ops = []
    folder = tempfile.mkdtemp(prefix="opinfo-suite-")
    sys.path.insert(0, folder)
    counter = 0
    for op in op_db:
        key = op_key(op)
        if only and key not in only and op.name not in only:
            continue
        spec = SPECS.get(key)
        if spec is None:
            unmapped_ops.append(key)
            continue
        if not op.supports_autograd and not op.supports_forward_ad:
            unmapped_ops.append(key)
            continue
        torch.manual_seed(0)
        try:
            found = list(op.sample_inputs("cpu", torch.float64, requires_grad=True))
        except Exception as e:  # noqa: BLE001
            rows.append({"op": key, "sample": -1, "check": "map", "outcome": "UNMAPPED",
                         "detail": f"sample_inputs: {e}"})
            continue
        start = time.perf_counter()
        for i, sample in enumerate(spread(found, samples)):
            counter += 1
            for check, outcome, detail in run_sample(op, spec, sample, f"{counter}", folder,
                                                     rng, i < hvp, timeout):
                rows.append({"op": key, "sample": i, "check": check, "outcome": outcome,
                             "detail": detail})
                if verbose and outcome not in ("PASS", "UNMAPPED"):
                    first, _, text = detail.partition("\n")
                    line = [t for t in text.splitlines() if t.startswith("    out = ")]
                    print(f"{outcome:<11}{key}[{i}] {check}: {first}"
                          + (f"\n{'':<11}{line[0].strip()}" if line else ""), flush=True)
        if verbose:
            c = collections.Counter(r["outcome"] for r in rows if r["op"] == key)
            print(f"  {key}: {dict(c)} ({time.perf_counter() - start:.1f}s)", flush=True)
    return rows, unmapped_ops


def summarise(rows, unmapped_ops):
    per_sample = collections.Counter(r["outcome"] for r in rows)
    order = {o: i for i, o in enumerate(["WRONG", "KINK", "CRASH", "REFUSED", "CONVENTION",
                                         "PASS", "UNMAPPED"])}
    per_op = {}
    for r in rows:
        old = per_op.get(r["op"])
        if old is None or order[r["outcome"]] < order[old]:
            per_op[r["op"]] = r["outcome"]
    by_check = collections.defaultdict(collections.Counter)
    for r in rows:
        by_check[r["check"]][r["outcome"]] += 1
    lines = ["| checks | " + " | ".join(OUTCOMES) + " |", "|" + "---|" * (len(OUTCOMES) + 1)]
    for check in ("rev", "fwd", "hvp", "map"):
        c = by_check[check]
        lines.append(f"| {check} | " + " | ".join(str(c[o]) for o in OUTCOMES) + " |")
    lines.append("| **all** | " + " | ".join(str(per_sample[o]) for o in OUTCOMES) + " |")
    ops = collections.Counter(per_op.values())
    lines.append("")
    lines.append(f"ops mapped: {len(per_op)} (worst outcome per op: "
                 + ", ".join(f"{o} {ops[o]}" for o in OUTCOMES if ops[o]) + f"); "
                 f"ops not mapped: {len(unmapped_ops)}")
    return "\n".join(lines), per_op


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--samples", type=int, default=24, help="samples per op (evenly spread)")
    ap.add_argument("--hvp", type=int, default=3, help="samples per op with a Hessian check")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per check")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default="")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("opinfo_suite: needs torch (its OpInfo database is the source of the samples)")
    rows, unmapped = run(set(args.only), args.samples, args.hvp, args.timeout, args.seed,
                         not args.quiet)
    table, per_op = summarise(rows, unmapped)
    print(table)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "per_op": per_op, "unmapped_ops": unmapped}, fh, indent=1)
    return 1 if any(r["outcome"] == "WRONG" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
