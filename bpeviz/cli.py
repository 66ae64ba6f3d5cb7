"""The `bpeviz` command: train, encode, export and import from a terminal.

Bad input prints one line starting with "bpeviz: error:" and exits 2; never a traceback.
Choices (levels, splits, tie rules, encodings, formats) are read from the library's registries.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from . import counting, engine, formats, pretokenize, render
from .cli_output import Bar, aligned, merge_json, merge_lines, round_line, unigram_lines, wordpiece_lines
from .engine import ENGINES
from .records import ALGORITHMS, LEVELS
from .reference_encodings import ENCODINGS
from .rules import COUNT_RULES, DIALECTS, TIE_RULES
from .tokenizer import Tokenizer
from .training import resolve_settings, train_counts
from .unigram import UnigramTokenizer

PROGRESS_BYTES = 8_000_000  # count-tokens shows a bar for inputs this large


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage mistake as one `bpeviz: error:` line and exit 2, as every other error."""

    def error(self, message: str) -> None:  # type: ignore[override]
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


def _read_corpus(path: str, level: str) -> str | bytes:
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a folder; give a text file") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if level == "bytes":
            return raw
        raise UsageError(f"{path} is not valid UTF-8 (byte {exc.start}); train it with --level bytes") from None


def _corpus(path: str, args: argparse.Namespace) -> str | bytes | list[str]:
    corpus: str | bytes | list[str] = _read_corpus(path, args.level or "bytes")
    if args.lines and isinstance(corpus, str):
        corpus = [line for line in corpus.splitlines() if line]
    return corpus


def _level(args: argparse.Namespace) -> str | None:
    return args.level or (None if args.dialect else args.level_default)


def cmd_check(args: argparse.Namespace) -> int:
    from . import checker

    settings = resolve_settings(1, level=_level(args), pretokenizer=args.pretokenizer, tie_break=args.tie_break,
                                count_rule=args.count_rule, dialect=args.dialect)
    try:
        table = Path(args.table).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"no such file: {args.table}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{args.table} is not UTF-8 text") from None
    verdicts = checker.check_table(checker.parse_table(table, settings.level), _corpus(args.corpus, args), settings)
    print("\n".join(checker.explain(v) for v in verdicts))
    bad = next((v for v in verdicts if not v.ok), None)
    if bad is None:
        print(f"bpeviz: all {len(verdicts)} rows are right", file=sys.stderr)
        return 0
    print(f"bpeviz: line {bad.row.line} is {bad.status}", file=sys.stderr)
    return 1


def _show_progress(args: argparse.Namespace) -> bool:
    return sys.stderr.isatty() or args.progress


def _count(args: argparse.Namespace, pretokenizer: str, dummy_prefix: bool, report: bool = True) -> counting.CountTable:
    bar = Bar("counting", "MB", 1e6, _show_progress(args))
    try:
        table = counting.count_files(args.files, pretokenizer, lines=args.lines, dummy_prefix=dummy_prefix,
                                     workers=args.workers, scheduler=args.scheduler, progress=bar)
    finally:
        seconds = bar.close()
    if not report:
        return table
    size = sum(Path(f).stat().st_size for f in args.files)
    print(f"bpeviz: counted {table.total:,} pre-tokens ({len(table.counts):,} distinct) in {size / 1e6:,.1f} MB, "
          f"{seconds:.1f} s", file=sys.stderr)
    return table


