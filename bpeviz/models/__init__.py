"""Models: a trained tokenizer of each algorithm (BPE, WordPiece, Unigram, BoundlessBPE) that encodes, traces and decodes."""
