# Stand-in for tests (see ../../../README.md): not ALFWorld.
from alfworld.agents.environment.alfred_tw_env import AlfredTWEnv  # noqa: F401
