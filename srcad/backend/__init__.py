"""Layer 6, the backend: tidy the generated code (`tidy`, with `floats` for exact
constant folding), print and compile it (`emit`) and dispatch calls to the right
specialisation (`dispatch`). Imports the layers below."""
