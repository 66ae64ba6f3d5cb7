"""Pre-tokenizers: cut text into the pieces that merges never cross (named presets or a bounded custom pattern)."""
