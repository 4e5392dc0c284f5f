"""samrt_build.py - the package's PEP 517 backend: scikit-build-core, with an sdist that carries
the C library it builds.

The C project is the repository root (python/pyproject.toml: cmake.source-dir = ".."), and
scikit-build-core puts into an sdist only the files under the folder of pyproject.toml. So
build_sdist, run in a checkout, first stages a tree of its own: python/'s files at the top and
the root CMake project under csrc/ (CMakeLists.txt, cmake/ and the library's layers include/,
core/, platform/, kernels/, ops/, models/, runtime/, harness/: what libsamrt.so needs with
SAMRT_BUILD_TOOLS and SAMRT_BUILD_TESTS off), with cmake.source-dir rewritten to "csrc"; then
scikit-build-core packs that tree. From a checkout the staged files are the ones git tracks
(nothing built or ignored slips in); without git, every file of those folders but build
output. An unpacked sdist (csrc/ present) is already whole and goes to scikit-build-core as is.
Every other hook (wheels, metadata, editable installs) is scikit-build-core's own.
"""
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from scikit_build_core.build import *  # noqa: F401,F403 (the hooks this module does not change)
from scikit_build_core.build import build_sdist as _skb_build_sdist

C_PARTS = ["CMakeLists.txt", "cmake", "include", "core", "platform", "kernels", "ops", "models", "runtime", "harness"]
SKIP_DIRS = {"__pycache__", ".git", "build", "dist", "csrc"}
SKIP_SUFFIXES = (".pyc", ".so", ".o", ".a")
SOURCE_DIR_LINE = 'cmake.source-dir = ".."'


def _tracked(root: Path, parts):
    """The files git tracks under parts (paths relative to root), or None without git."""
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", *parts], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    files = [f for f in out.decode().split("\0") if f]
    return files or None


def _walk(root: Path, parts):
    files = []
    for part in parts:
        p = root / part
        if p.is_file():
            files.append(part)
            continue
        for d, dirs, names in os.walk(p):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for n in sorted(names):
                if not n.endswith(SKIP_SUFFIXES):
                    files.append(str(Path(d, n).relative_to(root)))
    return files


def _copy(root: Path, files, dest: Path) -> None:
    for f in files:
        src = root / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)


def build_sdist(sdist_directory, config_settings=None):
    here = Path.cwd()
    root = here.parent
    if (here / "csrc" / "CMakeLists.txt").is_file() or not (root / "CMakeLists.txt").is_file():
        return _skb_build_sdist(sdist_directory, config_settings)  # an unpacked sdist
    out_dir = os.path.abspath(sdist_directory)
    with tempfile.TemporaryDirectory(prefix="samrt-sdist-") as tmp:
        stage = Path(tmp) / "samrt"
        stage.mkdir()
        py = _tracked(root, [here.name]) or _walk(root, [here.name])
        _copy(root, py, Path(tmp))  # python/... -> tmp/python/...
        shutil.copytree(Path(tmp) / here.name, stage, dirs_exist_ok=True)
        _copy(root, _tracked(root, C_PARTS) or _walk(root, C_PARTS), stage / "csrc")
        pyproject = (stage / "pyproject.toml").read_text(encoding="utf-8")
        if SOURCE_DIR_LINE not in pyproject:
            raise RuntimeError(f"samrt_build: python/pyproject.toml lacks the line {SOURCE_DIR_LINE!r}")
        (stage / "pyproject.toml").write_text(pyproject.replace(SOURCE_DIR_LINE, 'cmake.source-dir = "csrc"'),
                                              encoding="utf-8")
        old = os.getcwd()
        os.chdir(stage)
        try:
            return _skb_build_sdist(out_dir, config_settings)
        finally:
            os.chdir(old)
