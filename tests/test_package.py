"""The package as a whole: pure, light to import, no import cycles, short functions, registries as data."""

import ast
import subprocess
import sys

from conftest import ROOT

LIBRARY = ROOT / "bpeviz"
APP_CODE = [*(ROOT / "bpeviz_app").glob("*.py"), *(ROOT / "app_pages").glob("*.py"), ROOT / "app.py"]
MAX_FUNCTION_LINES = 45
HOT_LOOPS = {"merge_loop.py"}  # the trainer's hot loop stays in one piece on purpose


MAX_FILE_LINES = 400


def module_imports(path) -> set[str]:
    """bpeviz modules that `path` imports anywhere, inside functions too (a lazy import still ties the two modules)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found.update([node.module.split(".")[0]] if node.module else [alias.name for alias in node.names])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bpeviz."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("bpeviz."))
    return found - {path.stem}


def test_the_engine_is_pure_and_light():
    modules = "bpeviz, bpeviz.cli, bpeviz.formats, bpeviz.metrics, bpeviz.steps, bpeviz.sources"
    code = f"import sys, {modules}; print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'streamlit'" not in loaded and "'tiktoken'" not in loaded and "'pandas'" not in loaded
    for path in LIBRARY.glob("*.py"):
        text = path.read_text()
        assert "import streamlit" not in text and "bpeviz_app" not in text and "app_pages" not in text, path


def test_no_import_cycle_in_the_library():
    graph = {path.stem: module_imports(path) for path in LIBRARY.glob("*.py") if path.stem != "__init__"}
    visiting, done = set(), set()

    def visit(module, chain):
        assert module not in visiting, " -> ".join([*chain, module])
        if module in done or module not in graph:
            return
        visiting.add(module)
        for dependency in graph[module]:
            visit(dependency, [*chain, module])
        visiting.discard(module)
        done.add(module)

    for module in graph:
        visit(module, [])
    assert "formats" in graph["sources"] and "tokenizer" in graph["training"]  # the graph is really read
    assert "unigram_train" in graph["training"]  # an import inside a function counts


def test_files_are_short():
    long_files = [f"{path.name} ({n} lines)" for path in [*LIBRARY.glob("*.py"), *APP_CODE]
                  if (n := len(path.read_text().splitlines())) > MAX_FILE_LINES]
    assert long_files == []


def test_functions_are_short():
    long_ones = []
    for path in [*LIBRARY.glob("*.py"), *APP_CODE]:
        if path.name in HOT_LOOPS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                long_ones.append(f"{path.name}:{node.name} ({length} lines)")
    assert long_ones == []


def test_only_pages_live_in_app_pages():
    for path in (ROOT / "app_pages").glob("*.py"):
        assert "st.title(" in path.read_text(), f"{path.name} is not a page"


def test_cli_choices_come_from_the_registries():
    from bpeviz import cli, formats, reference_encodings

    actions = {a.dest: a for sub in cli.parser()._subparsers._group_actions for p in sub.choices.values() for a in p._actions}
    assert tuple(actions["encoding"].choices) == tuple(reference_encodings.ENCODINGS)
    assert tuple(actions["format"].choices) == tuple(formats.FORMATS)


def test_one_registry_names_every_algorithm_and_one_every_source():
    # issue 25.3: training, the CLI, exports and the pages read these; adding one touches an entry and a module
    import typing

    from bpeviz import records, sources, steps, training
    from bpeviz_app import sidebar, state

    specs = records.ALGORITHM_SPECS
    assert set(training.TRAINERS) == {name for name, a in specs.items() if a.family != "bpe"}
    assert all((ROOT / "bpeviz" / f"{a.module}.py").exists() for a in specs.values())
    assert set(steps.TABLE_HISTORIES) == {name for name, a in specs.items() if a.family == "pieces"}
    assert tuple(specs) == records.ALGORITHMS + records.SUPERWORD_ALGORITHMS
    for name, spec in specs.items():
        settings = training.resolve_settings(300, algorithm=name)
        assert settings.algorithm == name and (settings.level == "chars" or spec.family != "pieces")
    kinds = [cls.kind for cls in typing.get_args(sources.CorpusSource)]
    assert sorted(kinds) == sorted(state.SOURCES) == sorted(sidebar.SOURCE_READERS)
