"""The checker for hand-worked tables and traces, and the comparison of two rule sets."""

from collections import Counter

import pytest

import bpeviz
from bpeviz import formats
from bpeviz.data import corpora
from bpeviz.lessons import checker, compare
from bpeviz.trainers.bpe import corpus_words
from bpeviz.trainers.settings import resolve_settings

TOY = corpora.documents("toy_pt")
TABLES = corpora.CORPORA_DIR / "tables"
TOY_RULES = resolve_settings(64, level="chars", pretokenizer="gpt2")


def check(text: str, docs=TOY, settings=TOY_RULES):
    return checker.check_table(checker.parse_table(text, settings.level), docs, settings)


def test_the_shipped_tables_get_the_verdicts_they_were_written_for():
    right = check((TABLES / "toy_correct.txt").read_text())
    assert len(right) == 41 and all(v.status == "right" and v.ok for v in right)
    ties = check((TABLES / "toy_ties.txt").read_text())
    assert len(ties) == 41 and all(v.ok for v in ties) and sum(v.status == "tie" for v in ties) >= 5
    wrong = check((TABLES / "toy_wrong.txt").read_text())
    first_bad = next(v for v in wrong if not v.ok)
    assert first_bad.row.line == 6 and first_bad.status == "wrong"  # the fifth merge, after one comment line
    assert first_bad.count == 5 and first_bad.best[:2] == (" ", "c") and first_bad.best[2] == 6


def test_every_way_of_writing_a_row_reads_the_same():
    forms = ["␣ + n 7\n␣n + o", "␣ n 7\n␣n o", "left,right,count\n␣,n,7\n␣n,o,", "left,right\n ,n\n n,o"]
    rows = [[(r.left, r.right) for r in checker.parse_table(f, "chars")] for f in forms]
    assert all(r == [(" ", "n"), (" n", "o")] for r in rows)
    exported = formats.write_csv(bpeviz.train(TOY, vocab_size=64)).decode()  # bpeviz's own CSV reads back as a right table
    assert all(v.status == "right" for v in check(exported))


def test_a_wrong_count_and_an_impossible_pair_are_named():
    verdicts = check("␣ + n 9\nx + y")
    assert verdicts[0].status == "right" and verdicts[0].count_written_wrong
    assert "the count written is 9, it is 7" in checker.explain(verdicts[0])
    assert verdicts[1].status == "impossible" and "does not occur" in checker.explain(verdicts[1])


@pytest.mark.parametrize(("text", "message"), [("", "no rows"), ("a b c d", "Line 1"), ("␣ + n\n" * 5_001, "5,000"),
                                               ("left,right,count\na,b,many", "count that is a number"),
                                               ("\\U00110000 b 3", "names no character")])  # was chr()'s own message
def test_bad_tables_get_a_plain_message(text, message):
    with pytest.raises(ValueError, match=message):
        check(text)


def test_a_hand_worked_trace():
    tok = bpeviz.train(TOY, vocab_size=64)
    steps = [s.merge for s in tok.trace("o gato subiu no")[1:]]
    good = "\n".join(f"{m.left.replace(' ', '␣')} + {m.right.replace(' ', '␣')}" for m in steps)
    assert all(v.status == "right" for v in checker.check_trace(checker.parse_table(good, "chars"), tok, "o gato subiu no"))
    bad = checker.check_trace(checker.parse_table("␣ + n\nt + o", "chars"), tok, "o gato subiu no")
    assert [v.status for v in bad] == ["right", "wrong"] and bad[1].best[:2] == (" n", "o")


def words(settings, docs=TOY):
    return corpus_words(docs, settings)


def test_two_tie_rules_part_ways_at_a_tie():
    a = bpeviz.train(TOY, vocab_size=64, tie_break="first")
    b = bpeviz.train(TOY, vocab_size=64, tie_break="smallest")
    d = compare.first_divergence(a, b, words(a.settings), words(b.settings))
    assert (d.step, d.kind, d.pair_a, d.pair_b) == (3, "tie", ("t", "o"), ("␣", "c"))
    assert d.counts_a == (6, 6) and d.agree_before == 2
    assert "tie at 6" in compare.explain(d, a, b) and "rule 'first' takes `t + o`" in compare.explain(d, a, b)


def test_counting_rules_part_ways_on_runs_of_one_letter():
    docs = ["aaaa bcbcbc"]  # a a: 3 overlapping, 2 not; b c: 3 either way
    a = bpeviz.train(docs, vocab_size=10, pretokenizer="none")
    b = bpeviz.train(docs, vocab_size=10, pretokenizer="none", count_rule="nonoverlapping")
    d = compare.first_divergence(a, b, words(a.settings, docs), words(b.settings, docs))
    assert (d.step, d.kind, d.pair_a, d.pair_b, d.counts_a, d.counts_b) == (1, "count", ("a", "a"), ("b", "c"), (3, 3), (2, 3))


def test_splits_and_levels_part_ways_for_their_own_reasons():
    docs = corpora.documents("udhr-pt")
    a = bpeviz.train(docs, vocab_size=300, level="bytes", pretokenizer="gpt2")
    b = bpeviz.train(docs, vocab_size=300, level="bytes", pretokenizer="none")
    assert compare.first_divergence(a, b, Counter(words(a.settings, docs)), Counter(words(b.settings, docs))).kind == "split"
    c = bpeviz.train(docs, vocab_size=100, level="chars")
    d = bpeviz.train(docs, vocab_size=300, level="bytes")
    assert compare.first_divergence(c, d, words(c.settings, docs), words(d.settings, docs)).kind == "level"
    same = compare.first_divergence(a, a, words(a.settings, docs), words(a.settings, docs))
    assert same.step is None and same.kind == "same"
