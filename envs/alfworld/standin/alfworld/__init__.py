# Stand-in for tests (see ../README.md): not ALFWorld.
from alfworld.info import *  # noqa: F401,F403 - as alfworld/__init__.py does
