"""Trainers: text (or a count table) in, a model out; the slow obvious BPE trainer (`educational`) is the oracle of the rest."""
