"""What each `bpeviz` command does: read its arguments (arguments.py), call the library, print or write the result."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bpeviz import engine, formats
from bpeviz.core.reading import read_capped
from bpeviz.counting import blocks
from bpeviz.data import corpora
from bpeviz.lessons import render, sources
from bpeviz.models.base import TokenizerBase
from bpeviz.models.bpe import Tokenizer
from bpeviz.models.unigram import UnigramTokenizer
from bpeviz.models.wordpiece import WordPieceTokenizer
from bpeviz.pre_tokenizers import splits
from bpeviz.trainers.settings import resolve_settings
from bpeviz.trainers.training import train_counts

from .files import MAX_TEXT_BYTES, check_output, write_atomic, write_bytes
from .output import Bar, aligned, merge_json, merge_lines, round_line, unigram_lines, wordpiece_lines

PROGRESS_BYTES = 8_000_000  # count-tokens shows a bar for inputs this large


class UsageError(Exception):
    pass


MAX_TABLE_BYTES = 50_000_000  # a hand-worked merge table (the checker reads 5 000 rows at most)


def _read_corpus(path: str, level: str) -> str | bytes:
    raw = read_capped(path, MAX_TEXT_BYTES, "this command")  # /dev/zero or a huge file: refused, not loaded
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
    from bpeviz.lessons import checker

    settings = resolve_settings(1, level=_level(args), pretokenizer=args.pretokenizer, tie_break=args.tie_break,
                                count_rule=args.count_rule, dialect=args.dialect)
    try:
        table = read_capped(args.table, MAX_TABLE_BYTES, "bpeviz check").decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{args.table} is not UTF-8 text") from None
    verdicts = checker.check_table(checker.parse_table(table, settings.level), _corpus(args.corpus, args), settings)
    print("\n".join(checker.explain(v, k) for k, v in enumerate(verdicts, start=1)))
    bad = next(((k, v) for k, v in enumerate(verdicts, start=1) if not v.ok), None)
    if bad is None:
        print(f"bpeviz: all {len(verdicts)} rows are right", file=sys.stderr)
        return 0
    print(f"bpeviz: {checker.where(bad[1], bad[0])} is {bad[1].status}", file=sys.stderr)
    return 1


def _show_progress(args: argparse.Namespace) -> bool:
    return sys.stderr.isatty() or args.progress


def _count(args: argparse.Namespace, pretokenizer: str, dummy_prefix: bool, report: bool = True,
           ends: bool = False) -> blocks.CountTable:
    bar = Bar("counting", "MB", 1e6, _show_progress(args))
    try:
        table = blocks.count_files(args.files, pretokenizer, lines=args.lines, dummy_prefix=dummy_prefix,
                                     workers=args.workers, scheduler=args.scheduler, progress=bar, ends=ends)
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
    if args.output:
        check_output(args.output, force=args.force, inputs=args.files)  # before the counting, not after it
    table = _count(args, settings.pretokenizer, settings.dummy_prefix)
    if args.output:
        write_atomic(args.output, lambda part: blocks.write_counts(table, part))
        print(f"bpeviz: wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(blocks.HEADER + json.dumps({"pretokenizer": table.pretokenizer, "dummy_prefix": table.dummy_prefix,
                                                       "rows": len(table.counts)}) + "\n")
        sys.stdout.writelines(f"{blocks.escape_piece(p)}\t{n}\n" for p, n in table.counts.items())
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    bpe = args.algorithm == "bpe"
    args.level = _level(args) if bpe else args.level
    if bool(args.files) == bool(args.counts):
        raise UsageError("give the text files to train on, or --counts with a table from bpeviz count (one of them)")
    if args.output:
        check_output(args.output, force=args.force, inputs=[*args.files, *([args.counts] if args.counts else [])])
    tok, seconds = _train(args)
    if bpe:
        print(f"bpeviz: {len(tok.merges):,} merges on the {tok.engine} engine in {seconds:.2f} s", file=sys.stderr)
    _say_if_compiling(tok.engine, "unigram" if args.algorithm == "unigram" else "bpe")
    lines = _train_lines(args, tok, seconds)
    if lines:
        print("\n".join(lines))
    if tok.vocab_size < args.vocab_size:
        why = ("no pair left to merge" if args.algorithm != "unigram"
               else "no more pieces win a segmentation of this corpus (SentencePiece stops there too)")
        print(f"bpeviz: stopped at {tok.vocab_size:,} tokens of {args.vocab_size:,}: {why}", file=sys.stderr)
    if args.output:
        write_atomic(args.output, tok.save)
        print(f"bpeviz: saved {args.output}", file=sys.stderr)
    return 0


def _train(args: argparse.Namespace) -> tuple[TokenizerBase, float]:
    """The tokenizer train's arguments ask for, from a count table or the files counted here; and the seconds it took."""
    if args.counts:
        table = blocks.read_counts(args.counts, pretokenizer=args.pretokenizer)
        if args.algorithm == "unigram":
            print("bpeviz: a count table keeps no document ends, which Unigram's seeds use: the pieces can differ a "
                  "little from training on the files themselves", file=sys.stderr)
    else:
        settings = resolve_settings(args.vocab_size, level=args.level, pretokenizer=args.pretokenizer,
                                    tie_break=args.tie_break, count_rule=args.count_rule, dialect=args.dialect,
                                    algorithm=args.algorithm)
        table = _count(args, settings.pretokenizer, settings.dummy_prefix, report=_show_progress(args),
                       ends=args.algorithm == "unigram")
    bar = Bar(*(("merging", "merges") if args.algorithm != "unigram" else ("pruning", "rounds")), 1, _show_progress(args))
    try:
        tok = train_counts(table, vocab_size=args.vocab_size, level=args.level, tie_break=args.tie_break,
                           count_rule=args.count_rule, dialect=args.dialect, progress=bar, algorithm=args.algorithm,
                           engine=args.engine)
    finally:
        seconds = bar.close()
    return tok, seconds


