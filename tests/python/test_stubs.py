"""The type stubs (.pyi) of the installed package describe what is there:
every public name, and each function's and method's parameters."""
import ast
import inspect
import os
import types

import pytest

import gpukit as gk

PKG = os.path.dirname(gk.__file__)
MODULES = ["errors", "dtypes", "context", "_array", "_jit", "_interop", "stream", "pool", "sched", "profiler", "llm",
           "asr", "tts", "ops"]


def stub_tree(name):
    path = os.path.join(PKG, (name if name != "__init__" else "__init__") + ".pyi")
    assert os.path.exists(path), "no stub " + path
    with open(path) as f:
        return ast.parse(f.read())


def stub_names(tree):
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names[t.id] = node
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.asname and a.asname == a.name:  # an explicit re-export
                    names[a.asname] = node
    return names


def params(fn_node):
    a = fn_node.args
    out = [(p.arg, "pos") for p in a.posonlyargs + a.args]
    if a.vararg:
        out.append((a.vararg.arg, "var"))
    out += [(p.arg, "kw") for p in a.kwonlyargs]
    if a.kwarg:
        out.append((a.kwarg.arg, "varkw"))
    return [p for p in out if p[0] not in ("self", "cls")]


def runtime_params(f):
    kinds = {inspect.Parameter.POSITIONAL_ONLY: "pos", inspect.Parameter.POSITIONAL_OR_KEYWORD: "pos",
             inspect.Parameter.VAR_POSITIONAL: "var", inspect.Parameter.KEYWORD_ONLY: "kw",
             inspect.Parameter.VAR_KEYWORD: "varkw"}
    return [(p.name, kinds[p.kind]) for p in inspect.signature(f).parameters.values() if p.name not in ("self", "cls")]


@pytest.mark.parametrize("name", MODULES)
def test_module_stub(name):
    mod = __import__("gpukit." + name, fromlist=["x"])
    names = stub_names(stub_tree(name))
    for pub in mod.__all__:
        assert pub in names, "%s.pyi lacks %s" % (name, pub)
        obj = getattr(mod, pub)
        node = names[pub]
        if isinstance(obj, types.FunctionType) and isinstance(node, ast.FunctionDef):
            assert params(node) == runtime_params(obj), "%s.%s: stub %s, code %s" % (
                name, pub, params(node), runtime_params(obj))
        if isinstance(obj, type) and isinstance(node, ast.ClassDef):
            methods = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
            for m, f in vars(obj).items():
                if m.startswith("_") and m not in ("__init__", "__call__", "__enter__", "__getitem__"):
                    continue
                if isinstance(f, types.FunctionType):
                    assert m in methods or m == "__init__", "%s.pyi: %s.%s missing" % (name, pub, m)
                    if m in methods and not (m == "__init__" and pub in ("GPUArray",)):
                        assert params(methods[m]) == runtime_params(f), "%s.%s.%s: stub %s, code %s" % (
                            name, pub, m, params(methods[m]), runtime_params(f))


def test_package_stub():
    names = stub_names(stub_tree("__init__"))
    public = [n for n in dir(gk) if not n.startswith("_") and not isinstance(getattr(gk, n), types.ModuleType)]
    public += ["asr", "llm", "tts", "ops", "errors", "dtypes"]
    missing = [n for n in public if n not in names]
    assert not missing, "__init__.pyi lacks %s" % missing
    extra = [n for n in names if not hasattr(gk, n)]
    assert not extra, "__init__.pyi names what gpukit lacks: %s" % extra
    assert os.path.exists(os.path.join(PKG, "py.typed"))
