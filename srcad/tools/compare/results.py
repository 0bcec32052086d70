"""What :func:`~srcad.compare.compare` returns: one :class:`EngineResult` per engine, gathered
in a :class:`Comparison`, whose ``str()`` is the table printed by ``compare(..., show=True)``.

Imports: NumPy and the standard library only.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

# ================================================================================================
# Results
# ================================================================================================


@dataclass
class EngineResult:
    """One engine's answer: ``value``, ``grads`` (one per ``wrt`` name), timings, or ``error``.

    ``first_call`` is the time of the first call, setup included (for srcad: reading, transforming
    and compiling the source); ``per_call`` the mean time of the calls after it (``None`` when
    not timed). ``max_diff`` is the largest absolute difference of the gradients from srcad's.
    """

    engine: str
    label: str
    value: object = None
    grads: tuple | None = None
    first_call: float | None = None
    per_call: float | None = None
    max_diff: float | None = None
    error: str | None = None

    @property
    def ok(self):
        return self.error is None


@dataclass
class Comparison:
    """The answers of several engines for ``function(*args)``; ``str()`` is a table."""

    function: str
    params: list
    args: tuple
    wrt: tuple
    results: list = field(default_factory=list)

    def __getitem__(self, engine):
        for r in self.results:
            if r.engine == engine:
                return r
        raise KeyError(f"no engine {engine!r} in this comparison; engines: {self.engines}")

    @property
    def engines(self):
        return [r.engine for r in self.results]

    def grads(self, engine):
        """The gradients computed by ``engine``, one per ``wrt`` name (a tuple)."""
        result = self[engine]
        if result.error:
            raise RuntimeError(f"{engine} failed: {result.error}")
        return result.grads

    def tolerance(self, engine):
        """The largest difference from srcad that still counts as agreement for ``engine``."""
        scale = max([1.0] + [float(np.max(np.abs(g))) for g in self["srcad"].grads or ()])
        return (1e-5 if engine == "finite differences" else 1e-9) * scale

    @property
    def disagreeing(self):
        """The engines that ran and whose gradient differs from srcad's beyond tolerance."""
        return [r.engine for r in self.results
                if r.max_diff is not None and r.max_diff > self.tolerance(r.engine)]

    @property
    def agree(self):
        """srcad ran, at least one other engine ran, and every engine that ran agrees with it."""
        others = [r for r in self.results if r.engine != "srcad" and r.ok]
        return self["srcad"].ok and bool(others) and not self.disagreeing

    def __str__(self):
        return _table(self)

    def __repr__(self):
        return f"<Comparison of {self.function} over {', '.join(self.engines)}>"



# ================================================================================================
# The table
# ================================================================================================


def _fmt_number(x):
    if isinstance(x, np.ndarray):
        text = np.array2string(x, precision=6, separator=" ", threshold=6, edgeitems=2,
                               max_line_width=10**6)
        return " ".join(text.split())
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return repr(x)
    if isinstance(x, numbers.Integral):
        return str(int(x))
    x = float(x)
    if len(repr(x)) <= 12:
        return repr(x)
    text = f"{x:.10g}"
    return text if any(c in text for c in ".einf") else text + ".0"


def _fmt_time(seconds):
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"
    return "-"


def _fmt_diff(r, comparison):
    if r.engine == "srcad" or r.max_diff is None:
        return "-"
    text = "0" if r.max_diff == 0 else f"{r.max_diff:.1e}"
    return text + ("  DIFFERS" if r.engine in comparison.disagreeing else "")


def _table(c):
    call = ", ".join(f"{p}={_fmt_number(a)}" for p, a in zip(c.params, c.args))
    head = [f"{c.function}({call}), gradient with respect to {', '.join(c.wrt)}", ""]
    srcad_time = c["srcad"].per_call if c.results and c["srcad"].ok else None
    columns = ["engine", "value", *[f"d/d{n}" for n in c.wrt], "max |diff| to srcad",
               "first call", "per call", "vs srcad"]
    rows, errors = [], []
    for r in c.results:
        if not r.ok:
            errors.append(f"{r.label}: {r.error}")
            continue
        ratio = "-"
        if r.per_call and srcad_time:
            ratio = "1x" if r.engine == "srcad" else f"{r.per_call / srcad_time:.3g}x"
        rows.append([r.label, _fmt_number(r.value), *map(_fmt_number, r.grads),
                     _fmt_diff(r, c), _fmt_time(r.first_call), _fmt_time(r.per_call), ratio])
    widths = [max(len(str(x)) for x in col) for col in zip(columns, *rows)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(line, widths)).rstrip()
             for line in (columns, ["-" * w for w in widths], *rows)]
    lines += [f"{e}" for e in errors]
    if c.results and c["srcad"].ok:
        if c.agree:
            lines.append("")
            lines.append("every engine that ran agrees with srcad")
        elif c.disagreeing:
            lines.append("")
            lines.append(f"DISAGREE with srcad: {', '.join(c.disagreeing)}")
    return "\n".join(head + lines)