def _train_lines(args: argparse.Namespace, tok: TokenizerBase, seconds: float) -> list[str]:
    """What train prints on stdout: the merges (or pieces), as text or JSON; Unigram's rounds go to stderr."""
    if isinstance(tok, UnigramTokenizer):
        print(f"bpeviz: {tok.vocab_size:,} pieces in {len(tok.rounds)} rounds on the {tok.engine} engine in {seconds:.2f} s",
              file=sys.stderr)
        for r in tok.rounds:
            print(round_line(r), file=sys.stderr)
        return ([json.dumps({"id": i, "piece": p, "score": score}, ensure_ascii=False) for i, (p, score) in
                 enumerate(tok.scored)] if args.json else unigram_lines(tok))
    if isinstance(tok, WordPieceTokenizer):
        return [merge_json(m) for m in tok.merges] if args.json else wordpiece_lines(tok.merges)
    assert isinstance(tok, Tokenizer)  # BPE: the only other kind train_counts makes
    return [merge_json(m) for m in tok.merges] if args.json else merge_lines(tok.merges, args.bytes)


def cmd_encode(args: argparse.Namespace) -> int:
    if args.encoding:
        from bpeviz.pretrained.encodings import reference

        if args.trace:
            raise UsageError("--trace needs a bpeviz tokenizer (--tokenizer), not a reference encoding")
        enc = reference(args.encoding)
        ids = enc.encode_ordinary(args.text)
        pieces = [render.show(enc.decode_single_token_bytes(i)) for i in ids]
    else:
        tok: Tokenizer = formats.load(args.tokenizer)  # type: ignore[assignment]  # encode --tokenizer takes a BPE file
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


def _counter(encoder: Any, *, continued: bool = False) -> Callable[[str, bool], int]:
    """count(text, first part of a file): a real encoding's, or a bpeviz tokenizer's (continued: a dummy prefix goes
    once before a whole file, not before each block of it)."""
    if continued:
        return lambda text, first: len(encoder.encode_ordinary(text, continued=not first))
    return lambda text, first: len(encoder.encode_ordinary(text))


def _token_counters(args: argparse.Namespace) -> tuple[list[tuple[str, Callable[[str, bool], int]]], str]:
    """(label, count(text, first part of a file)) per chosen tokenizer, and a split the files may be cut at."""
    from bpeviz.pretrained.encodings import reference

    counters: list[tuple[str, Callable[[str, bool], int]]] = []
    for name in args.encoding or ([] if args.tokenizer else ["cl100k_base"]):
        encoding = reference(name)  # a SentencePiece model puts its dummy prefix before the file, not each block
        counters.append((name, _counter(encoding, continued=hasattr(encoding, "tokenizer"))))
    cut_at = "gpt2"  # every reference's split, like GPT-2's, never crosses a space that follows a non-space
    if args.tokenizer:
        tok = formats.import_file(args.tokenizer)
        # a dummy prefix goes once before a whole file, not before each block of it
        counters.append((Path(args.tokenizer).name, _counter(tok, continued=True)))
        if not splits.is_chunkable(tok.settings.pretokenizer):
            cut_at = tok.settings.pretokenizer  # read such files whole
    return counters, cut_at


def _say_if_compiling(used: str, group: str) -> None:
    """One line when this run used the Python engine while the compiled one compiles in the background."""
    if used == "python" and engine.status(group) == "compiling":
        print("bpeviz: the fast engine is compiling in the background, once; this run uses the Python loop", file=sys.stderr)


