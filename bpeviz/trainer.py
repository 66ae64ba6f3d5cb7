"""The fast BPE trainer: learn merges from weighted id sequences, step by step.

Works on ids only; turning text into base ids (chars or bytes) happens in `training.py`.
Every sequence is laid out in one array with a linked list over positions, so a merge
touches only the occurrences of its pair and their neighbours. Counts of a pair can only
fall once the pair exists, so heap entries are upper bounds, fixed lazily when they surface.
The slow obvious trainer lives in `tests/naive.py` and must agree merge for merge.
"""

from __future__ import annotations

import gc
import heapq
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain, repeat

from .records import MAX_TIES_RECORDED
from .rules import TieRule, count_rule, tie_rule

Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class RawMerge:
    """One learned merge in ids: left_id + right_id -> token_id, with its count and the pairs it beat."""

    left_id: int
    right_id: int
    token_id: int
    count: int
    tie_ids: tuple[Pair, ...]  # other pairs with the same count, in tie-break order (at most MAX_TIES_RECORDED)
    tokens_after: int  # corpus length in tokens once this merge is applied
    top: tuple[tuple[int, int, int], ...] = ()  # (left id, right id, count) of the best pairs before it, best first


@dataclass(frozen=True)
class Rules:
    """What the trainer needs to know of the rules: the tie rule, the counting rule, and texts for rules that read tokens."""

    tie: TieRule
    overlapping: bool = True
    texts: tuple[str | bytes, ...] = ()  # base id -> its text, for the "text" tie rule and unique tokens
    unique_tokens: bool = False  # skip a merge whose token text already exists (SentencePiece)


def rules_for(tie_break: str = "first", count_rule_name: str = "overlapping", texts: Sequence[str | bytes] | None = None,
              unique_tokens: bool = False) -> Rules:
    """The trainer's rules from their registry names (ValueError for unknown names)."""
    tie = tie_rule(tie_break)
    needs_texts = tie.kind == "text" or unique_tokens
    if needs_texts and texts is None:
        raise ValueError("This tie rule (or unique tokens) needs the text of every base symbol.")
    return Rules(tie, count_rule(count_rule_name).overlapping, tuple(texts or ()) if needs_texts else (), unique_tokens)


def _without_gc(work: Callable[[], list[RawMerge]]) -> list[RawMerge]:
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of small tuples and ints; the collector would only slow us down
    try:
        return work()
    finally:
        if gc_was_enabled:
            gc.enable()


def replay_ids(
    sequences: Sequence[tuple[Sequence[int], int]],
    pairs: Sequence[Pair],
    first_token: int,
    *,
    rules: Rules | None = None,
    progress: Callable[[int, int], None] | None = None,
    record_top: int = 0,
) -> list[RawMerge]:
    """Apply given merges (pair k makes token first_token + k) to weighted sequences, as training would.

    Each RawMerge gets the pair's count on these sequences at its step (0 if it does not occur),
    the corpus length after it, and with record_top=N the N best pairs before it (by the rules).
    Example: replay_ids([([1, 2, 1, 2], 1)], [(2, 1)], 3) -> [RawMerge(2, 1, 3, 1, (), 3)]
    """
    trainer = _Trainer(sequences, rules or rules_for())
    return _without_gc(lambda: trainer.replay(pairs, first_token, progress, record_top))


def train_ids(
    sequences: Sequence[tuple[Sequence[int], int]],
    n_merges: int,
    first_token: int,
    *,
    tie_break: str = "first",
    rules: Rules | None = None,
    progress: Callable[[int, int], None] | None = None,
    record_top: int = 0,
) -> list[RawMerge]:
    """Learn up to n_merges merges from (ids, weight) sequences, given in corpus order.

    Stops early when no pair is left. New tokens are numbered from first_token. `rules` (see
    rules_for) overrides tie_break. With record_top=N each merge also keeps the N best pairs of
    its step (for drawing).
    Example: train_ids([([1, 2, 1, 2], 1)], 1, 3) -> [RawMerge(1, 2, 3, 2, (), 2)]
    """
    trainer = _Trainer(sequences, rules or rules_for(tie_break))
    return _without_gc(lambda: trainer.run(n_merges, first_token, progress, record_top))


