"""A catalogue of bad inputs: each raises a SrcadError subclass (never another exception, never
a number) that names the user's file and line and says what to do instead.

One row per input: what to call, the error class, words the message must contain, and where the
error must point (the line carrying ``# bad: <name>`` in `tests/bad_inputs.py`, or None where
there is no user line: a functools.partial, a C function, a rule). Rows marked xfail are srcad
bugs today (numbered as in notes/robustness-findings.md): srcad returns a number or raises
something else.
`tests/test_errors.py` covers the first thirty refusals; nothing here repeats it.
"""

from __future__ import annotations

import decimal
import functools
import math
import pathlib
import warnings
from dataclasses import dataclass

import bad_inputs as bad
import numpy as np
import pytest

import srcad

SOURCE = pathlib.Path(bad.__file__).read_text().splitlines()


def line_of(marker):
    """The line number carrying ``# bad: <marker>`` in bad_inputs.py."""
    hits = [i + 1 for i, text in enumerate(SOURCE)
            if text.rstrip().endswith(f"# bad: {marker}") or f"# bad: {marker}  #" in text]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    return hits[0]


@dataclass
class Bad:
    name: str
    call: object  # () -> anything; expected to raise
    error: type
    words: tuple = ()  # each must appear in the message (case-insensitive)
    where: str | tuple | None = "same"  # marker(s) of the expected line; "same": the name
    filename: str | None = None  # expected file when not bad_inputs.py
    bug: str | None = None  # set: srcad gets this wrong today (xfail, strict)


def g(func, *args, wrt=0, **kwargs):
    """The gradient call of a row."""
    return lambda: srcad.grad(func, wrt=wrt)(*args, **kwargs)


class _Obj:
    def __init__(self):  # an attribute of the object, not a method of its class
        self.compute = np.vectorize(lambda x: x * 2.0)


