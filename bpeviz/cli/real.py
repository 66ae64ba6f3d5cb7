"""The commands that read a real tokenizer: extend (graft), infer-mix (its training mix), audit (its weak tokens)."""

from __future__ import annotations

import argparse
import json
import sys

from bpeviz import formats
from bpeviz.lessons import render

from .commands import UsageError, _show_progress
from .files import check_output, read_text, write_bytes
from .output import Bar


def cmd_extend(args: argparse.Namespace) -> int:
    """Graft: the base's merges, then --merges new ones learned on the files; written as --format."""
    from bpeviz.lessons import graft
    from bpeviz.pretrained.encodings import ENCODINGS

    base = args.base if args.base in ENCODINGS else formats.import_file(args.base)
    model = graft.sentencepiece_base(base) is not None  # a SentencePiece graft is a .model
    fmt_name = args.format or ("model" if model else "json")
    if model != (fmt_name == "model"):
        raise UsageError("a SentencePiece base is grafted as a SentencePiece model: write it with --format model"
                         if model else "--format model is for a SentencePiece base (mistral-v3, a .model file)")
    fmt = formats.FORMATS.get(fmt_name)
    if args.output:
        for path in [args.output] + ([args.output + ".json"] if fmt is not None and fmt.sidecar is not None else []):
            check_output(path, force=args.force, inputs=[*args.files, args.base])
    text = "\n".join(read_text(f) for f in args.files)
    bar = Bar("merging", "merges", 1, _show_progress(args))
    try:
        tok = graft.extend(base, text, args.merges, engine=args.engine, progress=bar)
    finally:
        seconds = bar.close()
    new = len(tok.merges) - tok.base_merges
    print(f"bpeviz: {new:,} new merges after the base's {tok.base_merges:,} in {seconds:.1f} s; new ids from "
          f"{tok.base_size:,}" + ("" if new == args.merges else f" (the text ran out of pairs at {new:,})"), file=sys.stderr)
    data = fmt.write(tok) if fmt is not None else formats.write_model(tok)  # type: ignore[arg-type]
    if not args.output:
        sys.stdout.buffer.write(data)
        return 0
    write_bytes(args.output, data)
    if fmt is not None and fmt.sidecar is not None:
        write_bytes(args.output + ".json", fmt.sidecar(tok))
    print(f"bpeviz: wrote {args.output}", file=sys.stderr)
    return 0


DEFAULT_MIX_LANGUAGES = ("en", "zh", "es", "fr", "de", "ja", "ru", "pt", "ar", "hi", "it", "ko", "nl", "pl", "tr", "vi",
                         "id", "fa", "sv", "uk")


def cmd_infer_mix(args: argparse.Namespace) -> int:
    """The training mix a tokenizer's first merges say, over word-list samples of languages and Python source."""
    from bpeviz.lessons import inspect, samples
    from bpeviz.pretrained.encodings import ENCODINGS, reference

    base = reference(args.tokenizer) if args.tokenizer in ENCODINGS else formats.import_file(args.tokenizer)
    tok = inspect.as_tokenizer(base, args.merges)
    langs = args.languages or [lang for lang in DEFAULT_MIX_LANGUAGES if lang in samples.languages()]
    categories: dict[str, object] = {lang: samples.word_list(lang, tok.split_text) for lang in langs}
    if not args.no_code:
        categories["code"] = samples.code(tok.split_text)
    found = inspect.infer_mixture(tok, categories, args.merges)
    if args.json:
        print(json.dumps({"mix": dict(found), "status": found.status, "merges_used": found.merges_used}, indent=1))
        return 0
    for name, share in sorted(found.items(), key=lambda item: -item[1]):
        print(f"{name:<6} {share * 100:6.1f} %")
    print(f"bpeviz: {found.merges_used:,} of the first {args.merges:,} merges occur in the samples; {found.status}",
          file=sys.stderr)
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    """The audit's counts, and the first tokens of each kind as the tokenizer spells them."""
    from dataclasses import asdict

    from bpeviz.lessons.audit import audit
    from bpeviz.pretrained.encodings import ENCODINGS, reference

    base = reference(args.tokenizer) if args.tokenizer in ENCODINGS else formats.import_file(args.tokenizer)
    found = audit(base, {f: read_text(f) for f in args.sample} or None)
    if args.json:
        print(json.dumps(asdict(found), indent=1))
        return 0
    spell = getattr(base, "decode_single_token_bytes", None) or base.token_bytes
    for kind, count in found.summary().items():
        listed = getattr(found, kind, None)
        shown = "" if not isinstance(listed, list) else "  " + "  ".join(
            render.show(spell(i if isinstance(i, int) else i[0])) for i in listed[:args.show])
        print(f"{kind:<14} {count:>8,}{shown}")
    return 0
