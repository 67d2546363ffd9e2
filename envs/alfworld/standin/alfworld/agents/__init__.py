# Stand-in for tests (see ../../README.md): not ALFWorld.