ROWS = [
    # --- statements --------------------------------------------------------------------------
    Bad("nonlocal", g(bad.uses_nonlocal, 1.5), srcad.UnsupportedSyntaxError, ("nonlocal",)),
    Bad("yield from", g(bad.uses_yield_from, 1.5), srcad.UnsupportedSyntaxError, ("yield",)),
    Bad("class in function", g(bad.uses_class, 1.5), srcad.UnsupportedSyntaxError, ("class",)),
    Bad("import in function", g(bad.uses_import, 1.5), srcad.UnsupportedSyntaxError,
        ("import",)),
    Bad("from-import in function", g(bad.uses_from_import, 1.5), srcad.UnsupportedSyntaxError,
        ("import",)),
    Bad("try/except/finally", g(bad.uses_try_except_finally, 1.5), srcad.UnsupportedSyntaxError,
        ("try",)),
    Bad("del subscript", g(bad.deletes_subscript, 1.5), srcad.UnsupportedSyntaxError,
        ("del",)),
    Bad("walrus in comprehension", g(bad.walrus_in_comprehension, 1.5),
        srcad.UnsupportedSyntaxError, (":=",)),
    Bad("attribute write on active value", g(bad.writes_attribute_of_active_array, 1.5),
        srcad.UnsupportedSyntaxError, ("attribute",)),
    Bad("subscript write into a global", g(bad.writes_into_global_list, 1.5),
        srcad.UnsupportedSyntaxError, ("subscript",)),
    Bad("try in helper", g(bad.calls_helper_with_try, 1.5), srcad.UnsupportedSyntaxError,
        ("try",)),
    Bad("global in helper", g(bad.calls_helper_with_global, 1.5),
        srcad.UnsupportedSyntaxError, ("global",)),
    Bad("generator helper", g(bad.calls_generator, 1.5), srcad.UnsupportedSyntaxError,
        ("yield",)),
    # --- expressions -------------------------------------------------------------------------
    Bad("set comprehension", g(bad.set_comprehension, 1.5), srcad.UnsupportedSyntaxError,
        ("set comprehension",)),
    Bad("set literal", g(bad.set_literal, 1.5), srcad.UnsupportedSyntaxError, ("set",)),
    Bad("dict literal", g(bad.dict_literal, 1.5, {"b": 2.0}), srcad.UnsupportedSyntaxError,
        ("**d", "dict literal")),
    Bad("double-star call", g(bad.double_star_call, 1.5, {"y": 2.0}),
        srcad.UnsupportedSyntaxError, ("**",)),
    Bad("repeating an active list", g(bad.repeats_an_active_list, 1.5),
        srcad.UnsupportedSyntaxError, ("repeating",)),
    Bad("calling a local variable", g(bad.calls_local_variable, 1.5),
        srcad.UnsupportedSyntaxError, ("'g'",)),
    Bad("calling an expression", g(bad.calls_lambda_expression, 1.5),
        srcad.UnsupportedSyntaxError, ("call",)),
    Bad("value through an f-string", g(bad.through_an_f_string, 1.5), srcad.MissingRuleError,
        ("string",)),
    # --- parameters --------------------------------------------------------------------------
    # (a **kwargs parameter is differentiated now: tests/test_programs_entry.py)
    # --- calls with neither source nor rule ---------------------------------------------------
    Bad("method of an argument", g(bad.calls_method_of_unknown_object, 1.5, _Obj()),
        srcad.UnsupportedSyntaxError, ("compute", "function stored in the object")),
    Bad("str.format", g(bad.formats_with_method, 1.5), srcad.MissingRuleError, ("format",)),
    Bad("complex()", g(bad.builds_complex, 1.5), srcad.MissingRuleError, ("may be complex",)),
    Bad("math.frexp", g(bad.calls_frexp, 1.5), srcad.MissingRuleError, ("frexp",)),
    Bad("standard-library Python function", g(bad.calls_statistics, 0.3, 0.4),
        srcad.UnsupportedSyntaxError, ("try", "statistics.py")),  # placed at the user's call
    Bad("min with key", g(bad.min_with_key, -0.7, 0.3), srcad.MissingRuleError, ("min",)),
    Bad("pow with modulus", g(bad.modular_pow, 2.0), srcad.MissingRuleError, ("pow",)),
    Bad("math.nextafter", g(bad.uses_gamma, 5.3, 0.7), srcad.MissingRuleError,
        ("math.nextafter",)),
    Bad("eval", g(bad.uses_eval, 1.5), srcad.SrcadError, ("eval",)),
    # --- outputs (the error may point at the return line or at the def line) ----------------
    Bad("tuple output", g(bad.returns_tuple, 1.5), srcad.NonScalarOutputError, ("vjp",),
        where=("tuple output", "tuple output def")),
    Bad("list output", g(bad.returns_list, 1.5), srcad.NonScalarOutputError, ("vjp",),
        where=("list output", "list output def")),
    Bad("matrix output", g(bad.returns_matrix, 1.5), srcad.NonScalarOutputError, ("vjp",),
        where=("matrix output", "matrix output def")),
    Bad("no return", g(bad.no_return, 1.5), srcad.NonScalarOutputError, ("None",)),
    Bad("None output", g(bad.returns_none, 1.5), srcad.NonScalarOutputError, ("None",),
        where=("None output", "None output def")),
    Bad("string output", g(bad.returns_string, 1.5), srcad.SrcadError, ("str",),
        where=("string output", "string output def")),
    Bad("complex output", g(bad.returns_complex, 1.5), srcad.NonScalarOutputError,
        ("complex",), where=("complex output", "complex output def")),
    # --- wrt, and the values it selects -------------------------------------------------------
    Bad("wrt=True", lambda: srcad.grad(bad.plain, wrt=True), srcad.WrtError, ("True",),
        where="plain def"),
    Bad("wrt=None", lambda: srcad.grad(bad.plain, wrt=None), srcad.WrtError, ("None",),
        where="plain def"),
    Bad("wrt names *rest", lambda: srcad.grad(bad.with_varargs, wrt="rest"), srcad.WrtError,
        ("rest",), where="varargs def"),
    Bad("bool value", g(bad.plain, True, 2.0), srcad.WrtError, ("bool",), where="plain def"),
    Bad("numpy bool value", g(bad.plain, np.bool_(True), 2.0), srcad.WrtError, ("bool",),
        where="plain def"),
    Bad("Decimal value", g(bad.plain, decimal.Decimal("1.5"), 2.0), srcad.WrtError,
        ("Decimal",), where="plain def"),
    Bad("bool array", g(bad.sum_of, np.array([True, False])), srcad.WrtError, ("bool",),
        where="array def"),
    Bad("object array", g(bad.sum_of, np.array([1.0, None], dtype=object)), srcad.WrtError,
        ("object",), where="array def"),
    Bad("string array", g(bad.sum_of, np.array(["a"])), srcad.WrtError, ("<U1",),
        where="array def"),
    Bad("datetime array", g(bad.sum_of, np.array(["2020-01-01"], dtype="datetime64[D]")),
        srcad.WrtError, ("datetime64",), where="array def"),
    Bad("empty list value", g(bad.squares_of, []), srcad.SrcadError, ("list",),
        where="list times list"),
    Bad("omitted default None", lambda: srcad.grad(bad.with_default_none, wrt="w")(1.5),
        srcad.WrtError, ("NoneType",), where="default None"),
    Bad("jvp of a str primal", lambda: srcad.jvp(bad.plain, ("a", 2.0), (1.0, 1.0)),
        srcad.WrtError, ("str",), where="plain def"),
    # --- cotangents and tangents --------------------------------------------------------------
    Bad("vjp cotangent of the wrong shape",
        lambda: srcad.vjp(bad.sum_of, np.ones(2))[1](np.ones(3)), srcad.SrcadError, ("shape",),
        where=None),
    Bad("vjp cotangent None", lambda: srcad.vjp(bad.plain, 1.0, 2.0)[1](None),
        srcad.SrcadError, ("None",), where=None),
    Bad("jvp tangent of the wrong shape",
        lambda: srcad.jvp(bad.sum_of, (np.ones(2),), (np.ones(3),)), srcad.SrcadError,
        ("shape",), where=None),
    # --- callables without source -------------------------------------------------------------
    Bad("lambda made by eval", g(bad.from_eval, 1.5), srcad.SourceUnavailableError,
        ("prompt",), where=None, filename="<string>"),
    Bad("function typed at a prompt", g(bad.made_at_a_prompt(), 1.5),
        srcad.SourceUnavailableError, ("prompt",), where=None, filename="<stdin>"),
    # a functools.partial is read through a shim (round 7: partial(math.pow, 2.0) is
    # differentiated, tests/test_outside_classes.py); of a function without a rule, refused
    Bad("functools.partial", g(functools.partial(math.nextafter, 2.0), 1.5),
        srcad.MissingRuleError, ("nextafter",), where=None),
    # a function with a rule is differentiated through it (tests/test_entry_points.py); one
    # with neither source nor rule is refused
    Bad("C function without a rule", g(math.nextafter, 1.5, 2.0),
        srcad.SourceUnavailableError, ("nextafter",), where=None),
    Bad("numpy function without a rule", g(np.spacing, np.ones(2)), srcad.SrcadError,
        ("spacing",),
        where=None),
    Bad("a class", g(dict, 1.5), srcad.SourceUnavailableError, ("dict",), where=None),
    Bad("jvp of a C function without a rule",
        lambda: srcad.jvp(math.nextafter, (1.0, 2.0), (1.0, 1.0)),
        srcad.SourceUnavailableError, ("nextafter",), where=None),
    # --- derivative rules --------------------------------------------------------------------
    Bad("rule for a ufunc with too few inputs",
        lambda: srcad.extend.defvjp(np.arctan2, "x", x="g"), srcad.RuleError, ("2 inputs",),
        where=None),
    Bad("rule template that is not a string",
        lambda: srcad.extend.defvjp(bad.plain, "x, w", x=42), srcad.RuleError, ("42",),
        where=None),
    Bad("rule for something not callable",
        lambda: srcad.extend.defvjp(3.0, "x", x="g"), srcad.RuleError, ("3.0",),
        where=None),
]