def cmd_count(args: argparse.Namespace) -> int:
    settings = resolve_settings(1, level="bytes", pretokenizer=args.pretokenizer, dialect=args.dialect)
    table = _count(args, settings.pretokenizer, settings.dummy_prefix)
    if args.output:
        counting.write_counts(table, args.output)
        print(f"bpeviz: wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(counting.HEADER + json.dumps({"pretokenizer": table.pretokenizer,
                                                       "dummy_prefix": table.dummy_prefix}) + "\n")
        sys.stdout.writelines(f"{counting.escape_piece(p)}\t{n}\n" for p, n in table.counts.items())
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    bpe = args.algorithm == "bpe"
    args.level = _level(args) if bpe else args.level
    if bool(args.files) == bool(args.counts):
        raise UsageError("give the text files to train on, or --counts with a table from bpeviz count (one of them)")
    if args.counts:
        table = counting.read_counts(args.counts, pretokenizer=args.pretokenizer)
    else:
        settings = resolve_settings(args.vocab_size, level=args.level, pretokenizer=args.pretokenizer,
                                    tie_break=args.tie_break, count_rule=args.count_rule, dialect=args.dialect,
                                    algorithm=args.algorithm)
        table = _count(args, settings.pretokenizer, settings.dummy_prefix, report=_show_progress(args))
    bar = Bar(*(("merging", "merges") if args.algorithm != "unigram" else ("pruning", "rounds")), 1, _show_progress(args))
    try:
        tok = train_counts(table, vocab_size=args.vocab_size, level=args.level, tie_break=args.tie_break,
                           count_rule=args.count_rule, dialect=args.dialect, progress=bar, algorithm=args.algorithm,
                           engine=args.engine)
    finally:
        seconds = bar.close()
    if bpe:
        print(f"bpeviz: {len(tok.merges):,} merges on the {tok.engine} engine in {seconds:.2f} s", file=sys.stderr)
    if isinstance(tok, UnigramTokenizer):
        print(f"bpeviz: {tok.vocab_size:,} pieces in {len(tok.rounds)} rounds on the {tok.engine} engine in {seconds:.2f} s",
              file=sys.stderr)
        for r in tok.rounds:
            print(round_line(r), file=sys.stderr)
        lines = ([json.dumps({"id": i, "piece": p, "score": score}, ensure_ascii=False) for i, (p, score) in
                  enumerate(tok.scored)] if args.json else unigram_lines(tok))
    elif args.json:
        lines = [merge_json(m) for m in tok.merges]  # type: ignore[attr-defined]
    else:
        lines = wordpiece_lines(tok.merges) if not bpe else merge_lines(tok.merges, args.bytes)  # type: ignore[attr-defined]
    if lines:
        print("\n".join(lines))
    if tok.vocab_size < args.vocab_size:
        why = ("no pair left to merge" if args.algorithm != "unigram"
               else "no more pieces win a segmentation of this corpus (SentencePiece stops there too)")
        print(f"bpeviz: stopped at {tok.vocab_size:,} tokens of {args.vocab_size:,}: {why}", file=sys.stderr)
    if args.output:
        tok.save(args.output)
        print(f"bpeviz: saved {args.output}", file=sys.stderr)
    return 0


def cmd_encode(args: argparse.Namespace) -> int:
    if args.encoding:
        from .reference_encodings import reference

        if args.trace:
            raise UsageError("--trace needs a bpeviz tokenizer (--tokenizer), not a reference encoding")
        enc = reference(args.encoding)
        ids = enc.encode_ordinary(args.text)
        pieces = [render.show(enc.decode_single_token_bytes(i)) for i in ids]
    else:
        tok: Tokenizer = formats.load(args.tokenizer)  # type: ignore[assignment]
        if args.trace and not isinstance(tok, Tokenizer):
            raise UsageError(f"--trace replays BPE merges; this is a {tok.algorithm} tokenizer")
        if args.trace:
            for step in tok.trace(args.text):
                label = "start" if step.rank is None else f"merge {step.rank}"
                print(f"{label:>10}: {' '.join(render.show(p) for p in step.pieces)}  ({len(step.pieces)} pieces)")
            return 0
        ids = tok.encode_ordinary(args.text)
        pieces = [render.show(tok.token_of(i)) for i in ids]
    print(" ".join(pieces))
    print(" ".join(map(str, ids)))
    return 0


def _token_counters(args: argparse.Namespace) -> tuple[list[tuple[str, Callable[[str, bool], int]]], str]:
    """(label, count(text, first part of a file)) per chosen tokenizer, and a split the files may be cut at."""
    from .reference_encodings import reference

    counters: list[tuple[str, Callable[[str, bool], int]]] = []
    for name in args.encoding or ([] if args.tokenizer else ["cl100k_base"]):
        enc = reference(name)
        counters.append((name, lambda text, first, enc=enc: len(enc.encode_ordinary(text))))
    cut_at = "gpt2"  # every reference's split, like GPT-2's, never crosses a space that follows a non-space
    if args.tokenizer:
        tok = formats.import_file(args.tokenizer)
        # a dummy prefix goes once before a whole file, not before each block of it
        counters.append((Path(args.tokenizer).name,
                         lambda text, first, tok=tok: len(tok.encode_ordinary(text, continued=not first))))
        if not pretokenize.is_chunkable(tok.settings.pretokenizer):
            cut_at = tok.settings.pretokenizer  # read such files whole
    return counters, cut_at


