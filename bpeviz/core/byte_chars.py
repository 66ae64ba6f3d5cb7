"""GPT-2's printable stand-in for every byte, as byte-level BPE files (GPT-2's vocab.bpe, HF tokenizer.json) spell bytes.

Bytes that print (and are not a space) stand for themselves; the other 68 get U+0100 onwards, in byte order.
"""

from __future__ import annotations

from .errors import cut


def _gpt2_byte_chars() -> dict[int, str]:
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    mapping = {b: chr(b) for b in keep}
    n = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + n)
            n += 1
    return mapping


BYTE_CHARS = _gpt2_byte_chars()  # byte -> its stand-in character
CHAR_BYTES = {c: b for b, c in BYTE_CHARS.items()}


def hf_str(token: bytes) -> str:
    """A token's bytes spelt in stand-ins. Example: hf_str(b" the") -> "Ġthe" """
    return "".join(BYTE_CHARS[b] for b in token)


def hf_bytes(text: object, name: str) -> bytes:
    """The bytes a stand-in spelling means; ValueError (naming the file) for anything else."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"{name} holds a merge part that is not text: {cut(text)}.")
    try:
        return bytes(CHAR_BYTES[c] for c in text)
    except KeyError:
        raise ValueError(f"{name}: only byte-level BPE tokenizer.json files (GPT-2 style) can be replayed; "
                         f"{cut(text)} is not in GPT-2's byte alphabet.") from None
