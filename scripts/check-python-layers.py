#!/usr/bin/env python3
"""The Python package's layers, checked on python/lowp: each module imports only modules of its
own layer or below (imports inside functions count too), and no import cycle exists.

  0  _lowp (the extension)
  1  _arrays, _shapes, _types (records: data only), recipes
  2  _core (one function per op, on any framework's arrays)
  3  _torch_ops (the torch operators over _core)
  4  _api (the public functions, over _core and the operators)
  5  torch/_roles, torch/_function, torch/_amax_reduce
  6  torch/linear, torch/_fsdp
  7  torch/convert, torch/distributed
  8  torch (the package), lowp (the package)

usage: scripts/check-python-layers.py [PACKAGE_DIR]   (default python/lowp); exit 1 on a breach.
A module missing from LAYERS is a breach too: place it when you add it.
"""
import ast
import pathlib
import sys

LAYERS = {
    "_lowp": 0,
    "_arrays": 1, "_shapes": 1, "_types": 1, "recipes": 1,
    "_core": 2,
    "_torch_ops": 3,
    "_api": 4,
    "torch._roles": 5, "torch._function": 5, "torch._amax_reduce": 5,
    "torch.linear": 6, "torch._fsdp": 6,
    "torch.convert": 7, "torch.distributed": 7,
    "torch": 8, "": 8,
}


def module_name(root, path):
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(root, path):
    """The lowp modules a file imports (relative or absolute lowp.*), nested imports included."""
    name = module_name(root, path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and (node.module == "lowp" or node.module.startswith("lowp.")):
                target = node.module[5:]
            else:
                continue
            for alias in node.names:  # `from . import _core` imports the module _core
                sub = f"{target}.{alias.name}" if target else alias.name
                found.add(sub if sub in LAYERS else target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "lowp" or alias.name.startswith("lowp."):
                    found.add(alias.name[5:])
    found.discard(name)
    return found


def cycles(graph):
    """Every module on an import cycle (depth-first search with colours)."""
    colour, on_cycle, stack = {}, set(), []

    def visit(node):
        colour[node] = 1
        stack.append(node)
        for nxt in graph.get(node, ()):
            if colour.get(nxt) == 1:
                on_cycle.update(stack[stack.index(nxt):])
            elif nxt not in colour:
                visit(nxt)
        stack.pop()
        colour[node] = 2

    for node in graph:
        if node not in colour:
            visit(node)
    return on_cycle


def main():
    here = pathlib.Path(__file__).resolve().parent
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here.parent / "python" / "lowp"
    graph, bad = {}, 0
    for path in sorted(root.rglob("*.py")):
        name = module_name(root, path)
        graph[name] = imports(root, path)
        if name not in LAYERS:
            print(f"check-python-layers: {path}: module '{name or 'lowp'}' has no layer in LAYERS")
            bad += 1
            continue
        for target in sorted(graph[name]):
            if target not in LAYERS:
                continue  # a submodule of a package named in LAYERS, reported where it is defined
            if LAYERS[target] > LAYERS[name]:
                print(f"check-python-layers: {path}: '{name or 'lowp'}' (layer {LAYERS[name]}) imports "
                      f"'{target or 'lowp'}' (layer {LAYERS[target]}), a layer above it")
                bad += 1
    # The package modules import their submodules by design; cycles are looked for below them.
    inner = {n: {t for t in ts if LAYERS.get(t, 0) < 8} for n, ts in graph.items() if LAYERS.get(n, 0) < 8}
    for name in sorted(cycles(inner)):
        print(f"check-python-layers: '{name}' is on an import cycle")
        bad += 1
    print(f"check-python-layers: {len(graph)} modules, {sum(map(len, graph.values()))} imports, {bad} breaking the rules")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