def cmd_count_tokens(args: argparse.Namespace) -> int:
    counters, cut_at = _token_counters(args)
    sizes = []
    for f in args.files:
        try:
            sizes.append(Path(f).stat().st_size)
        except FileNotFoundError:
            raise UsageError(f"no such file: {f}") from None
    bar = Bar("counting", "MB", 1e6, _show_progress(args) and sum(sizes) >= PROGRESS_BYTES)
    try:
        rows = blocks.count_tokens(args.files, dict(counters), cut_at=cut_at, progress=bar)
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
    fmt = formats.FORMATS[args.format]
    if args.output:
        for path in [args.output] + ([args.output + ".json"] if fmt.sidecar is not None else []):
            check_output(path, force=args.force, inputs=[args.tokenizer])
    tok = formats.load(args.tokenizer)
    data = fmt.write(tok)
    if not args.output:
        sys.stdout.buffer.write(data)
        return 0
    write_bytes(args.output, data)
    print(f"bpeviz: wrote {args.output}", file=sys.stderr)
    if fmt.sidecar is not None:
        write_bytes(args.output + ".json", fmt.sidecar(tok))
        print(f"bpeviz: wrote {args.output}.json (split pattern and special tokens)", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    if args.output:
        check_output(args.output, force=args.force, inputs=[args.file])
    tok = formats.import_file(args.file, n_merges=args.merges)
    show = args.show if args.show is not None else (len(tok.merges) if args.merges is not None else 20)
    lines = merge_lines(tok.merges[:show], args.bytes)
    if lines:
        print("\n".join(lines))
    if tok.algorithm != "bpe":
        print(f"bpeviz: a {tok.algorithm} tokenizer with {tok.vocab_size:,} tokens", file=sys.stderr)
    if tok.not_merges:
        print(f"bpeviz: {tok.not_merges:,} of the file's tokens no merge of two others makes; they are left out "
              "(the file's own encoder gives each only to text that is that token whole)", file=sys.stderr)
    if show < len(tok.merges):
        print(f"bpeviz: {len(tok.merges) - show:,} more merges not shown (--show N)", file=sys.stderr)
    if args.output:
        write_atomic(args.output, tok.save)
        print(f"bpeviz: saved {args.output}", file=sys.stderr)
    return 0


def cmd_handout(args: argparse.Namespace) -> int:
    """A lesson file the app saved, as one printable HTML page: its merge table, corpus and sentence's trace."""
    from bpeviz.lessons import handout, lesson_file

    if not Path(args.lesson).is_file():
        raise UsageError(f"no such file: {args.lesson}")
    if args.output:
        check_output(args.output, force=args.force, inputs=[args.lesson])
    lesson = lesson_file.read(Path(args.lesson))
    tok, docs = lesson_file.train(lesson)
    source = lesson_file.source_of(lesson)
    name = corpora.CORPORA[source.key].label if isinstance(source, sources.Shipped) else "pasted text"
    try:
        step = int(lesson.get("step", 0))
    except (TypeError, ValueError):
        step = 0  # as the app reads a bad step: from the start
    page = handout.page(tok, docs, step=step, sentence=str(lesson.get("sentence", "")), corpus_name=name)
    if not args.output:
        sys.stdout.write(page)
        return 0
    write_bytes(args.output, page.encode("utf-8"))
    print(f"bpeviz: wrote {args.output} (print it from a browser)", file=sys.stderr)
    return 0


def cmd_corpus(args: argparse.Namespace) -> int:
    """A corpus bpeviz ships, on stdout or into a file (with no name: the list of them)."""
    if args.name is None:
        for key, info in corpora.CORPORA.items():
            print(f"{key:<16} {info.label}")
        for name in ("correct", "ties", "wrong"):
            print(f"{'toy-table-' + name:<16} a merge table worked by hand on toy_pt ({name}), for bpeviz check")
        return 0
    if args.name.startswith("toy-table-"):
        path = corpora.CORPORA_DIR / "tables" / f"toy_{args.name.removeprefix('toy-table-')}.txt"
        if not path.is_file():
            raise UsageError(f"no table {args.name!r}: toy-table-correct, toy-table-ties or toy-table-wrong")
        text = path.read_text(encoding="utf-8")
    else:
        text = corpora.corpus_text(args.name)
    if not args.output:
        sys.stdout.write(text)
        return 0
    check_output(args.output, force=args.force)
    write_bytes(args.output, text.encode("utf-8"))
    print(f"bpeviz: wrote {args.output} ({len(text):,} characters)", file=sys.stderr)
    return 0
