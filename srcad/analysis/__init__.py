"""Layer 4, the analysis of the SSA form: kinds and activity (`analyse`, with the kind and rank
of each operation's result from `value_kinds`), array ranks (`shapes`), values that share
memory (`memory`, and the writes it forbids: `alias`) and the soundness invariant (`soundness`).
Imports the layers below; user functions called are reached through the `Callees` object the
pipeline hands to `Analysis`, never by importing up."""
