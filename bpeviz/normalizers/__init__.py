"""Normalizers: what a tokenizer does to text before it splits it (SentencePiece's precompiled charsmap and spaces).

HF tokenizers keeps normalizers as their own stage, before pre-tokenizers; so does bpeviz. Pure functions
over str, no state beyond the tables a model file ships.
"""
