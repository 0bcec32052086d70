"""Layer 3, the frontend: read the source (`source`), refuse what is unsupported
(`validate`), desugar (`desugar`), lower to SSA (`lower`, with `writes` for in-place writes)
and drop dead code (`optimise`). Imports `srcad.core`, `srcad.runtime`, `srcad.rules`."""
