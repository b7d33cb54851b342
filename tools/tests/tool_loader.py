"""Import a tool of tools/ (a script without .py) as a module, for the tests."""
import importlib.machinery
import importlib.util
import os

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def load_tool(name):
    loader = importlib.machinery.SourceFileLoader(name + "_tool", os.path.join(TOOLS, "trigos", name.replace("-", "_") + ".py"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
