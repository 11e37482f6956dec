"""The test suite (a regular package, so that `tests` is ours and not a same-named package a dependency installs)."""