def cmd_count_tokens(args: argparse.Namespace) -> int:
    counters, cut_at = _token_counters(args)
    sizes = []
    for f in args.files:
        try:
            sizes.append(Path(f).stat().st_size)
        except FileNotFoundError:
            raise UsageError(f"no such file: {f}") from None
    if args.tokenizer and sum(sizes) >= PROGRESS_BYTES:
        engine.warm()  # the compiled encoder for a gpt4 tokenizer's blocks (from numba's cache: under a second)
    bar = Bar("counting", "MB", 1e6, _show_progress(args) and sum(sizes) >= PROGRESS_BYTES)
    try:
        rows = counting.count_tokens(args.files, dict(counters), cut_at=cut_at, progress=bar)
    finally:
        bar.close()
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    table = [[r["file"], r["tokenizer"], f"{r['tokens']:,}", f"{r['characters']:,}", f"{r['bytes']:,}",
              f"{r['bytes_per_token']:.2f}" if r["bytes_per_token"] else "-"] for r in rows]
    print("\n".join(aligned(["file", "tokenizer", "tokens", "characters", "bytes", "bytes/token"], table, text_columns=2)))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    tok = formats.load(args.tokenizer)
    fmt = formats.FORMATS[args.format]
    data = fmt.write(tok)
    if not args.output:
        sys.stdout.buffer.write(data)
        return 0
    Path(args.output).write_bytes(data)
    print(f"bpeviz: wrote {args.output}", file=sys.stderr)
    if fmt.sidecar is not None:
        Path(args.output + ".json").write_bytes(fmt.sidecar(tok))
        print(f"bpeviz: wrote {args.output}.json (split pattern and special tokens)", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    tok = formats.import_file(args.file, n_merges=args.merges)
    show = args.show if args.show is not None else (len(tok.merges) if args.merges is not None else 20)
    lines = merge_lines(tok.merges[:show], args.bytes)
    if lines:
        print("\n".join(lines))
    if tok.algorithm != "bpe":
        print(f"bpeviz: a {tok.algorithm} tokenizer with {tok.vocab_size:,} tokens", file=sys.stderr)
    if show < len(tok.merges):
        print(f"bpeviz: {len(tok.merges) - show:,} more merges not shown (--show N)", file=sys.stderr)
    if args.output:
        tok.save(args.output)
        print(f"bpeviz: saved {args.output}", file=sys.stderr)
    return 0


def _add_rules(p: argparse.ArgumentParser, *, level_default: str | None = "bytes") -> None:
    """The settings of a run, shared by train and check; a dialect fills in what is not given."""
    p.add_argument("--level", choices=LEVELS, default=None, help=f"default: the dialect's, else {level_default}")
    p.add_argument("--pretokenizer", default=None, help=f"{', '.join(pretokenize.PRETOKENIZERS)} or a regex (default gpt2)")
    p.add_argument("--tie-break", choices=tuple(TIE_RULES), default=None, help="default: first")
    p.add_argument("--count-rule", choices=tuple(COUNT_RULES), default=None, help="default: overlapping")
    p.add_argument("--dialect", choices=tuple(DIALECTS), default=None, help="the rules of a real trainer")
    p.add_argument("--lines", action="store_true", help="one document per line")
    p.set_defaults(level_default=level_default)


def _add_counting(p: argparse.ArgumentParser) -> None:
    """Where the pre-tokens are counted: here, in worker processes, or on a Dask cluster."""
    p.add_argument("--workers", type=_whole(1), default=None,
                   help="processes that count (default: every core for files of 8 MB or more, else 1)")
    p.add_argument("--scheduler", default=None,
                   help="count on Dask: local:N (N worker processes on this machine) or tcp://HOST:PORT (needs bpeviz[cluster])")
    p.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")


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
                        "or auto (default: compiled for big corpora when numba is installed); the result is the same")
    t.add_argument("--json", action="store_true", help="one JSON object per merge")
    t.add_argument("--bytes", action="store_true", help="print tokens as Python byte literals (minbpe style)")
    t.add_argument("-o", "--output", help="save the tokenizer as JSON")
    t.set_defaults(run=cmd_train)


