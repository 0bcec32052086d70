"""Generated test programs as files: ``inspect.getsource`` (and so srcad) reads a function from
the file it was defined in. Imports only the standard library."""

from __future__ import annotations


def load(tmp_path, name, text, modules=(None,)):
    """Write ``text`` to ``tmp_path/name.py`` and run it once per entry of ``modules`` (each
    bound as ``np`` first: NumPy for srcad, ``autograd.numpy`` for autograd; ``None`` binds
    nothing); return ``f`` of each run (a list when several modules are given)."""
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    made = []
    for module in modules:
        namespace = {} if module is None else {"np": module}
        exec(compile(text, str(path), "exec"), namespace)
        made.append(namespace["f"])
    return made if len(modules) > 1 else made[0]


def module(tmp_path, stem, text):
    """Write ``text`` to ``tmp_path/stem.py`` and import it as a module of that name."""
    import importlib.util

    path = tmp_path / f"{stem}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    made = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(made)
    return made


def twin(text, np_module):
    """``f`` of ``text`` run with ``np`` bound to ``np_module`` (``autograd.numpy`` for a
    program's autograd twin), compiled under a name no file holds."""
    namespace = {"np": np_module}
    exec(compile(text, "<autograd twin>", "exec"), namespace)
    return namespace["f"]
