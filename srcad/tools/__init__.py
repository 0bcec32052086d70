"""Layer 8, tools on top of the public API: the reference tape (`tape`), finite
differences and gradient checks (`check`), side-by-side comparison with other engines
(`compare`), computation graphs (`graph`) and the command line (`cli`). `tape`, `compare` and
`graph` are packages whose `__init__` holds the public names; each module's docstring says what
it may import. Imports `srcad.api` and below; `import srcad.tape` and the like work (see
`srcad/__init__.py`)."""
