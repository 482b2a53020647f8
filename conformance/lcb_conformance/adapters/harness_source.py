"""A harness's installed code (a function, a constant, a module) compiled from its files without
importing its package (torch, ray, vllm): for adapters; peers/ uses it.

A harness's LiveCodeBench functions often sit in modules whose imports pull in torch, ray,
vllm or a whole framework (lighteval's lcb/main.py imports its metric registry, which needs
torch; OpenCompass's packages import mmengine and every dataset). Rather than re-typing its
prompt text or extraction rule, an adapter reads the harness's *installed* source file (found
through the distribution's file list, without importing the package) and compiles the one
function, class attribute or module-level string it needs from it, with the file's own name in
tracebacks. The code that runs is the harness's, byte for byte; only its neighbours are
skipped. docs/harness-code.md ("A harness whose package imports torch") shows it on
lighteval and OpenCompass; peers/ uses it.

    installed_file(distribution, relative)      the path of a file of an installed distribution
    load_function(path, qualname, namespace)    one function (dotted through classes/functions)
    constant_value(path, qualname)              a literal assignment: a template, a default
    argument_default(path, qualname, argument)  a parameter's literal default
    load_module_file(name, path)                a whole file, importable by ``name`` (pickle),
                                                after what its package would have imported
    package_imports(path)                       import what the file's package __init__s import
    package_without_init(distribution, package) submodules importable, __init__ never run
    relative_import(path)                       the sibling a ``from .name import`` reads
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

# compile() flag: annotations are kept as strings, never evaluated
FUTURE_ANNOTATIONS = importlib.import_module("__future__").annotations.compiler_flag


class HarnessSourceError(LookupError):
    """The installed harness does not have the file or definition the adapter reads."""


def installed_file(distribution: str, relative: str) -> Path:
    """The path of ``relative`` (e.g. "lighteval/tasks/tasks/lcb/main.py") in an installed
    distribution, without importing it."""
    try:
        located = Path(str(importlib.metadata.distribution(distribution).locate_file(relative)))
    except importlib.metadata.PackageNotFoundError:
        raise HarnessSourceError(f"{distribution} is not installed") from None
    if not located.is_file():
        raise HarnessSourceError(f"{distribution} has no {relative}")
    return located


def load_module_file(name: str, path: Path) -> ModuleType:
    """Execute one source file as a stand-alone module named ``name``, bypassing its
    package's __init__ (its own imports must resolve without its package: no relative ones).

    The module is in ``sys.modules`` under ``name``, as an import would put it: pickle finds
    its functions by name, so a judge that hands them to a ``ProcessPoolExecutor`` (every
    lcb_runner-derived ``codegen_metrics``) works, under the fork start method (Linux's
    default through Python 3.13; a spawned child cannot import ``name``). First, what the
    file's package would have imported is imported (package_imports): a sandbox that
    disables ``os.putenv`` (lcb_runner's reliability_guard) and then imports numpy or pandas
    finds them loaded, as it does when the harness runs as installed."""
    package_imports(path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _package_root(path: Path) -> Path | None:
    """The outermost folder holding ``path`` through a chain of __init__.py files."""
    root = None
    folder = Path(path).parent
    while (folder / "__init__.py").is_file():
        root, folder = folder, folder.parent
    return root


def _module_level_imports(tree: ast.Module):
    """The import statements a module runs when imported (not those inside functions or
    classes, which run later or never)."""
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(ast.iter_child_nodes(node))


def package_imports(path: Path) -> list[str]:
    """Import what the package of ``path`` would have imported had it been imported as
    installed: the outside modules its __init__ files import, and those of the package's
    own modules they import, followed through the package (read, never executed). A module
    that cannot be imported here (torch in an environment without it: why the package is
    bypassed) is left out. Returns the modules imported."""
    root = _package_root(path)
    if root is None:
        return []
    outside: dict[str, None] = {}  # top-level names, in the order met
    chain = [folder for folder in reversed(Path(path).parents) if root in (folder, *folder.parents)]
    pending = [folder / "__init__.py" for folder in chain]
    seen: set[Path] = set()
    while pending:
        file = pending.pop(0)
        if file in seen:
            continue
        seen.add(file)
        for node in _module_level_imports(_tree(file)):
            for target in _import_targets(node, file.parent, root):
                if isinstance(target, Path):
                    pending.append(target)
                else:
                    outside.setdefault(target)
    imported = []
    for name in outside:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - what is not importable here is what the bypass skips
            continue
        imported.append(name)
    return imported


def _import_targets(node: ast.Import | ast.ImportFrom, package: Path, root: Path):
    """Files of the harness's own package an import reads (followed), or the top-level name
    of an outside module."""
    if isinstance(node, ast.Import):
        dotted = [alias.name for alias in node.names]
    elif node.level:
        base = package
        for _ in range(node.level - 1):
            base = base.parent
        prefix = ".".join(base.relative_to(root.parent).parts)
        module = f"{prefix}.{node.module}" if node.module else prefix
        dotted = [module, *(f"{module}.{alias.name}" for alias in node.names)]
    else:
        module = node.module or ""
        dotted = [module, *(f"{module}.{alias.name}" for alias in node.names)]
    for name in dotted:
        parts = name.split(".")
        if parts[0] != root.name:
            yield parts[0]
            continue
        candidate = root.parent.joinpath(*parts)
        for file in (candidate / "__init__.py", candidate.with_suffix(".py")):
            if file.is_file():
                yield file


def package_without_init(distribution: str, package: str) -> ModuleType:
    """Make ``package`` (dotted, e.g. "opencompass.utils") importable as a package whose
    __init__ is not run: its submodules are the installed files, imported as usual, but the
    re-exports its __init__ would import (torch, mmengine, every dataset) are skipped. A
    package already imported is left as it is."""
    if package in sys.modules:
        return sys.modules[package]
    directory = installed_file(distribution, package.replace(".", "/") + "/__init__.py").parent
    spec = importlib.machinery.ModuleSpec(package, None, is_package=True)
    spec.submodule_search_locations = [str(directory)]
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    return module


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text("utf-8"), filename=str(path))


def _find(body: list[ast.stmt], name: str) -> ast.stmt:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return node
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            return node
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id == name
        ):
            return node
    raise LookupError(name)


def _definition(path: Path, qualname: str) -> ast.stmt:
    """The definition named by a dotted path through classes and functions, e.g.
    "LCBCodeGenerationDataset.load.transform"."""
    body: list[ast.stmt] = _tree(path).body
    node: ast.stmt | None = None
    for part in qualname.split("."):
        try:
            node = _find(body, part)
        except LookupError:
            raise HarnessSourceError(f"{path} defines no {qualname}") from None
        body = getattr(node, "body", [])
    return node


def load_function(path: Path, qualname: str, namespace: dict | None = None):
    """Compile the function ``qualname`` from the harness's file and return it. ``namespace``
    holds the globals it uses (its module's imports). Annotations are not evaluated
    (``from __future__ import annotations``), so type-only imports need not be supplied."""
    node = _definition(path, qualname)
    if not isinstance(node, ast.FunctionDef):
        raise HarnessSourceError(f"{path}: {qualname} is not a function")
    module = ast.Module(body=[node], type_ignores=[])
    code = compile(module, str(path), "exec", flags=FUTURE_ANNOTATIONS)
    scope = {"__name__": f"harness:{path.stem}", **(namespace or {})}
    exec(code, scope)
    return scope[node.name]


def argument_default(path: Path, qualname: str, argument: str):
    """The literal default of one parameter of the function ``qualname``."""
    node = _definition(path, qualname)
    if not isinstance(node, ast.FunctionDef):
        raise HarnessSourceError(f"{path}: {qualname} is not a function")
    arguments = node.args
    positional = arguments.posonlyargs + arguments.args
    tail = positional[len(positional) - len(arguments.defaults) :]
    pairs = list(zip(tail, arguments.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d]
    for parameter, default in pairs:
        if parameter.arg == argument:
            return ast.literal_eval(default)
    raise HarnessSourceError(f"{path}: {qualname} has no parameter {argument} with a default")


def relative_import(path: Path) -> str:
    """The module a config file pulls its datasets from with ``from .name import ...``
    (OpenCompass's read_base() indirection), as a sibling file name."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            return node.module + ".py"
    raise HarnessSourceError(f"{path} has no relative import")


def constant_value(path: Path, qualname: str):
    """The value of an assignment (module level or class attribute) whose right-hand side
    is made of literals only, e.g. ``prompt_template = '...' + '...'`` in a config file.
    Evaluated with no names and no builtins available."""
    node = _definition(path, qualname)
    value = getattr(node, "value", None)
    if value is None:
        raise HarnessSourceError(f"{path}: {qualname} is not an assignment with a value")
    for child in ast.walk(value):
        if isinstance(child, ast.Name | ast.Call | ast.Attribute | ast.Subscript):
            raise HarnessSourceError(f"{path}: {qualname} is not made of literals only")
    expression = ast.Expression(body=value)
    return eval(compile(expression, str(path), "eval"), {"__builtins__": {}}, {})
