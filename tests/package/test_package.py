"""The package as a whole: stage folders in order, pure and light to import, no import cycles, short files and
functions, registries as data, an explicit public API."""

import ast
import subprocess
import sys

from conftest import ROOT

LIBRARY = ROOT / "bpeviz"
# The stage folders, lowest first: a module may import its own folder and the folders before it, never one after.
# The package's top level (the public API) comes after them all, then the command line and the app.
STAGES = ["core", "data", "normalizers",
          "pre_tokenizers", "compiled", "models", "engine", "counting", "trainers", "formats", "pretrained",
          "lessons", "", "cli", "app", "widgets"]
PUBLIC_MODULES = {"__init__", "__main__", "pretokenize", "mix", "inspect", "optimal", "sampling", "corpora"}
MAX_FILE_LINES = 360  # the limit is 400: met with room to spare
MAX_FUNCTION_LINES = 40  # the limit is 45; the hot loops (below) are written in one piece on purpose
HOT_LOOPS = {("merge_loop.py", "_merge")}  # and every numba kernel (@njit): a call inside one costs


def sources() -> list:
    return sorted(path for path in LIBRARY.rglob("*.py") if "data" not in path.relative_to(LIBRARY).parts[:1])


def stage_of(module: str) -> str:
    """bpeviz.models.bpe -> "models"; bpeviz.mix -> "" (the top level)."""
    if module == "bpeviz.__main__":
        return "cli"  # `python -m bpeviz` is the command
    parts = module.split(".")[1:]
    return parts[0] if parts and (LIBRARY / parts[0]).is_dir() else ""


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(path) -> set[str]:
    """bpeviz modules that `path` imports anywhere, inside functions too (a lazy import still ties the two modules)."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])]) if node.level else (node.module or "")
            if not target.startswith("bpeviz"):
                continue
            for alias in node.names:  # a submodule by name, else a name from the module itself
                found.add(f"{target}.{alias.name}" if _exists(f"{target}.{alias.name}") else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("bpeviz"))
    return {m for m in found if _exists(m)} - {module_name(path)}


def _exists(module: str) -> bool:
    relative = module.split(".")[1:]
    return (ROOT / "bpeviz").joinpath(*relative).with_suffix(".py").is_file() or (
        (ROOT / "bpeviz").joinpath(*relative, "__init__.py").is_file())


def test_the_engine_is_pure_and_light():
    modules = "bpeviz, bpeviz.cli, bpeviz.formats, bpeviz.lessons.metrics, bpeviz.lessons.steps, bpeviz.lessons.sources"
    code = f"import sys, {modules}; print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    for heavy in ("streamlit", "tiktoken", "pandas", "numba", "numpy", "highspy"):
        assert f"'{heavy}'" not in loaded, heavy
    for path in sources():
        if "app" in path.relative_to(LIBRARY).parts[:1] or path == LIBRARY / "cli" / "app.py":
            continue  # the app, and `bpeviz app`, which hands the app's script to Streamlit
        text = path.read_text()
        if "widgets" in path.relative_to(LIBRARY).parts[:1]:  # the notebook shares the app's strings and player files
            text = text.replace("bpeviz.app import texts", "").replace('files("bpeviz.app")', "")
        assert "import streamlit" not in text and "bpeviz.app" not in text, path
    widgets = subprocess.run([sys.executable, "-c", "import sys, bpeviz.widgets; print(sorted(sys.modules))"],
                             capture_output=True, text=True, check=True).stdout
    assert "'streamlit'" not in widgets


def test_the_app_s_first_page_loads_no_chart_or_table_library():
    """altair (with jsonschema) takes 1.2 s to import on the 2-core VM, pandas 0.3 s; the app imports them where a chart
    or a table is drawn, so the first visit, to Train, does not pay for them (issue 45, item 9: bench/first_visits.py)."""
    code = "import sys, bpeviz.app.main, bpeviz.app.player, bpeviz.app.votes; print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert "'bpeviz.app.views'" in loaded and "'altair'" not in loaded and "'pandas'" not in loaded


def test_every_folder_says_what_its_stage_does_and_stages_import_only_downwards():
    order = {stage: k for k, stage in enumerate(STAGES)}
    folders = {p.name for p in LIBRARY.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert folders == set(STAGES) - {""}
    for folder in folders:
        doc = ast.get_docstring(ast.parse((LIBRARY / folder / "__init__.py").read_text())) or ""
        assert doc and len(doc.splitlines()[0]) > 30, folder
    upward = []
    for path in sources():
        here = stage_of(module_name(path))
        for imported in module_imports(path):
            there = stage_of(imported)
            if order[there] > order[here]:
                upward.append(f"{module_name(path)} -> {imported}")
    assert upward == []
    top = {path.stem for path in LIBRARY.glob("*.py")}
    assert top == PUBLIC_MODULES, "the top level holds the public API only"


def test_no_import_cycle_in_the_library():
    graph = {module_name(path): module_imports(path) for path in sources()}
    visiting, done = set(), set()

    def visit(module, chain):
        assert module not in visiting, " -> ".join([*chain, module])
        if module in done or module not in graph:
            return
        visiting.add(module)
        for dependency in graph[module]:
            if dependency != "bpeviz":  # a submodule's package runs first anyway; its __init__ is checked on its own
                visit(dependency, [*chain, module])
        visiting.discard(module)
        done.add(module)

    for module in graph:
        visit(module, [])
    assert "bpeviz.formats" in graph["bpeviz.lessons.sources"]  # the graph is really read
    assert "bpeviz.trainers.unigram" in graph["bpeviz.trainers.training"]  # an import inside a function counts
    assert "bpeviz.compiled.bpe" in graph["bpeviz.engine.compiled"]


def test_compiled_kernels_import_only_the_core_and_numpy():
    for path in (LIBRARY / "compiled").glob("*.py"):
        inside = {m for m in module_imports(path) if not m.startswith("bpeviz.compiled")}
        assert inside <= {"bpeviz.core.ids", "bpeviz.core.rules", "bpeviz.core.records", "bpeviz.core.numeric"}, path.name
        third_party = {n.names[0].name.split(".")[0] for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Import)}
        third_party |= {(n.module or "").split(".")[0] for n in ast.walk(ast.parse(path.read_text()))
                        if isinstance(n, ast.ImportFrom) and not n.level}
        assert third_party - {"bpeviz"} <= {"numpy", "numba", "regex", "__future__", "collections", "typing", "itertools",
                                             "array", "threading", "functools", "math"}, path.name


def _is_kernel(node) -> bool:
    return any(ast.unparse(d).split("(")[0] in ("njit", "JIT") for d in node.decorator_list)


def test_files_and_functions_are_short_by_design():
    long_files = [f"{module_name(path)} ({n} lines)" for path in sources()
                  if (n := len(path.read_text().splitlines())) > MAX_FILE_LINES]
    long_functions = []
    for path in sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_kernel(node):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES and (path.name, node.name) not in HOT_LOOPS:
                    long_functions.append(f"{module_name(path)}:{node.name} ({length} lines)")
    assert long_files == [] and long_functions == []


def test_no_line_is_over_130_characters_pragmas_included():
    """ruff's line-length check lets a line that ends in a pragma (# type: ignore, # noqa) run on; this does not."""
    paths = [*LIBRARY.rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").glob("*.py"), ROOT / "app.py"]
    long_lines = [f"{path.relative_to(ROOT)}:{n}" for path in paths
                  for n, line in enumerate(path.read_text().splitlines(), start=1) if len(line) > 130]
    assert long_lines == []


def test_the_public_api_is_explicit_and_the_interface_importable():
    import importlib

    import bpeviz

    assert sorted(bpeviz.__all__) == sorted(set(bpeviz.__all__)) and all(hasattr(bpeviz, name) for name in bpeviz.__all__)
    interface = {
        "bpeviz": ["train", "train_counts", "load", "save", "reference", "engines", "split_text", "BpevizError",
                   "PRETOKENIZERS"],
        "bpeviz.formats": ["export", "import_data", "import_file", "to_dict", "from_dict", "tiktoken_encoding"],
        "bpeviz.pretokenize": ["PRETOKENIZERS"],
        "bpeviz.mix": ["train_mix", "gini", "premiums", "training_documents", "heldout_text"],
        "bpeviz.inspect": ["infer_mixture", "unreachable", "token_usage", "as_tokenizer", "not_merges"],
        "bpeviz.optimal": ["best_merges", "greedy"],
        "bpeviz.corpora": ["documents", "corpus_text"],
        "bpeviz.sampling": ["dropout_encode"],
        "bpeviz.engine": ["warm", "is_warm", "engines", "resolve"],
    }
    for module, names in interface.items():
        loaded = importlib.import_module(module)
        assert all(hasattr(loaded, name) for name in names), module
        assert set(names) <= set(getattr(loaded, "__all__", names)), module


def test_only_pages_live_in_the_pages_folder():
    for path in (LIBRARY / "app" / "pages").glob("*.py"):
        assert "st.title(" in path.read_text(), f"{path.name} is not a page"


def test_cli_choices_come_from_the_registries():
    from bpeviz import cli, formats
    from bpeviz.pretrained import encodings as reference_encodings

    actions = [(name, a) for sub in cli.parser()._subparsers._group_actions for name, p in sub.choices.items()
               for a in p._actions]
    assert all(tuple(a.choices) == tuple(reference_encodings.ENCODINGS) for _, a in actions if a.dest == "encoding")
    formats_offered = {name: tuple(a.choices) for name, a in actions if a.dest == "format"}
    assert formats_offered and all(choices == tuple(formats.FORMATS) + (("model",) if name == "extend" else ())
                                   for name, choices in formats_offered.items())  # extend: a SentencePiece graft's .model


def test_one_registry_names_every_algorithm_and_one_every_source():
    # issue 25.3: training, the CLI, exports and the pages read these; adding one touches an entry and a module
    import typing

    from bpeviz.app import sidebar, state
    from bpeviz.core import records
    from bpeviz.lessons import sources, steps
    from bpeviz.trainers import training
    from bpeviz.trainers.settings import resolve_settings

    specs = records.ALGORITHM_SPECS
    assert set(training.TRAINERS) == {name for name, a in specs.items() if a.family != "bpe"}
    assert all((LIBRARY / "trainers" / f"{a.module}.py").exists() for a in specs.values())
    assert set(steps.TABLE_HISTORIES) == {name for name, a in specs.items() if a.family == "pieces"}
    assert tuple(specs) == records.ALGORITHMS + records.SUPERWORD_ALGORITHMS
    for name, spec in specs.items():
        settings = resolve_settings(300, algorithm=name)
        assert settings.algorithm == name and (settings.level == "chars" or spec.family != "pieces")
    kinds = [cls.kind for cls in typing.get_args(sources.CorpusSource)]
    assert sorted(kinds) == sorted(state.SOURCES) == sorted(sidebar.SOURCE_READERS)
