"""The notebook widgets: Player (a training run, step by step), Trace (one text encoded merge by merge), Compare (two
runs side by side, where they part and why).

Each is an anywidget whose front end is the app's own player (app/assets/player.js) joined to a small adapter
(adapter.js): one JavaScript source for the app and the notebook. The run goes to the browser once (`data`); the
step is shared both ways (`step`): the buttons, the slider and the keys n / p / Home / End move it there, and
`player.step = 12` moves it from Python.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections import Counter
from functools import cache
from importlib.resources import files
from pathlib import Path

try:
    import anywidget
    import ipywidgets
    import traitlets
except ModuleNotFoundError as exc:  # pragma: no cover - the extra is missing
    raise ModuleNotFoundError("bpeviz's notebook widgets need anywidget: pip install \"bpeviz[notebook]\"") from exc

from bpeviz.app import texts
from bpeviz.core.errors import BpevizError
from bpeviz.core.records import Corpus
from bpeviz.lessons import compare, steps
from bpeviz.lessons import lesson_file as lessons
from bpeviz.models.base import TokenizerBase
from bpeviz.models.bpe import Tokenizer
from bpeviz.trainers.bpe import corpus_documents, corpus_words, replay_on

RECORD_TOP = 12  # best pairs per step the chart shows (the app's runs.RECORD_TOP)
MARKER = "export default function (component)"


@cache
def module() -> str:
    """The widget's ES module: the app's player with its entry renamed mountPlayer, then the anywidget adapter."""
    player = (files("bpeviz.app") / "assets" / "player.js").read_text(encoding="utf-8")
    if player.count(MARKER) != 1:
        raise RuntimeError("app/assets/player.js no longer has one default export; update bpeviz/widgets/players.py")
    adapter = (files("bpeviz.widgets") / "adapter.js").read_text(encoding="utf-8")
    return player.replace(MARKER, "function mountPlayer(component)") + "\n" + adapter


@cache
def styles() -> str:
    return (files("bpeviz.app") / "assets" / "player.css").read_text(encoding="utf-8") + \
        "\n.bpe-player { max-width: 100%; }\n"


class _Stepper(anywidget.AnyWidget):
    """A player in a cell: `data` is the run (sent once), `step` the step shown, both ways."""

    _esm = module()
    _css = styles()
    data = traitlets.Dict().tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)
    chunk = traitlets.Int(None, allow_none=True).tag(sync=True)  # the browser asks for a chunk of a long run's pair counts

    def _publish(self, kind: str, history: dict, step: int, labels: dict[str, str]) -> None:
        digest = hashlib.sha256(json.dumps(history, sort_keys=True, default=str).encode()).hexdigest()[:16]
        self.data = {"kind": kind, "digest": digest, "step": step, "jump": 0, "speed": 1.0, "classroom": False,
                     "labels": labels, "history": history}
        self.step = step

    @property
    def n_steps(self) -> int:
        history = self.data.get("history", {})
        return int(history.get("n", len(history.get("fired", []))))

    @traitlets.validate("step")
    def _clamp(self, proposal: dict) -> int:
        return min(max(int(proposal["value"]), 0), self.n_steps) if self.data else int(proposal["value"])


class Player(_Stepper):
    """A training run, step by step: the merge table, the pair counts with the tie rule, the corpus as chips.

    tok: a bpeviz tokenizer (BPE; WordPiece and Unigram show their table); corpus: the text it was trained on (its
    chips, and the pair counts when the run did not record them). Example: Player(tok, corpus=docs, step=5).step -> 5
    """

    def __init__(self, tok: TokenizerBase, step: int = 0, *, corpus: Corpus | None = None, language: str = "en",
                 **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.tokenizer, self.language = tok, language
        self.documents: list[str] = list(corpus_documents(corpus, tok.level)) if corpus is not None else []
        if isinstance(tok, Tokenizer):
            if tok.merges and not tok.merges[0].top and self.documents:  # count the pairs on the corpus once
                tok = self.tokenizer = replay_on(tok, self.documents, record_top=RECORD_TOP)
            words = corpus_words(self.documents, tok.settings) if self.documents else None
            history, kind = steps.train_history(tok, self.documents, Counter(words) if words else None), "train"
        elif tok.algorithm in steps.TABLE_HISTORIES:
            history, kind = steps.TABLE_HISTORIES[tok.algorithm](tok), tok.algorithm
        else:
            raise BpevizError("widget_kind", f"The player shows BPE, WordPiece and Unigram runs, not {tok.algorithm}.")
        self._publish(kind, history, max(0, int(step)), texts.player_labels(language, tok.settings.tie_break))
        self.step = step

    @traitlets.observe("chunk")
    def _answer_chunk(self, change: dict) -> None:
        """The browser scrolled to steps whose pair counts it lacks (runs of more than 5 000 merges)."""
        if change["new"] is None or not isinstance(self.tokenizer, Tokenizer):
            return
        start = int(change["new"]) * steps.TOP_CHUNK
        rows = steps.top_chunk(self.tokenizer, start, start + steps.TOP_CHUNK)
        self.data = {**self.data, "top": {"start": start, "rows": rows}}

    @classmethod
    def from_lesson(cls, path: str | Path, **kwargs: object) -> Player:
        """A lesson saved by the app (its download), opened at its step: the same corpus, settings and run."""
        lesson = lessons.read(Path(path))
        tok, docs = lessons.train(lesson)
        return cls(tok, int(lesson.get("step", 0)), corpus=docs, language=str(lesson.get("lang", "en")), **kwargs)

    def to_lesson(self, path: str | Path) -> None:
        """Write a lesson file the app opens (its sidebar's Load) at this step, on this corpus with these settings."""
        if not isinstance(self.tokenizer, Tokenizer):
            raise BpevizError("lesson_bpe", "A lesson file holds a BPE run; this player shows another algorithm.")
        Path(path).write_bytes(lessons.write(self.tokenizer, self.documents, self.step, self.language))


class Trace(_Stepper):
    """One text encoded merge by merge, the pieces after each merge that fires. Example: Trace(tok, "o gato subiu no")"""

    def __init__(self, tok: Tokenizer, text: str, step: int | None = None, *, language: str = "en", **kwargs: object) -> None:
        super().__init__(**kwargs)
        if not isinstance(tok, Tokenizer):
            raise BpevizError("widget_kind", "A trace replays BPE merges; give a BPE tokenizer.")
        self.tokenizer, self.text = tok, text
        history = steps.trace_history(tok, text)
        last = len(history["fired"])
        self._publish("trace", history, last if step is None else step, texts.player_labels(language, tok.settings.tie_break))
        self.step = last if step is None else step


class Compare(ipywidgets.VBox):
    """Two runs on one corpus side by side, and the first merge where they part, explained by the rule that made it.

    Example: Compare(bpeviz.train(docs, 80, tie_break="first"), bpeviz.train(docs, 80, tie_break="smallest"), corpus=docs)
    """

    def __init__(self, a: Tokenizer, b: Tokenizer, *, corpus: Corpus, language: str = "en") -> None:
        docs = corpus_documents(corpus, a.level)
        self.divergence = compare.first_divergence(a, b, corpus_words(docs, a.settings), corpus_words(docs, b.settings))
        self.explanation = compare.explain(self.divergence, a, b)
        step = max(0, (self.divergence.step or 1) - 1)
        self.a, self.b = Player(a, step, corpus=docs, language=language), Player(b, step, corpus=docs, language=language)
        note = ipywidgets.HTML(value=f"<p>{html.escape(self.explanation)}</p>")
        super().__init__([note, ipywidgets.HBox([self.a, self.b], layout=ipywidgets.Layout(width="100%"))])