class CorpusState:
    """The corpus between merges, as the trainer sees it: ask for counts and the best pair, apply any merge.

    For replaying a table someone wrote by hand (checker.py): the merges need not be the best ones.
    """

    def __init__(self, sequences: Sequence[tuple[Sequence[int], int]], rules: Rules) -> None:
        self._trainer = _Trainer(sequences, rules)

    def best(self) -> tuple[int, Pair, tuple[Pair, ...]] | None:
        """The pair the rules take now: (its count, the pair, up to MAX_TIES_RECORDED pairs tied with it)."""
        best, ties, held = self._trainer._take_best(0)
        self._trainer._push_back(held + ([best] if best is not None else []))
        return None if best is None else (best[0], best[2], tuple(ties))

    def count(self, pair: Pair) -> int:
        """The pair's count now, by the counting rule (0 when it does not occur)."""
        return self._trainer._count(pair)

    def merge(self, pair: Pair, token: int) -> None:
        """Replace the pair by token everywhere, left to right (the pair must occur)."""
        self._trainer._merge(pair, token)


class _Trainer:
    def __init__(self, sequences: Sequence[tuple[Sequence[int], int]], rules: Rules) -> None:
        kept = [(ids, w) for ids, w in sequences if w > 0 and len(ids)]
        tokens = list(chain.from_iterable(ids for ids, _ in kept))  # position -> token id, -1 once merged away
        weight = list(chain.from_iterable(repeat(w, len(ids)) for ids, w in kept))  # position -> its sequence's weight
        nxt = list(range(1, len(tokens) + 1))  # position -> next live position in its sequence, -1 at the end
        prv = list(range(-1, len(tokens) - 1))  # position -> previous live position, -1 at the start
        end = 0
        for ids, _ in kept:
            prv[end] = -1
            end += len(ids)
            nxt[end - 1] = -1
        self.tokens, self.weight, self.nxt, self.prv = tokens, weight, nxt, prv
        self.rules = rules
        self.first_rule = rules.tie.uses_position
        self.plain_key = rules.tie.kind == "ids"  # the key is the pair itself
        self.overlapping = rules.overlapping
        self.texts = list(rules.texts)  # id -> text, grows with every merge (only when a rule reads it)
        self.reads_texts = rules.tie.kind == "text" or rules.unique_tokens
        self.known_texts = set(self.texts) if rules.unique_tokens else set()
        self.total = sum(weight)
        where: dict[Pair, list[int]] = {}  # pair -> positions of its left token, ascending
        add_position = where.setdefault
        for i, left, right, j in zip(range(len(tokens)), tokens, tokens[1:], nxt):
            if j >= 0:  # the last token of a sequence has no right neighbour
                add_position((left, right), []).append(i)
        self.uniform = all(w == 1 for w in weight)
        if self.uniform:
            counts = {pair: len(positions) for pair, positions in where.items()}
        else:
            counts = {pair: sum(map(weight.__getitem__, positions)) for pair, positions in where.items()}
        self.counts, self.where = counts, where  # counts: pair -> weighted number of occurrences (overlapping)
        self.skip: dict[Pair, int] = {}  # pair -> how many leading entries of where[pair] are dead
        if self.first_rule:
            self.heap = [(-c, where[pair][0], pair) for pair, c in counts.items()]
        else:
            self.heap = [(-c, self._key(pair), pair) for pair, c in counts.items()]
        if not self.overlapping:  # runs of one token: the stored count must be the non-overlapping one
            self.heap = [(-self._run_count(p), key, p) if p[0] == p[1] else (c, key, p) for c, key, p in self.heap]
        heapq.heapify(self.heap)

    def _first_position(self, pair: Pair) -> int:
        """Position of the pair's first live occurrence; entries before it are dead for good."""
        positions = self.where[pair]
        k = self.skip.get(pair, 0)
        tokens, nxt = self.tokens, self.nxt
        left, right = pair
        while True:
            i = positions[k]
            j = nxt[i]
            if tokens[i] == left and j >= 0 and tokens[j] == right:
                break
            k += 1
        if k:
            self.skip[pair] = k
        return i

    def _run_count(self, pair: Pair) -> int:
        """Non-overlapping count of a pair `a a`: occurrences left to right, skipping one that shares a token with the last."""
        tokens, nxt, weight = self.tokens, self.nxt, self.weight
        token = pair[0]
        total, last_right = 0, -1
        for i in self.where[pair][self.skip.get(pair, 0):]:
            j = nxt[i]
            if tokens[i] == token and j >= 0 and tokens[j] == token and i != last_right:
                total += weight[i]
                last_right = j
        return total

    def _count(self, pair: Pair) -> int:
        """The pair's count by the counting rule."""
        count = self.counts.get(pair, 0)
        if count and not self.overlapping and pair[0] == pair[1]:
            return self._run_count(pair)
        return count

    def _key(self, pair: Pair) -> object:
        if self.first_rule:
            return self._first_position(pair)
        if self.plain_key:
            return pair
        return self.rules.tie.order(pair, 0, self.texts)

    def _pop_best(self) -> tuple[int, object, Pair] | None:
        """Pop the best pair with its true count and key, fixing stale heap entries on the way."""
        heap, counts, overlapping = self.heap, self.counts, self.overlapping
        while heap:
            neg_count, key, pair = heapq.heappop(heap)
            count = counts.get(pair, 0)
            if count == 0:
                continue
            if not overlapping and pair[0] == pair[1]:
                count = self._run_count(pair)
            if count != -neg_count:
                heapq.heappush(heap, (-count, self._key(pair), pair))
                continue
            if self.first_rule:
                true_key = self._first_position(pair)
                if true_key != key:  # the stored first occurrence was merged away
                    heapq.heappush(heap, (neg_count, true_key, pair))
                    continue
            return count, key, pair
        return None

    def _forget(self, pair: Pair) -> None:
        """Drop a pair that will never be merged (its token exists already); its occurrences stay as they are."""
        del self.counts[pair], self.where[pair]
        self.skip.pop(pair, None)

    def _take_best(self, record_top: int) -> tuple[tuple[int, object, Pair] | None, list[Pair], list[tuple]]:
        """Pop the best pair, then its ties and enough followers for `record_top`; the caller pushes back `held`."""
        best = self._pop_best()
        if best is None:
            return None, [], []
        count, heap = best[0], self.heap
        ties: list[Pair] = []
        held: list[tuple[int, int | Pair, Pair]] = []  # popped, valid, to be pushed back
        # Popping validated entries yields pairs in exact rule order, so ties come first.
        # Stored counts are upper bounds: once the top's is below `count`, nothing else ties.
        while heap:
            want_top = len(held) < record_top - 1
            want_tie = len(ties) == len(held) < MAX_TIES_RECORDED and -heap[0][0] >= count
            if not (want_top or want_tie):
                break
            other = self._pop_best()
            if other is None:
                break
            if other[0] == count and len(ties) == len(held) < MAX_TIES_RECORDED:
                ties.append(other[2])
            held.append(other)
        return best, ties, held

    def _push_back(self, entries: list[tuple[int, object, Pair]]) -> None:
        for c, key, p in entries:
            heapq.heappush(self.heap, (-c, key, p))

    @staticmethod
    def _top(best: tuple, held: list[tuple], record_top: int) -> tuple[tuple[int, int, int], ...]:
        return tuple((p[0], p[1], c) for c, _, p in [best, *held])[:record_top] if record_top else ()

    def run(self, n_merges: int, first_token: int, progress: Callable[[int, int], None] | None,
            record_top: int = 0) -> list[RawMerge]:
        merges: list[RawMerge] = []
        while len(merges) < n_merges:
            best, ties, held = self._take_best(record_top)
            if best is None:
                break  # every sequence is a single token: nothing left to merge
            self._push_back(held)
            count, _, pair = best
            if self.known_texts and self.texts[pair[0]] + self.texts[pair[1]] in self.known_texts:  # type: ignore[operator]
                self._forget(pair)  # made by another path already: learned once (SentencePiece)
                continue
            token = first_token + len(merges)
            self._merge(pair, token)
            merges.append(RawMerge(pair[0], pair[1], token, count, tuple(ties), self.total, self._top(best, held, record_top)))
            if progress is not None and (len(merges) % 64 == 1 or len(merges) == n_merges):
                progress(len(merges), n_merges)
        return merges

    def replay(self, pairs: Sequence[Pair], first_token: int, progress: Callable[[int, int], None] | None,
               record_top: int = 0) -> list[RawMerge]:
        """Apply merges learned elsewhere, in order, recording each one's count here and the best pairs before it."""
        merges: list[RawMerge] = []
        for step, pair in enumerate(pairs):
            best, _, held = self._take_best(record_top)
            top = self._top(best, held, record_top) if best is not None else ()
            self._push_back(held + ([best] if best is not None else []))
            token = first_token + step
            count = self._count(pair)
            if count:
                self._merge(pair, token)
            elif self.reads_texts:
                self.texts.append(self.texts[pair[0]] + self.texts[pair[1]])  # type: ignore[operator]
            merges.append(RawMerge(pair[0], pair[1], token, count, (), self.total, top))
            if progress is not None and (step % 64 == 0 or step == len(pairs) - 1):
                progress(step + 1, len(pairs))
        return merges

    def _merge(self, pair: Pair, token: int) -> None:
        tokens, nxt, prv = self.tokens, self.nxt, self.prv
        left, right = pair
        if self.reads_texts:  # the new token's text, before keys of the pairs it makes are computed
            self.texts.append(self.texts[left] + self.texts[right])  # type: ignore[operator]
            if self.rules.unique_tokens:
                self.known_texts.add(self.texts[-1])
        # Each occurrence turns (before, left) into (before, token) and (right, after) into
        # (token, after). We note only where each neighbour was; the counts follow per neighbour.
        before_at: defaultdict[int, list[int]] = defaultdict(list)  # token before an occurrence -> its positions
        after_at: defaultdict[int, list[int]] = defaultdict(list)  # token after an occurrence -> the occurrence's positions
        for i in self.where[pair]:
            if tokens[i] != left:
                continue
            j = nxt[i]
            if j < 0 or tokens[j] != right:
                continue  # an overlapping occurrence already merged (as in "aaa")
            p, k = prv[i], nxt[j]
            if p >= 0:
                before_at[tokens[p]].append(p)
            if k >= 0:
                after_at[tokens[k]].append(i)
            tokens[i] = token
            tokens[j] = -1
            nxt[i] = k
            if k >= 0:
                prv[k] = i
        weight, uniform = self.weight, self.uniform
        counts, where, skip, heap, first_rule = self.counts, self.where, self.skip, self.heap, self.first_rule
        overlapped = 0  # occurrences of the pair that an adjacent merge consumed (as in "aaa")

        def lose(old: Pair, w: int) -> None:
            nonlocal overlapped
            if old == pair:
                overlapped += w
                return
            c = counts[old] - w
            if c:
                counts[old] = c
            else:  # gone for good: a pair of old tokens never reappears
                del counts[old], where[old]
                skip.pop(old, None)

        born: dict[Pair, int] = {}  # pairs with the new token -> count; they did not exist before
        for after, positions in after_at.items():
            w = len(positions) if uniform else sum(map(weight.__getitem__, positions))
            lose((right, after), w)
            born[(token, after)] = w
            where[(token, after)] = positions
        for before, positions in before_at.items():
            w = len(positions) if uniform else sum(map(weight.__getitem__, positions))
            if before == token:  # the occurrence before was merged too: its (token, left) is gone again
                born[(token, left)] -= w
            else:
                lose((before, left), w)
            born[(before, token)] = w
            where[(before, token)] = positions
        self.total -= counts.pop(pair) - overlapped
        del where[pair]  # every occurrence is merged or overlapped away
        skip.pop(pair, None)
        plain_key, overlapping = self.plain_key, self.overlapping
        for new, c in born.items():
            if c > 0:
                counts[new] = c
                if not overlapping and new[0] == new[1]:
                    c = self._run_count(new)
                # its first listed position may be overlapped away: too early is fine, fixed when it surfaces
                key = where[new][0] if first_rule else new if plain_key else self._key(new)
                heapq.heappush(heap, (-c, key, new))
            else:
                del where[new]
