"""Layer 1, the runtime: the helpers generated code calls (`helpers`: unbroadcast, zeros,
scalar checks; `numpy_helpers`: the gradients of NumPy functions too long for a template).
Imports only `srcad.errors` and `srcad.core`."""