def _params():
    out = []
    for row in ROWS:
        marks = [pytest.mark.xfail(strict=True, reason=f"finding {row.bug}")] if row.bug else []
        out.append(pytest.param(row, id=row.name, marks=marks))
    return out


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # finding 27, tested on its own below
@pytest.mark.parametrize("row", _params())
def test_bad_input_is_refused(row):
    try:
        result = row.call()
    except srcad.SrcadError as exc:
        err = exc
    except Exception as exc:  # the finding: anything but a SrcadError
        pytest.fail(f"{row.name}: {type(exc).__name__} instead of a SrcadError: {exc}")
    else:
        pytest.fail(f"{row.name}: no error; returned {result!r}")
    assert isinstance(err, row.error), f"{type(err).__name__}: {err}"
    message = str(err).lower()
    for word in row.words:
        assert word.lower() in message, f"{word!r} not in {str(err)!r}"
    assert err.hint and len(err.hint.strip()) >= 10, f"no useful hint: {err.hint!r}"
    markers = _markers(row)
    if markers:
        assert err.filename == bad.__file__, err.filename
        lines = [line_of(m) for m in markers]
        assert err.lineno in lines, f"line {err.lineno}, markers {markers!r} (lines {lines})"
    elif row.filename is not None:
        assert err.filename == row.filename


def test_catalogue_is_large_and_distinct():
    names = [row.name for row in ROWS]
    assert len(names) == len(set(names))
    assert len(ROWS) >= 40


def _markers(row):
    """The markers of the lines a row's error may point at (the return line or the def line
    of a function whose output is refused)."""
    if row.where is None:
        return ()
    if row.where == "same":
        return (row.name,)
    return row.where if isinstance(row.where, tuple) else (row.where,)


def test_every_marker_is_used():
    """Each `# bad:` marker in bad_inputs.py is some row's expected line."""
    wanted = {m for row in ROWS for m in _markers(row)}
    present = {text.split("# bad: ")[1].split("  #")[0].strip() for text in SOURCE
               if "# bad: " in text}
    assert present == wanted


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # finding 27
def test_refused_calls_leave_srcad_usable():
    """After every refusal, an ordinary gradient still works (no half-made cache entry)."""
    for row in ROWS:
        try:
            row.call()
        except Exception:  # noqa: S110 - each row's outcome is checked above
            pass
    assert srcad.grad(bad.plain, wrt=(0, 1))(1.5, 2.0) == (2.0, 1.5)
    assert math.isclose(srcad.grad(bad.sum_of)(np.array([1.0, 2.0]))[1], 4.0)


@pytest.mark.parametrize("func", [bad.returns_tuple, bad.returns_list])
def test_refusing_a_sequence_output_compiles_no_bad_code(func):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        with pytest.raises(srcad.NonScalarOutputError):
            srcad.grad(func)(1.5)
