"""Import one of tools/' scripts (files without .py) as a module, for the tests."""
import importlib.machinery
import importlib.util
import os

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_tool(name):
    """tools/NAME as a module named tool_NAME."""
    loader = importlib.machinery.SourceFileLoader(f"tool_{name}", os.path.join(TOOLS, name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