def _add_count(sub) -> None:
    c = sub.add_parser("count", help="count the pre-tokens of text files (streamed, in parallel) into a table for train --counts")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--pretokenizer", default=None, help=f"{', '.join(pretokenize.PRETOKENIZERS)} or a regex (default gpt2)")
    c.add_argument("--dialect", choices=tuple(DIALECTS), default=None, help="split as this trainer does (its pretokenizer)")
    c.add_argument("--lines", action="store_true", help="one document per line")
    _add_counting(c)
    c.add_argument("-o", "--output", help="counts.tsv (piece<TAB>count; \\ \\t \\n \\r \\xNN escaped) or counts.parquet; "
                                          "default: TSV on stdout")
    c.set_defaults(run=cmd_count)


def _add_check(sub) -> None:
    c = sub.add_parser("check", help="check a hand-worked merge table against a corpus: exit 0 right, 1 wrong, 2 bad input")
    c.add_argument("table", help="one merge a line ('left right' or 'left + right', optional count) or a CSV left,right[,count]")
    c.add_argument("--corpus", required=True, help="the text file the table was worked on")
    _add_rules(c, level_default="chars")
    c.set_defaults(run=cmd_check)


def _add_encode(sub) -> None:
    e = sub.add_parser("encode", help="encode text with a saved tokenizer or a real encoding")
    e.add_argument("text")
    which = e.add_mutually_exclusive_group(required=True)
    which.add_argument("--tokenizer", help="a tokenizer JSON saved by bpeviz train -o")
    which.add_argument("--encoding", choices=tuple(ENCODINGS), help="a real tokenizer, offline")
    e.add_argument("--trace", action="store_true", help="show the merges that fire, one per line")
    e.set_defaults(run=cmd_encode)


def _add_count_tokens(sub) -> None:
    c = sub.add_parser("count-tokens", help="how many tokens are these files? streamed, per file and in total")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--encoding", action="append", choices=tuple(ENCODINGS),
                   help="a real tokenizer, offline (repeat for several; default cl100k_base)")
    c.add_argument("--tokenizer", help="a tokenizer file: bpeviz JSON, tokenizer.json, .tiktoken, ...")
    c.add_argument("--json", action="store_true", help="the table as JSON")
    c.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    c.set_defaults(run=cmd_count_tokens)


def _add_files(sub) -> None:
    x = sub.add_parser("export", help="write a saved tokenizer in another format")
    x.add_argument("tokenizer")
    x.add_argument("--format", choices=tuple(formats.FORMATS), required=True)
    x.add_argument("-o", "--output")
    x.set_defaults(run=cmd_export)

    i = sub.add_parser("import", help="read a tokenizer.json, .tiktoken, bpeviz JSON, CSV or .vocab file and list its merges")
    i.add_argument("file")
    i.add_argument("--merges", type=_whole(0), default=None, help="keep only the first N merges")
    i.add_argument("--show", type=_whole(0), default=None, help="how many merges to print (default: the kept ones, or 20)")
    i.add_argument("--bytes", action="store_true", help="print tokens as Python byte literals")
    i.add_argument("-o", "--output", help="save as a bpeviz tokenizer JSON")
    i.set_defaults(run=cmd_import)


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="bpeviz", description="Train, trace and compare BPE tokenizers.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_train(sub)
    _add_count(sub)
    _add_check(sub)
    _add_encode(sub)
    _add_count_tokens(sub)
    _add_files(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a usage error already reported on one line
        return int(exc.code or 0)
    try:
        return args.run(args)
    except (UsageError, ValueError, OSError, RuntimeError) as exc:
        print(f"bpeviz: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bpeviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
