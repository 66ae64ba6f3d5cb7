"""Compiled kernels (numba, the `fast` extra): the Python engines' loops again, importing only the core and numpy."""
