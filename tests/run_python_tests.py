#!/usr/bin/env python3
"""run_python_tests.py - runs the Python package's tests (python/tests, pytest) for ctest
(tests/python.cmake): test_python runs every test but the GPU file on the build's libsamrt.so,
test_python_cuda runs python/tests/test_gpu.py alone.

It never passes silently: when the tests cannot run here (no numpy or pytest for this
interpreter, a build that cannot be loaded by it) it prints the reason and exits 77, which
ctest reports as skipped; when pytest skips every GPU test (no GPU) it prints pytest's reasons
and exits 77 too; a run that collects no test fails.

    run_python_tests.py [--gpu] [--skip REASON] [pytest args...]
The environment carries SAMRT_LIBRARY (the libsamrt.so under test), SAMRT_TEST_CKPT_WRITER,
SAMRT_TEST_DATA and SAMRT_CLI.
"""
import os
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(HERE, "..", "python")


def skip(name, why):
    print(f"{name}: SKIPPED: {why}")
    return SKIP


class Outcomes:
    """A pytest plugin that counts outcomes and keeps the skip reasons."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.reasons = []

    def pytest_runtest_logreport(self, report):
        if report.skipped:
            if report.when in ("setup", "call"):
                self.skipped += 1
                self.reasons.append(str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else "")
        elif report.failed:
            self.failed += 1
        elif report.when == "call":
            self.passed += 1


def main(argv):
    gpu = "--gpu" in argv
    argv = [a for a in argv if a != "--gpu"]
    name = "test_python_cuda" if gpu else "test_python"
    if argv[:1] == ["--skip"]:
        return skip(name, argv[1])
    try:
        import numpy  # noqa: F401
        import pytest
    except ImportError as exc:
        return skip(name, f"{exc.name} is not installed for {sys.executable} (the package needs numpy; its tests "
                          "pytest: `apt-get install python3-numpy python3-pytest` or `pip install numpy pytest`)")
    sys.path.insert(0, os.path.abspath(PYTHON_DIR))
    tests = os.path.join(PYTHON_DIR, "tests")
    args = ["-p", "no:cacheprovider", "-rs", "-q"]
    args += [os.path.join(tests, "test_gpu.py")] if gpu else [tests, "--ignore", os.path.join(tests, "test_gpu.py")]
    outcomes = Outcomes()
    rc = pytest.main(args + argv, plugins=[outcomes])
    if rc == pytest.ExitCode.NO_TESTS_COLLECTED:
        print(f"{name}: no test was collected")
        return 1
    if rc != 0:
        return int(rc)
    if gpu and outcomes.passed == 0 and outcomes.skipped > 0:
        return skip(name, "; ".join(sorted(set(outcomes.reasons))) or "every GPU test was skipped")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.dont_write_bytecode = True
    sys.exit(main(sys.argv[1:]))
