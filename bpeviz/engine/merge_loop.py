"""The merge loop in readable Python: the corpus as one linked array, pair counts and positions, a lazy heap.

Read `tests/naive.py` first: it recounts every pair after every merge, obviously right and slow.
This is the same algorithm made fast; it must agree with the naive one merge for merge (the tests
check it), and `compiled.py` is this loop again in numba. Each merge:

  1. pop the best pair from the heap, fixing stale entries on the way (`_pop_best`);
  2. pop the pairs right behind it, for its ties and the top pairs a class sees (`_take_best`);
  3. replace every occurrence, left to right, noting each occurrence's neighbours (`_merge`, step 1);
  4. take from the old pairs next to each occurrence what they had there (`_merge`, step 2);
  5. count the new pairs the new token forms and push them (`_merge`, step 3).

Inside, a pair (left, right) is one int, left * ID_SHIFT + right: ints hash and compare faster than
tuples. Counts of a pair only fall once it exists, so heap entries are upper bounds, fixed lazily.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

from bpeviz.core.ids import ID_SHIFT, SEPARATOR, SHIFT, SHIFT2, Pair, RawMerge, pack, unpack
from bpeviz.core.records import MAX_TIES_RECORDED
from bpeviz.core.rules import Rules, hf_key

SortKey = Any  # one int (-count * SHIFT + tie key) for the position and id rules, a tuple for the text rule
Entry = tuple[int, SortKey, int]  # (true count, sort key, packed pair), popped from the heap and checked


class MergeLoop:
    """The corpus as one linked array, pair counts and positions, and a heap of candidates.

    Inside, a pair (left, right) is one int, left * ID_SHIFT + right: ints hash and compare
    faster than tuples, and for the "ids" tie rule the packed pair is its own tie key.
    """

    def __init__(self, sequences: Sequence[tuple[Sequence[int], int]], rules: Rules) -> None:
        kept = [(ids, w) for ids, w in sequences if w > 0 and len(ids)]
        self._lay_out(kept)
        self.rules = rules
        self.first_rule = rules.tie.uses_position
        self.overlapping = rules.overlapping
        self.texts: list[Any] = list(rules.texts)  # id -> text (all str, or all bytes), grows with every merge
        self.reads_texts = rules.tie.reads_texts or rules.unique_tokens
        self.known_texts = set(self.texts) if rules.unique_tokens else set()
        self.total = sum(len(ids) * w for ids, w in kept)
        self.uniform = all(w == 1 for _, w in kept)
        self._count_pairs()
        self.skip: dict[int, int] = {}  # packed pair -> how many leading entries of where[pair] are dead
        # A heap entry is one int, sort key * SHIFT + packed pair (ints compare twice as fast as tuples), or for the
        # text rule a tuple (sort key, packed pair). Counts are upper bounds, fixed when they surface.
        self.shift = 0 if rules.tie.reads_texts else SHIFT
        where = self.where
        self.heap: list[Any] = [self._entry(self._sort_key(self._count(key), key, where[key][0]), key) for key in self.counts]
        heapq.heapify(self.heap)
        self.ready: list[Entry] = []  # checked entries in exact order, ahead of the heap

    def _lay_out(self, kept: list[tuple[Sequence[int], int]]) -> None:
        """One array for the whole corpus, a separator around every sequence: no neighbour test needs a bounds check."""
        tokens = [SEPARATOR]  # position -> token id; -1 once merged away
        weight = [0]  # position -> its sequence's weight
        for ids, w in kept:
            tokens += ids
            tokens.append(SEPARATOR)
            weight += repeat(w, len(ids) + 1)
        self.nxt = list(range(1, len(tokens) + 1))  # position -> next live position (a separator at a sequence's end)
        self.prv = list(range(-1, len(tokens) - 1))  # position -> previous live position (a separator at its start)
        self.tokens, self.weight = tokens, weight

    def _count_pairs(self) -> None:
        """Every adjacent pair's positions (ascending) and weighted count, read once from the laid-out corpus."""
        tokens, weight = self.tokens, self.weight
        where: dict[int, list[int]] = {}  # packed pair -> positions of its left token, ascending
        add_position = where.setdefault
        for i, key in enumerate([left * ID_SHIFT + right for left, right in zip(tokens, tokens[1:])]):
            add_position(key, []).append(i)
        for key in [key for key in where if key < 0 or key % ID_SHIFT == ID_SHIFT + SEPARATOR]:
            del where[key]  # a separator on one side: a sequence's edge, no pair there
        if self.uniform:
            counts = {key: len(positions) for key, positions in where.items()}
        else:
            counts = {key: sum(map(weight.__getitem__, positions)) for key, positions in where.items()}
        self.counts, self.where = counts, where  # counts: packed pair -> weighted number of occurrences (overlapping)

    def _first_position(self, key: int) -> int:
        """Position of the pair's first live occurrence; entries before it are dead for good."""
        positions = self.where[key]
        k = self.skip.get(key, 0)
        tokens, nxt = self.tokens, self.nxt
        left, right = divmod(key, ID_SHIFT)
        while True:
            i = positions[k]
            if tokens[i] == left and tokens[nxt[i]] == right:
                break
            k += 1
        if k:
            self.skip[key] = k
        return i

    def _run_count(self, key: int) -> int:
        """Non-overlapping count of a pair `a a`: occurrences left to right, skipping one that shares a token with the last."""
        tokens, nxt, weight = self.tokens, self.nxt, self.weight
        token = key // ID_SHIFT
        total, last_right = 0, -1
        for i in self.where[key][self.skip.get(key, 0):]:
            j = nxt[i]
            if tokens[i] == token and tokens[j] == token and i != last_right:
                total += weight[i]
                last_right = j
        return total

    def _count(self, key: int) -> int:
        """The pair's count by the counting rule."""
        count = self.counts.get(key, 0)
        if count and not self.overlapping and key // ID_SHIFT == key % ID_SHIFT:
            return self._run_count(key)
        return count

    def _sort_key(self, count: int, key: int, position: int) -> SortKey:
        """The heap's order: the higher count first, then the tie rule (position: the pair's first known position)."""
        kind = self.rules.tie.kind
        if kind == "position":
            return -count * SHIFT + position
        if kind == "ids":
            return -count * SHIFT + key
        if kind == "hf-ids":
            return -count * SHIFT + pack(hf_key(unpack(key)))
        return (-count, self.rules.tie.order(unpack(key), position, self.texts))

    def _entry(self, sort_key: SortKey, key: int) -> Any:
        """A heap entry: one int for the int sort keys, a tuple for the text rule's."""
        return sort_key * SHIFT + key if self.shift else (sort_key, key)

    def _pop_best(self) -> Entry | None:
        """Pop the best pair with its true count and sort key, fixing stale heap entries on the way.

        `ready` holds entries already checked (exact, in order); a heap entry is an upper bound,
        so a ready entry that sorts before the heap's top is the true best.
        """
        heap, ready, counts, overlapping, shift = self.heap, self.ready, self.counts, self.overlapping, self.shift
        tokens, nxt, first_rule = self.tokens, self.nxt, self.first_rule
        while heap or ready:
            if ready and (not heap or ready[0][1] < (heap[0] // SHIFT if shift else heap[0][0])):
                return ready.pop(0)
            sort_key, key = divmod(heapq.heappop(heap), SHIFT) if shift else heapq.heappop(heap)
            count = counts.get(key, 0)
            if count == 0:
                continue
            if not overlapping:
                count = self._count(key)
            if first_rule:
                stored, position = divmod(sort_key, SHIFT)
                # positions only die: a stored first occurrence that still holds the pair is still the first
                if not (tokens[position] == key // ID_SHIFT and tokens[nxt[position]] == key % ID_SHIFT):
                    position = self._first_position(key)
                if count != -stored or position != sort_key - stored * SHIFT:
                    heapq.heappush(heap, (-count * SHIFT + position) * SHIFT + key)
                    continue
                return count, sort_key, key
            stored = -(sort_key // shift) if shift else -sort_key[0]
            if count != stored:
                heapq.heappush(heap, self._entry(self._sort_key(count, key, 0), key))
                continue
            return count, sort_key, key
        return None

    def _holds(self, position: int, key: int) -> bool:
        """Whether the pair still occurs at this position."""
        left, right = divmod(key, ID_SHIFT)
        return self.tokens[position] == left and self.tokens[self.nxt[position]] == right

    def _recheck_ready(self) -> None:
        """After a merge: ready entries whose count or first position changed go back to the heap."""
        if not self.ready:
            return
        if self.overlapping:  # a merge that touches a pair lowers its count: equal counts mean nothing changed
            counts_get = self.counts.get
            if all(counts_get(key, 0) == count for count, _, key in self.ready):
                return
        kept = []
        for entry in self.ready:
            count, sort_key, key = entry
            now = self._count(key)
            if not now:
                continue
            if now == count and (not self.first_rule or self._holds(sort_key % SHIFT, key)):
                kept.append(entry)
                continue
            # a merge touched it: back to the heap, where its new key is sorted among the rest
            sort_key = self._sort_key(now, key, self._first_position(key) if self.first_rule else 0)
            heapq.heappush(self.heap, self._entry(sort_key, key))
        self.ready = kept

    def _forget(self, key: int) -> None:
        """Drop a pair that will never be merged (its token exists already); its occurrences stay as they are."""
        del self.counts[key], self.where[key]
        self.skip.pop(key, None)

    def _take_best(self, record_top: int) -> tuple[Entry | None, list[int], list[Entry]]:
        """Pop the best pair, then its ties and enough followers for `record_top`; the caller hands `held` to `_keep`."""
        self._recheck_ready()
        best = self._pop_best()
        if best is None:
            return None, [], []
        count, heap, ready, shift = best[0], self.heap, self.ready, self.shift
        ties: list[int] = []
        held: list[Entry] = []  # popped and checked: kept ready for the next steps
        # Popping checked entries yields pairs in exact rule order, so ties come first.
        # Stored counts are upper bounds: once the next one's is below `count`, nothing else ties.
        while heap or ready:
            want_top = len(held) < record_top - 1
            if len(ties) == len(held) < MAX_TIES_RECORDED:
                if ready and ready[0][0] == count:
                    want_tie = True
                elif heap:
                    want_tie = (-(heap[0] // SHIFT2) if shift else -heap[0][0][0]) >= count
                else:
                    want_tie = False
            else:
                want_tie = False
            if not (want_top or want_tie):
                break
            other = self._pop_best()
            if other is None:
                break
            if other[0] == count and len(ties) == len(held) < MAX_TIES_RECORDED:
                ties.append(other[2])
            held.append(other)
        return best, ties, held

    def _keep(self, entries: list[Entry]) -> None:
        """Hand back checked entries popped in order: they come before everything still ready."""
        self.ready[:0] = entries

    @staticmethod
    def _top(best: Entry, held: list[Entry], record_top: int) -> tuple[tuple[int, int, int], ...]:
        if not record_top:
            return ()
        return tuple((key // ID_SHIFT, key % ID_SHIFT, c) for c, _, key in [best, *held][:record_top])

    def run(self, n_merges: int, first_token: int, progress: Callable[[int, int], None] | None,
            record_top: int = 0) -> list[RawMerge]:
        """Learn up to n_merges merges (the module's docstring numbers the steps of each)."""
        merges: list[RawMerge] = []
        while len(merges) < n_merges:
            best, ties, held = self._take_best(record_top)  # steps 1 and 2: the best pair, its ties, the top pairs
            if best is None:
                break  # every sequence is a single token: nothing left to merge
            self._keep(held)  # the pairs popped behind it go back, checked, ahead of the heap
            count, _, key = best
            left, right = divmod(key, ID_SHIFT)
            if self.known_texts and self.texts[left] + self.texts[right] in self.known_texts:
                self._forget(key)  # made by another path already: learned once (SentencePiece)
                continue
            token = first_token + len(merges)
            self._merge(key, token)  # steps 3 to 5
            merges.append(RawMerge(left, right, token, count, tuple(map(unpack, ties)), self.total,
                                   self._top(best, held, record_top)))
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
            self._keep(([best] if best is not None else []) + held)
            token = first_token + step
            key = pack(pair)
            count = self._count(key)
            if count:
                self._merge(key, token)
            elif self.reads_texts:
                self.texts.append(self.texts[pair[0]] + self.texts[pair[1]])
            merges.append(RawMerge(pair[0], pair[1], token, count, (), self.total, top))
            if progress is not None and (step % 64 == 0 or step == len(pairs) - 1):
                progress(step + 1, len(pairs))
        return merges

    def _merge(self, key: int, token: int) -> None:
        tokens, nxt, prv = self.tokens, self.nxt, self.prv
        left, right = divmod(key, ID_SHIFT)
        if self.reads_texts:  # the new token's text, before keys of the pairs it makes are computed
            self.texts.append(self.texts[left] + self.texts[right])
            if self.rules.unique_tokens:
                self.known_texts.add(self.texts[-1])
        # Step 1. Each occurrence turns (before, left) into (before, token) and (right, after) into
        # (token, after). We note only where each neighbour was; the counts follow per neighbour.
        before_at: defaultdict[int, list[int]] = defaultdict(list)  # token before an occurrence -> its positions
        after_at: defaultdict[int, list[int]] = defaultdict(list)  # token after an occurrence -> the occurrence's positions
        for i in self.where[key]:
            if tokens[i] != left:
                continue
            j = nxt[i]
            if tokens[j] != right:
                continue  # an overlapping occurrence already merged (as in "aaa")
            p, k = prv[i], nxt[j]
            before_at[tokens[p]].append(p)
            after_at[tokens[k]].append(i)
            tokens[i] = token
            tokens[j] = -1
            nxt[i] = k
            prv[k] = i
        before_at.pop(SEPARATOR, None)  # occurrences at a sequence's start or end have no neighbour there
        after_at.pop(SEPARATOR, None)
        weight, uniform = self.weight, self.uniform
        counts, where, skip, heap, first_rule = self.counts, self.where, self.skip, self.heap, self.first_rule
        overlapped = 0  # occurrences of the pair that an adjacent merge consumed (as in "aaa")
        # Step 2. The old pairs next to each occurrence lose what they had there. A pair of old tokens
        # whose count reaches 0 is gone for good (it never reappears), so it is dropped.
        lost = [(right * ID_SHIFT + after, positions) for after, positions in after_at.items()]
        lost += [(before * ID_SHIFT + left, positions) for before, positions in before_at.items() if before != token]
        for old, positions in lost:
            w = len(positions) if uniform else sum(map(weight.__getitem__, positions))
            if old == key:
                overlapped += w
                continue
            c = counts[old] - w
            if c:
                counts[old] = c
            else:
                del counts[old], where[old]
                skip.pop(old, None)
        # Step 3. The pairs the new token forms, counted per neighbour, go on the heap.
        born: dict[int, int] = {}  # pairs with the new token -> count; they did not exist before
        base = token * ID_SHIFT
        for after, positions in after_at.items():
            born[base + after] = len(positions) if uniform else sum(map(weight.__getitem__, positions))
            where[base + after] = positions
        for before, positions in before_at.items():
            w = len(positions) if uniform else sum(map(weight.__getitem__, positions))
            if before == token:  # the occurrence before was merged too: its (token, left) is gone again
                born[base + left] -= w
            born[before * ID_SHIFT + token] = w
            where[before * ID_SHIFT + token] = positions
        self.total -= counts.pop(key) - overlapped
        del where[key]  # every occurrence is merged or overlapped away
        skip.pop(key, None)
        overlapping, plain = self.overlapping, first_rule or self.rules.tie.kind == "ids"
        for new, c in born.items():
            if c > 0:
                counts[new] = c
                if not overlapping:
                    c = self._count(new)
                # its first listed position may be overlapped away: too early is fine, fixed when it surfaces
                if plain:
                    heapq.heappush(heap, (-c * SHIFT + (where[new][0] if first_rule else new)) * SHIFT + new)
                else:
                    heapq.heappush(heap, self._entry(self._sort_key(c, new, where[new][0]), new))
            else:
                del where[new]
