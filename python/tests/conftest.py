"""Fixtures of the samrt package's tests: the library under test, the repository's test data,
and a seeded SAM 2.1 tiny checkpoint written by the project's own checkpoint writer
(tests/python_ckpt.c over tests/ckpt_writer.h: every key of the model with deterministic
values), so that no test needs torch or a downloaded checkpoint.

The checkpoint comes from, in this order: SAMRT_TEST_CHECKPOINT (a file), the writer named by
SAMRT_TEST_CKPT_WRITER (ctest passes the one it built), or a python_ckpt found in a build
folder of this checkout. Without any, the tests that run a model are reported as skipped with
that reason; the others still run.

Models run at imgsz 64 on small frames, so that the CPU backend (even a Debug build) takes
seconds per call.
"""
import glob
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import samrt

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
IMGSZ = 64
W, H = 96, 72  # frames of the tracking tests


def _writer():
    env = os.environ.get("SAMRT_TEST_CKPT_WRITER")
    if env:
        return env
    found = sorted(glob.glob(os.path.join(REPO, "build", "*", "tests", "python_ckpt")), key=os.path.getmtime)
    return found[-1] if found else None


def seeded_checkpoint(tmp_path_factory, model, name):
    """Path of a checkpoint of `model` named `name` (seeded pattern weights, bf16 storage), written
    by python_ckpt; skips the test when there is no writer."""
    writer = _writer()
    if not writer or not os.path.exists(writer):
        pytest.skip("no test checkpoint: set SAMRT_TEST_CHECKPOINT, or SAMRT_TEST_CKPT_WRITER to the python_ckpt "
                    "program that a build with -DSAMRT_BUILD_TESTS=ON makes (ctest -R test_python passes it)")
    path = str(tmp_path_factory.mktemp("ckpt") / name)
    subprocess.run([writer, path, model, "bf16"], check=True, stdout=subprocess.DEVNULL)
    return path


@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory):
    """Path of a sam2.1_tiny checkpoint (seeded pattern weights, bf16 storage)."""
    env = os.environ.get("SAMRT_TEST_CHECKPOINT")
    if env:
        return env
    return seeded_checkpoint(tmp_path_factory, "sam2.1_tiny", "sam2.1_tiny_seeded.safetensors")


@pytest.fixture(scope="session")
def model(checkpoint):
    """One shared CPU model (host arena, f32) for the tests that do not close it."""
    m = samrt.Model(checkpoint, platform="cpu", imgsz=IMGSZ, max_objects=3, max_frame=(256, 256))
    yield m
    m.close()


@pytest.fixture
def fresh_model(checkpoint):
    """A model of the test's own, for the tests that close it or replace its sessions."""
    m = samrt.Model(checkpoint, platform="cpu", imgsz=IMGSZ, max_objects=2, max_frame=(256, 256))
    yield m
    m.close()


def frame(i, w=W, h=H):
    """Frame i of a small synthetic video: a bright square moving right over a gradient."""
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 2) % 256, (y * 3) % 256, ((x + y) * 5) % 256], -1).astype(np.uint8)
    x0 = 20 + 4 * i
    img[20:44, x0:x0 + 24] = (240, 40, 30)
    return img


@pytest.fixture(scope="session")
def data_dir():
    d = os.environ.get("SAMRT_TEST_DATA", os.path.join(REPO, "tests", "data"))
    if not os.path.isdir(os.path.join(d, "images")):
        pytest.skip(f"the repository's test data is not at {d} (set SAMRT_TEST_DATA)")
    return d


class Ticker:
    """A thread that counts about once per millisecond while its `with` block runs: the count
    shows whether Python threads ran during the C calls inside (the GIL released)."""

    def __init__(self):
        self.ticks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def _run(self):
        while not self._stop.is_set():
            self.ticks += 1
            time.sleep(0.001)

    def __enter__(self):
        self._thread.start()
        time.sleep(0.02)
        self.ticks = 0
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
