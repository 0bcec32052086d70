"""Clean-up passes on the SSA IR.

``dead_code`` removes assignments and phis whose values are never read (the jump flags of
:mod:`srcad.desugar` that nothing tests, the unused loop variables, ...). After it, every
assigned name of the function is read somewhere, except by calls kept for their effects.
"""

from __future__ import annotations

from . import ir


def dead_code(fn: ir.Function) -> ir.Function:
    while True:
        used = _reads(fn.body)
        if not _sweep(fn.body, used):
            return fn


def _reads(stmts):
    used = set()
    for stmt in ir.walk(stmts):
        used |= {v.name for v in ir.reads_of(stmt)}
        if isinstance(stmt, ir.If):
            for phi in stmt.phis:
                used |= {v.name for s in phi.sources for v in ir.atoms_in(s)}
        elif isinstance(stmt, ir.Loop):
            used |= {v.name for v in ir.atoms_in(stmt.test)}
            used |= {v.name for v in ir.atoms_in(stmt.exit)}
            for phi in stmt.phis:
                used |= {v.name for s in phi.sources for v in ir.atoms_in(s)}
    return used


def _sweep(stmts, used):
    changed = False
    kept = []
    for stmt in stmts:
        if isinstance(stmt, ir.Assign) and not stmt.effect and stmt.target not in used:
            if _pure(stmt.value):
                changed = True
                continue
        if isinstance(stmt, ir.SetItem) and stmt.target not in used:
            changed = True
            continue
        if isinstance(stmt, (ir.If, ir.Loop)):
            before = len(stmt.phis)
            stmt.phis = [p for p in stmt.phis if p.target in used]
            changed |= len(stmt.phis) != before
            for block in ir.blocks_of(stmt):
                changed |= _sweep(block, used)
            if isinstance(stmt, ir.If) and not (stmt.body or stmt.orelse or stmt.phis):
                changed = True
                continue
        kept.append(stmt)
    stmts[:] = kept
    return changed


def _pure(value):
    """Whether dropping the computation of ``value`` is safe (no effect is lost)."""
    if not isinstance(value, ir.Prim):
        return True
    from .rules import registry

    return registry.is_pure(value)
