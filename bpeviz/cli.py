"""The `bpeviz` command: train, encode, export and import from a terminal.

Bad input prints one line starting with "bpeviz: error:" and exits 2; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import pretokenize, render
from .tokenizer import LEVELS, Merge, Tokenizer, load, train
from .trainer import TIE_BREAKS


class UsageError(Exception):
    pass


def _fmt_token(token: str | bytes) -> str:
    return repr(token) if isinstance(token, bytes) else render.show(token)


def merge_line(m: Merge) -> str:
    """Example: "merge   1: b'e' + b' '   -> b'e '     (occurred 4433 times)" """
    pair = f"{_fmt_token(m.left)} + {_fmt_token(m.right)}"
    return f"merge {m.rank:3d}: {pair:<14}-> {_fmt_token(m.token):<10}(occurred {m.count} times)"


def merge_json(m: Merge) -> str:
    def enc(token: str | bytes) -> str:
        return token.decode("utf-8", errors="backslashreplace") if isinstance(token, bytes) else token

    return json.dumps(
        {"rank": m.rank, "left": enc(m.left), "right": enc(m.right), "token": enc(m.token), "id": m.id, "count": m.count},
        ensure_ascii=False,
    )


def _read_corpus(path: str, level: str) -> str | bytes | list[str]:
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


def cmd_train(args: argparse.Namespace) -> int:
    corpus = _read_corpus(args.file, args.level)
    if args.lines and isinstance(corpus, str):
        corpus = [line for line in corpus.splitlines() if line]
    show_progress = sys.stderr.isatty() or args.progress

    def progress(done: int, total: int) -> None:
        print(f"\rtraining: {done}/{total} merges", end="", file=sys.stderr, flush=True)

    tok = train(corpus, vocab_size=args.vocab_size, level=args.level, pretokenizer=args.pretokenizer,
                tie_break=args.tie_break, progress=progress if show_progress else None)
    if show_progress:
        print(file=sys.stderr)
    for m in tok.merges:
        print(merge_json(m) if args.json else merge_line(m))
    wanted = args.vocab_size - tok.n_base
    if len(tok.merges) < wanted:
        print(f"bpeviz: stopped after {len(tok.merges)} merges: no pair left to merge", file=sys.stderr)
    if args.output:
        tok.save(args.output)
        print(f"bpeviz: saved {args.output}", file=sys.stderr)
    return 0


def _encoder(args: argparse.Namespace) -> Tokenizer | object:
    if args.encoding:
        from .reference_encodings import reference

        return reference(args.encoding)
    if not args.tokenizer:
        raise UsageError("give --tokenizer tok.json (from bpeviz train -o) or --encoding gpt2|cl100k_base|o200k_base")
    return load(args.tokenizer)


def cmd_encode(args: argparse.Namespace) -> int:
    enc = _encoder(args)
    text = args.text
    if isinstance(enc, Tokenizer):
        if args.trace:
            for step in enc.trace(text):
                label = "start" if step.rank is None else f"merge {step.rank}"
                print(f"{label:>10}: {' '.join(render.show(p) for p in step.pieces)}  ({len(step.pieces)} pieces)")
            return 0
        ids = enc.encode_ordinary(text)
        pieces = [render.show(enc.token_of(i)) for i in ids]
    else:
        if args.trace:
            raise UsageError("--trace needs a bpeviz tokenizer (--tokenizer), not a reference encoding")
        ids = enc.encode_ordinary(text)  # type: ignore[attr-defined]
        pieces = [render.show(enc.decode_single_token_bytes(i)) for i in ids]  # type: ignore[attr-defined]
    print(" ".join(pieces))
    print(" ".join(map(str, ids)))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from . import interop

    tok = load(args.tokenizer)
    data = interop.export(tok, args.format)
    if args.output:
        Path(args.output).write_bytes(data)
        print(f"bpeviz: wrote {args.output}", file=sys.stderr)
        if args.format == "tiktoken":
            Path(args.output + ".json").write_bytes(interop.tiktoken_sidecar(tok))
            print(f"bpeviz: wrote {args.output}.json (split pattern and special tokens)", file=sys.stderr)
    else:
        sys.stdout.buffer.write(data)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from . import interop

    tok = interop.import_file(args.file, n_merges=args.merges)
    for m in tok.merges[: args.show]:
        print(merge_line(m))
    if args.output:
        tok.save(args.output)
        print(f"bpeviz: saved {args.output}", file=sys.stderr)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bpeviz", description="Train, trace and compare BPE tokenizers.")
    sub = p.add_subparsers(dest="command", required=True)

    t = sub.add_parser("train", help="learn merges from a text file and print them")
    t.add_argument("file")
    t.add_argument("--vocab-size", type=int, required=True, help="base symbols + merges")
    t.add_argument("--level", choices=LEVELS, default="bytes")
    t.add_argument("--pretokenizer", default="gpt2", help=f"{', '.join(pretokenize.PRETOKENIZERS)} or a regex")
    t.add_argument("--tie-break", choices=TIE_BREAKS, default="first")
    t.add_argument("--lines", action="store_true", help="one document per line")
    t.add_argument("--json", action="store_true", help="one JSON object per merge")
    t.add_argument("--progress", action="store_true", help="show progress even when stderr is not a terminal")
    t.add_argument("-o", "--output", help="save the tokenizer as JSON")
    t.set_defaults(run=cmd_train)

    e = sub.add_parser("encode", help="encode text with a saved tokenizer or a real encoding")
    e.add_argument("text")
    e.add_argument("--tokenizer", help="a tokenizer JSON saved by bpeviz train -o")
    e.add_argument("--encoding", choices=("gpt2", "cl100k_base", "o200k_base"))
    e.add_argument("--trace", action="store_true", help="show the merges that fire, one per line")
    e.set_defaults(run=cmd_encode)

    x = sub.add_parser("export", help="write a saved tokenizer in another format")
    x.add_argument("tokenizer")
    x.add_argument("--format", choices=("tiktoken", "hf", "csv", "vocab", "json"), required=True)
    x.add_argument("-o", "--output")
    x.set_defaults(run=cmd_export)

    i = sub.add_parser("import", help="read a tokenizer.json or .tiktoken file and list its merges")
    i.add_argument("file")
    i.add_argument("--merges", type=int, default=None, help="keep only the first N merges")
    i.add_argument("--show", type=int, default=20, help="how many merges to print")
    i.add_argument("-o", "--output", help="save as a bpeviz tokenizer JSON")
    i.set_defaults(run=cmd_import)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
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
