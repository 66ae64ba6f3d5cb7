"""The `bpeviz` command's arguments: each command's options, with choices read from the library's registries."""

from __future__ import annotations

import argparse
import sys

from bpeviz import formats
from bpeviz.core.records import ALGORITHMS, LEVELS
from bpeviz.core.rules import COUNT_RULES, DIALECTS, TIE_RULES
from bpeviz.engine import ENGINES
from bpeviz.pre_tokenizers import splits
from bpeviz.pretrained.encodings import ENCODINGS

from . import commands, real


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake as one `bpeviz: error:` line and exit 2, as every other error."""

    def error(self, message: str) -> None:  # type: ignore[override]  # argparse's error never returns: it exits
        print(f"bpeviz: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def _whole(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        return value

    return parse


def _add_rules(p: argparse.ArgumentParser, *, level_default: str | None = "bytes") -> None:
    """The settings of a run, shared by train and check; a dialect fills in what is not given."""
    p.add_argument("--level", choices=LEVELS, default=None, help=f"default: the dialect's, else {level_default}")
    p.add_argument("--pretokenizer", default=None, help=f"{', '.join(splits.PRETOKENIZERS)} or a regex (default gpt2)")
    p.add_argument("--tie-break", choices=tuple(TIE_RULES), default=None, help="default: first")
    p.add_argument("--count-rule", choices=tuple(COUNT_RULES), default=None, help="default: overlapping")
    p.add_argument("--dialect", choices=tuple(DIALECTS), default=None, help="the rules of a real trainer")
    p.add_argument("--lines", action="store_true", help="one document per line")
    p.set_defaults(level_default=level_default)


def _add_counting(p: argparse.ArgumentParser) -> None:
    """Where the pre-tokens are counted: here, in worker processes, or on a Dask cluster."""
    p.add_argument("--workers", type=_whole(1), default=None,
                   help="processes that count (default: every core for files of 8 MB or more, else 1; at most the cores)")
    p.add_argument("--scheduler", default=None,
                   help="count on Dask: local:N (N worker processes on this machine) or tcp://HOST:PORT (needs bpeviz[cluster])")
    p.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")


def _add_output(p: argparse.ArgumentParser, what: str) -> None:
    """-o and --force, as every command that writes a file takes them."""
    p.add_argument("-o", "--output", help=f"{what}; never over an input, nor over a file unless --force")
    p.add_argument("--force", action="store_true", help="replace -o's file if it exists (always whole: the old file stays "
                   "until the new one is complete)")


def _add_train(sub) -> None:
    t = sub.add_parser("train", help="learn merges from text files (streamed) or a count table, and print them")
    t.add_argument("files", nargs="*", metavar="FILE", help="text files; each is one document (or one per line with --lines)")
    t.add_argument("--counts", help="a count table from bpeviz count (.tsv or .parquet) instead of text files")
    t.add_argument("--vocab-size", type=_whole(1), required=True, help="base symbols + merges (Unigram: pieces)")
    t.add_argument("--algorithm", choices=ALGORITHMS, default="bpe",
                   help="bpe (default); wordpiece (best score); unigram (EM and pruning, characters, split at spaces)")
    _add_rules(t)
    _add_counting(t)
    t.add_argument("--engine", choices=ENGINES, default="auto",
                   help="BPE's merge loop and Unigram's EM and pruning: python, compiled (numba: pip install \"bpeviz[fast]\"), "
                        "or auto (default: compiled once numba's cache holds it; a first big run compiles it in the "
                        "background, once); the result is the same")
    t.add_argument("--json", action="store_true", help="one JSON object per merge")
    t.add_argument("--bytes", action="store_true", help="print tokens as Python byte literals (minbpe style)")
    _add_output(t, "save the tokenizer as JSON")
    t.set_defaults(run=commands.cmd_train)


def _add_count(sub) -> None:
    c = sub.add_parser("count", help="count the pre-tokens of text files (streamed, in parallel) into a table for train --counts")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--pretokenizer", default=None, help=f"{', '.join(splits.PRETOKENIZERS)} or a regex (default gpt2)")
    c.add_argument("--dialect", choices=tuple(DIALECTS), default=None, help="split as this trainer does (its pretokenizer)")
    c.add_argument("--lines", action="store_true", help="one document per line")
    _add_counting(c)
    _add_output(c, "counts.tsv (piece<TAB>count; \\ \\t \\n \\r \\xNN escaped) or counts.parquet; default: TSV on stdout")
    c.set_defaults(run=commands.cmd_count)


def _add_check(sub) -> None:
    c = sub.add_parser("check", help="check a hand-worked merge table against a corpus: exit 0 right, 1 wrong, 2 bad input")
    c.add_argument("table", help="one merge a line ('left right' or 'left + right', optional count) or a CSV left,right[,count]")
    c.add_argument("--corpus", required=True, help="the text file the table was worked on")
    _add_rules(c, level_default="chars")
    c.set_defaults(run=commands.cmd_check)


def _add_encode(sub) -> None:
    e = sub.add_parser("encode", help="encode text with a saved tokenizer or a real encoding")
    e.add_argument("text")
    which = e.add_mutually_exclusive_group(required=True)
    which.add_argument("--tokenizer", help="a tokenizer JSON saved by bpeviz train -o")
    which.add_argument("--encoding", choices=tuple(ENCODINGS), help="a real tokenizer, offline")
    e.add_argument("--trace", action="store_true", help="show the merges that fire, one per line")
    e.set_defaults(run=commands.cmd_encode)


def _add_count_tokens(sub) -> None:
    c = sub.add_parser("count-tokens", help="how many tokens are these files? streamed, per file and in total")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--encoding", action="append", choices=tuple(ENCODINGS),
                   help="a real tokenizer, offline (repeat for several; default cl100k_base)")
    c.add_argument("--tokenizer", help="a tokenizer file: bpeviz JSON, tokenizer.json, .tiktoken, ...")
    c.add_argument("--json", action="store_true", help="the table as JSON")
    c.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    c.set_defaults(run=commands.cmd_count_tokens)


def _add_files(sub) -> None:
    x = sub.add_parser("export", help="write a saved tokenizer in another format")
    x.add_argument("tokenizer")
    x.add_argument("--format", choices=tuple(formats.FORMATS), required=True)
    _add_output(x, "the file (a .tiktoken gets its sidecar, the same name + .json)")
    x.set_defaults(run=commands.cmd_export)

    i = sub.add_parser("import", help="read a tokenizer.json, .tiktoken, bpeviz JSON, CSV or .vocab file and list its merges")
    i.add_argument("file")
    i.add_argument("--merges", type=_whole(0), default=None, help="keep only the first N merges")
    i.add_argument("--show", type=_whole(0), default=None, help="how many merges to print (default: the kept ones, or 20)")
    i.add_argument("--bytes", action="store_true", help="print tokens as Python byte literals")
    _add_output(i, "save as a bpeviz tokenizer JSON")
    i.set_defaults(run=commands.cmd_import)


def _add_extend(sub) -> None:
    x = sub.add_parser("extend", help="graft: a real tokenizer's merges, then new ones learned on your text; old ids kept")
    x.add_argument("base", help=f"a real tokenizer ({', '.join(ENCODINGS)}) or a tokenizer file (bpeviz JSON, "
                   "tokenizer.json, .tiktoken: byte-level BPE; a SentencePiece BPE .model)")
    x.add_argument("files", nargs="+", metavar="CORPUS", help="text files to learn the new merges on")
    x.add_argument("--merges", type=_whole(0), required=True, help="how many new merges")
    x.add_argument("--format", choices=(*formats.FORMATS, "model"), default=None,
                   help="the output's format (json: bpeviz JSON, the default; tiktoken: with its sidecar; hf: "
                   "tokenizer.json; model: a SentencePiece .model, the only one for a SentencePiece base, and its default)")
    x.add_argument("--engine", choices=("auto", "python", "compiled"), default="auto", help="the merge loop")
    x.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    _add_output(x, "the grafted tokenizer")
    x.set_defaults(run=real.cmd_extend)


def _add_infer_mix(sub) -> None:
    x = sub.add_parser("infer-mix", help="what a tokenizer's merge order says of its training mix (Hayase et al.)")
    x.add_argument("tokenizer", help="a real tokenizer (gpt2, cl100k_base, ...) or a byte-level tokenizer file")
    x.add_argument("--languages", nargs="+", metavar="LANG", default=None,
                   help="the language categories, from wordfreq's word lists (default: the 20 most spoken it has)")
    x.add_argument("--no-code", action="store_true", help="leave out the code category (Python source)")
    x.add_argument("--merges", type=_whole(1), default=2000, help="how many of its first merges to read (default 2000)")
    x.add_argument("--json", action="store_true", help="the shares as JSON")
    x.set_defaults(run=real.cmd_infer_mix)


def _add_audit(sub) -> None:
    x = sub.add_parser("audit", help="the tokens of a tokenizer that earn little: unreachable, cut, duplicate, unused")
    x.add_argument("tokenizer", help="a real tokenizer (gpt2, cl100k_base, ...) or a byte-level tokenizer file")
    x.add_argument("--sample", action="append", metavar="FILE", default=[], help="text to encode (repeat for several)")
    x.add_argument("--show", type=_whole(0), default=10, help="tokens shown per kind (default 10)")
    x.add_argument("--json", action="store_true", help="every list as JSON")
    x.set_defaults(run=real.cmd_audit)


def _add_corpus(sub) -> None:
    c = sub.add_parser("corpus", help="write a corpus bpeviz ships (no name: list them), e.g. to train on from the command line")
    c.add_argument("name", nargs="?", help="a corpus (toy_pt, english, portuguese, python, udhr-pt, ...) or toy-table-wrong")
    _add_output(c, "the file (default: stdout)")
    c.set_defaults(run=commands.cmd_corpus)


def _add_handout(sub) -> None:
    h = sub.add_parser("handout", help="a lesson file saved by the app, as a printable page (merge table, corpus, trace)")
    h.add_argument("lesson", help="the lesson file (the app's Lesson snapshot → Download)")
    _add_output(h, "the HTML file (default: stdout)")
    h.set_defaults(run=commands.cmd_handout)


def _add_app(sub) -> None:
    """Listed in --help; main() hands `bpeviz app ...` to Streamlit before parsing (its options are Streamlit's)."""
    sub.add_parser("app", add_help=False, help="serve the app in a browser (bpeviz app --help: the options of streamlit run)")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="bpeviz", description="Train, trace and compare BPE tokenizers.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_train(sub)
    _add_count(sub)
    _add_check(sub)
    _add_encode(sub)
    _add_count_tokens(sub)
    _add_files(sub)
    _add_extend(sub)
    _add_infer_mix(sub)
    _add_audit(sub)
    _add_corpus(sub)
    _add_handout(sub)
    _add_app(sub)
    return p
