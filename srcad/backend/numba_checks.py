"""srcad's run-time checks met by the Numba backend: refused naming the user's construct.

The front end writes a few checks that run with the code, where what the code does depends on
a value only known then: ``[x] * n`` repeats the list only for a Python ``int`` ``n``
(:func:`srcad.frontend.list_repeats.repeat_count`), ``ys[k] += v`` on a list whose items srcad
cannot tell apart needs that item to stand alone (:func:`srcad.frontend.item_checks.
check_item_alone`), so does the row of ``M[i][j] = v``
(:func:`srcad.frontend.nested_rows.check_row_alone`), and an operand of unknown kind must not
be an object of the user's class (:func:`srcad.analysis.operand_checks.check_operand`).
Each guards a construct this backend does not compile anyway (a comprehension; a list of
arrays written item by item; an object), so compiling the check would buy nothing: the
construct is refused before Numba sees the code, at the user's line (read from the check's
``where`` constant), saying what to write instead, never as "a nested function" of srcad's.

:func:`view_line`: the user's line of a write through a view (srcad's view helper's ``where``).

Imports ``ast``, ``srcad.errors``, and the four checks (``srcad.frontend``,
``srcad.analysis``) to know them by identity.
"""

from __future__ import annotations

import ast

from ..analysis.operand_checks import check_operand
from ..errors import SrcadError
from ..frontend.item_checks import check_item_alone
from ..frontend.list_repeats import repeat_count
from ..frontend.nested_rows import check_row_alone

_NUMBA = "backend='numba' cannot compile "
_PYTHON = "; or differentiate it with backend='python' (the default), which checks it when " \
    "the code runs"


def _repeat(where):
    filename, line, text = where
    return filename, line, text, (
        "a list display repeated ([...] * n): srcad writes it as a comprehension, and this "
        "backend compiles no comprehension nor a list of numbers"), (
        "hold the values in an array: x * np.ones(n) for [x] * n of a number, "
        "x * np.ones((n, 1)) for one row per copy of an array x" + _PYTHON)


def _item(where):
    text, op, filename, line, source = where
    return filename, line, source, (
        f"{text} {op}= ... on an item of a list or dict whose items srcad cannot tell apart "
        "where it makes the code (built by a comprehension or by append in a loop): the "
        "Python backend checks when the code runs that the item stands alone; this backend "
        "compiles neither that check nor writes into a list of arrays"), (
        f"hold the items as the rows of one array (W = np.zeros((m, n)), then "
        f"W[k] {op}= ...)" + _PYTHON)


def _row(where):
    text, row, container, filename, line, source = where
    return filename, line, source, (
        f"{text} = ... (a write into the row {row} of the list {container}): the Python "
        "backend checks when the code runs that the row stands alone; this backend compiles "
        "neither that check nor writes into a list's rows"), (
        f"hold {container} as a 2-D array and write {container}[i, j] = ..." + _PYTHON)


def _operand(where):
    sign, filename, line, source = where
    return filename, line, source, (
        f"'{sign}' with an operand whose kind srcad does not know where it makes the code "
        "(the Python backend checks when the code runs that it is no object of a class of "
        "yours)"), "pass numbers and arrays (the values the object holds)" + _PYTHON


_SAID = {repeat_count: _repeat, check_item_alone: _item, check_row_alone: _row,
         check_operand: _operand}


def refuse_check(check, ident, heads, cells):
    """Raise the SrcadError for ``check`` (a value the generated code calls by the name
    ``ident``) when it is one of srcad's run-time checks: the user's construct and line read
    from the ``where`` constant of its call in ``heads`` (its name's value in ``cells``, a
    dict name -> cell or value). Returns None for anything else."""
    said = _SAID.get(check)
    if said is None:
        return
    where = None
    for head in heads:
        for node in ast.walk(head) if isinstance(head, ast.AST) else ():
            if node.__class__ is ast.Call and node.func.__class__ is ast.Name and \
                    node.func.id == ident and node.args and \
                    node.args[-1].__class__ is ast.Name:
                where = _value(cells.get(node.args[-1].id))
    try:
        filename, line, source, what, hint = said(where)
    except (TypeError, ValueError):  # no where found: the check's name only
        raise SrcadError(_NUMBA + f"srcad's run-time check {ident} (its construct needs the "
                         "Python backend)", hint="differentiate it with backend='python' "
                         "(the default)") from None
    raise SrcadError(_NUMBA + what, filename=filename, lineno=line,
                     construct=(source or "").strip() or None, hint=hint)


def _value(cell):
    try:
        return cell.cell_contents
    except AttributeError:  # a plain value
        return cell
    except ValueError:  # an empty cell
        return None


def view_line(stmt, ident, cells):
    """The user's line of the view a call of srcad's view helper ``ident`` in ``stmt`` checks
    (its last argument names ``(view, base, file, line, text)``), or None."""
    for node in ast.walk(stmt):
        if node.__class__ is ast.Call and node.func.__class__ is ast.Name and \
                node.func.id == ident and node.args and node.args[-1].__class__ is ast.Name:
            cell = cells.get(node.args[-1].id)
            where = getattr(cell, "cell_contents", cell)
            if isinstance(where, tuple) and len(where) == 5 and isinstance(where[3], int):
                return where[3]
    return None
