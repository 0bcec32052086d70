"""Layer 3, the frontend: read the source (`source`), refuse what is unsupported
(`validate`), desugar (`desugar`), lower to SSA (`lower`, whose `Lowerer` mixes in `lower_stmts`,
`lower_loops`, `lower_exprs` and `lower_calls`, with `writes` for in-place writes)
and drop dead code (`optimise`). Imports `srcad.core`, `srcad.runtime`, `srcad.rules`."""
