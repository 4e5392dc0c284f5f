#!/usr/bin/env python3
"""python_package.py - the Python package as a user installs it (ctest test_python_package,
label slow): `python -m build ./python` makes the sdist and, from the sdist alone, the wheel
(the CPU build: SAMRT_CUDA off), so a wheel proves that the sdist carries the C project; the
wheel is installed into a fresh venv, which imports samrt from there (not from the checkout)
and runs one small call: a segmentation with a mask prompt on the seeded tiny checkpoint
(python_ckpt) at a 64-pixel model side.

The build tools come from the python3 running this script when it has them (`build`,
scikit-build-core), else pip installs them into a tools venv; when that fails too (offline)
the test is skipped, exit 77 with "skipped: <reason>", as it is without venv or numpy. It
never installs anything outside WORK_DIR.
  python_package.py SOURCE_DIR WORK_DIR [PYTHON_CKPT]
Prints the sdist and wheel names and sizes and the tail of the install log.
"""
import glob
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

BUILD_TIMEOUT_S = 1500  # the C library's Release build on a 2-core CI machine, with margin
SKIP = 77


def skip(why):
    print(f"test_python_package: skipped: {why}")
    sys.exit(SKIP)


def run(cmd, timeout=600, **kw):
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, **kw)


def venv(path, system_site):
    args = [sys.executable, "-m", "venv", path] + (["--system-site-packages"] if system_site else [])
    r = run(args, timeout=300)
    if r.returncode != 0:
        skip(f"cannot create a venv ({' '.join(args)}): {r.stdout.strip().splitlines()[-1:]}")
    return os.path.join(path, "bin", "python")


def has_modules(py, mods):
    return run([py, "-c", "import " + ", ".join(mods)], timeout=120).returncode == 0


def tools_python(work):
    """A python with `build` and scikit-build-core (the one running this script, or a tools venv)."""
    if has_modules(sys.executable, ["build", "scikit_build_core"]):
        return sys.executable
    py = venv(os.path.join(work, "tools"), system_site=True)
    if not has_modules(py, ["build", "scikit_build_core"]):
        r = run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "build", "scikit-build-core>=0.9"],
                timeout=600)
        if r.returncode != 0 or not has_modules(py, ["build", "scikit_build_core"]):
            skip("the build tools (`build`, scikit-build-core) are not installed and pip cannot fetch them "
                 "(offline?): pip install build scikit-build-core")
    return py


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    writer = sys.argv[3] if len(sys.argv) == 4 else None
    if not has_modules(sys.executable, ["numpy"]):
        skip(f"numpy (the package's dependency) is not installed for {sys.executable}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tools = tools_python(work)
    dist = os.path.join(work, "dist")
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
    r = run([tools, "-m", "build", "--no-isolation", "--outdir", dist, "-C", "cmake.define.SAMRT_CUDA=OFF",
             os.path.join(src, "python")], timeout=BUILD_TIMEOUT_S, env=env)
    if r.returncode != 0:
        print(r.stdout[-6000:])
        print("test_python_package: FAILED: python -m build ./python")
        return 1
    sdists, wheels = glob.glob(os.path.join(dist, "samrt-*.tar.gz")), glob.glob(os.path.join(dist, "samrt-*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        print(f"test_python_package: FAILED: want one sdist and one wheel in {dist}, got {os.listdir(dist)}")
        return 1
    for f in sdists + wheels:
        print(f"built {os.path.basename(f)}: {os.path.getsize(f)} bytes")
    with tarfile.open(sdists[0]) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    need = {"pyproject.toml", "_build/samrt_build.py", "samrt/model.py", "csrc/CMakeLists.txt",
            "csrc/runtime/sam2/segment.c", "csrc/include/samrt.h"}
    with zipfile.ZipFile(wheels[0]) as z:
        in_wheel = set(z.namelist())
    if need - names or "samrt/libsamrt.so" not in in_wheel:
        print(f"test_python_package: FAILED: the sdist lacks {sorted(need - names)} or the wheel libsamrt.so")
        return 1

    py = venv(os.path.join(work, "venv"), system_site=True)  # numpy from the system: installs nothing else
    r = run([py, "-m", "pip", "install", "--no-index", "--no-deps", "--disable-pip-version-check", wheels[0]])
    print("install log tail:\n  " + "\n  ".join(r.stdout.strip().splitlines()[-3:]))
    if r.returncode != 0:
        print("test_python_package: FAILED: pip install of the wheel")
        return 1
    ckpt = ""
    if writer and os.path.exists(writer):
        ckpt = os.path.join(work, "tiny.safetensors")
        subprocess.run([writer, ckpt, "sam2.1_tiny", "f32"], check=True, stdout=subprocess.DEVNULL)
    probe = r"""
import os, sys
import numpy as np
import samrt
venv = sys.argv[1]
assert os.path.realpath(samrt.__file__).startswith(os.path.realpath(venv)), samrt.__file__
print("samrt from", os.path.dirname(samrt.__file__), "library", samrt.library_path(), "cuda", samrt.has_cuda())
if sys.argv[2]:
    with samrt.Model(sys.argv[2], platform="cpu", imgsz=64, max_objects=1, max_frame=(48, 32)) as m:
        img = np.zeros((32, 48, 3), np.uint8)
        img[8:24, 12:36] = (200, 60, 30)
        mask = np.zeros((32, 48), np.bool_)
        mask[8:24, 12:36] = True
        r = m.segment(img, points=[[24, 16]], mask=mask)
        print("segment with a mask prompt: area", r.area, "score %.4f" % r.score)
else:
    print("no python_ckpt given: import checked only")
"""
    r = run([py, "-c", probe, os.path.join(work, "venv"), ckpt], cwd=work)
    print(r.stdout.strip())
    if r.returncode != 0:
        print("test_python_package: FAILED: the installed package")
        return 1
    print("test_python_package: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
