"""What the server and a worker process hand each other (box.py runs tasks.py): bpeviz's own objects as bytes.

pickle, with one guard: reading back builds only bpeviz's own classes and the encoder singleton, never a function or a
class from elsewhere, so bytes that `pack` did not make cannot run anything. Both ends run this package's code, and a
visitor's text is only data inside the objects. This is the one module of the product that pickles. No Streamlit import.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

SINGLETONS = {("bpeviz.engine.encoder", "ENCODER")}  # objects, not classes, that a packed tokenizer names


def pack(obj: Any) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


class _OwnClasses(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module.split(".")[0] == "bpeviz":
            found = super().find_class(module, name)
            if (isinstance(found, type) and found.__module__.split(".")[0] == "bpeviz") or (module, name) in SINGLETONS:
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not one of bpeviz's own classes")


def unpack(data: bytes) -> Any:
    """What pack made of bpeviz's objects; anything else raises pickle.UnpicklingError."""
    return _OwnClasses(io.BytesIO(data)).load()
