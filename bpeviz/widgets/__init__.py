"""bpeviz in the notebook: the app's step player as widgets for Jupyter, JupyterLab, Colab, VS Code and marimo.

    from bpeviz.widgets import Player, Trace, Compare
    Player(bpeviz.train(docs, vocab_size=64, level="chars"), corpus=docs)   # step with the buttons, the slider, n / p

Built on anywidget (`pip install "bpeviz[notebook]"`); the player's JavaScript is the app's own file, shipped in the
package: nothing comes from a CDN.
"""

from __future__ import annotations

from .players import Compare, Player, Trace

__all__ = ["Compare", "Player", "Trace"]
