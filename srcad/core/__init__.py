"""Layer 0, the core: the IR (`ir`), the kinds of values (`kinds`), generated names
(`naming`), facts about Python functions and calls (`functions`) and the environment a
specialisation read (`env`). Imports nothing from srcad but `srcad.errors`."""
