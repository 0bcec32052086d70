"""Layer 5, the transform: the reverse sweep (`reverse`), forward mode (`forward`), rule
templates instantiated (`templates`) and calls of user functions split into forward and
backward parts (`calls`, whose `Callees` takes the pipeline's stages as functions).
Imports the layers below."""
