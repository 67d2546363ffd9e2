# Stand-in for tests (see ../README.md): not ALFWorld.
import os

__version__ = os.environ.get("ALFWORLD_STANDIN_VERSION", "0.3.3")

# The data folder, as alfworld.info sets it.
ALFWORLD_DATA = os.environ.setdefault("ALFWORLD_DATA", os.path.expanduser("~/.cache/alfworld"))
