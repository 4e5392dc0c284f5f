#!/usr/bin/env python3
"""check_test_locks.py - every test that reads the device's free memory runs alone.

cudaMemGetInfo reports the whole device's free memory, so a test that checks it stays flat
fails when another test allocates beside it (`ctest -L cuda -j4`). Such tests carry
RUN_SERIAL TRUE and RESOURCE_LOCK gpu_memory (tests/tracker.cmake, docs/testing.md). This
script finds them from their sources (a call of cudaMemGetInfo in the test's .c files or in
the tests/ headers they include) and fails when one lacks either property:
  - in the cmake files (tests/CMakeLists.txt, tests/*.cmake), which also covers the cuda tests
    of a CPU-only build, where they are not defined;
  - in the build (--build, --ctest): the properties ctest really sees
    (`ctest -N --show-only=json-v1`), for every test that runs such an executable.
--selftest checks the checker on a generated tree with one unlocked test.
Run: python3 tests/check_test_locks.py --tests-dir tests [--build build --ctest ctest]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LOCK = "gpu_memory"
CALL = re.compile(r"\bcudaMemGetInfo\s*\(")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ADD = re.compile(r"\bsamrt_add_test\(\s*([\w.-]+)\s+SOURCES\s+([^)]*?)(?=\b(?:LABELS|ARGS|LIBS)\b|\))", re.S)
ALIAS = re.compile(r"\badd_test\(\s*NAME\s+([\w.-]+)\s+COMMAND\s+([\w.-]+)")
PROPS = re.compile(r"\bset_tests_properties\(([^)]*)\)", re.S)


def cmake_text(tests_dir):
    """The cmake files of tests/, comments removed, joined."""
    names = sorted(n for n in os.listdir(tests_dir) if n.endswith(".cmake")) + ["CMakeLists.txt"]
    out = []
    for n in names:
        path = os.path.join(tests_dir, n)
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                out.append(re.sub(r"#[^\n]*", "", f.read()))
    return "\n".join(out)


def calls_mem_info(tests_dir, src, seen):
    """1 when src (a file of tests/) or a tests/ header it includes calls cudaMemGetInfo."""
    path = os.path.join(tests_dir, src)
    if src in seen or not os.path.isfile(path):
        return False
    seen.add(src)
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return bool(CALL.search(text)) or any(calls_mem_info(tests_dir, h, seen) for h in INCLUDE.findall(text))


def measuring_targets(tests_dir, text):
    """Names of the test executables whose sources call cudaMemGetInfo."""
    found = set()
    for name, srcs in ADD.findall(text):
        if any(calls_mem_info(tests_dir, s, set()) for s in srcs.split() if not s.startswith("$")):
            found.add(name)
    return found


def text_problems(text, targets):
    """Tests (targets and add_test aliases of them) without both properties in the cmake text."""
    tests = set(targets) | {name for name, exe in ALIAS.findall(text) if exe in targets}
    locked = set()
    for body in PROPS.findall(text):
        head, _, props = body.partition("PROPERTIES")
        if re.search(r"\bRUN_SERIAL\s+(TRUE|ON|1)\b", props) and re.search(r"\bRESOURCE_LOCK\s+\S*\b%s\b" % LOCK, props):
            locked.update(head.split())
    return sorted(t for t in tests if t not in locked)


def build_problems(build, ctest, targets):
    """Tests of the build running a measuring executable without both properties; the count checked."""
    out = subprocess.run([ctest, "--test-dir", build, "-N", "--show-only=json-v1"], capture_output=True, text=True,
                         check=True).stdout
    bad, checked = [], 0
    for t in json.loads(out).get("tests", []):
        cmd = t.get("command")  # absent while the executable is not built: then the test's name
        if (os.path.basename(cmd[0]) if cmd else t["name"]) not in targets:
            continue
        checked += 1
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        locks = props.get("RESOURCE_LOCK", [])
        if props.get("RUN_SERIAL") is not True or LOCK not in (locks if isinstance(locks, list) else [locks]):
            bad.append(t["name"])
    return bad, checked


def check(tests_dir, build=None, ctest=None):
    text = cmake_text(tests_dir)
    targets = measuring_targets(tests_dir, text)
    if not targets:
        print("check_test_locks: no test's sources call cudaMemGetInfo: the cmake files were not understood")
        return 1
    bad = text_problems(text, targets)
    checked = 0
    if build:
        more, checked = build_problems(build, ctest or "ctest", targets)
        bad = sorted(set(bad) | set(more))
    for name in bad:
        print("check_test_locks: %s reads the device's free memory (cudaMemGetInfo) but lacks RUN_SERIAL TRUE "
              "and RESOURCE_LOCK %s (set them next to its definition; docs/testing.md)" % (name, LOCK))
    print("check_test_locks: %d executables call cudaMemGetInfo (%s); %d tests of this build checked; %s"
          % (len(targets), ", ".join(sorted(targets)), checked, "FAILED" if bad else "ok"))
    return 1 if bad else 0


def selftest():
    """One locked and one unlocked measuring test, and one that does not measure: only the unlocked is named."""
    with tempfile.TemporaryDirectory() as d:
        files = {
            "CMakeLists.txt": "samrt_add_test(t_locked SOURCES a.c LABELS cuda)\n"
                              "samrt_add_test(t_open SOURCES b.c util.c LABELS cuda ARGS gpu)\n"
                              "samrt_add_test(t_plain SOURCES c.c LABELS cpu)\n"
                              "set_tests_properties(t_locked PROPERTIES RUN_SERIAL TRUE RESOURCE_LOCK gpu_memory)\n"
                              "# set_tests_properties(t_open PROPERTIES RUN_SERIAL TRUE RESOURCE_LOCK gpu_memory)\n",
            "a.c": "int f(void) { size_t a, b; return cudaMemGetInfo(&a, &b); }\n",
            "b.c": '#include "b_util.h"\n',
            "b_util.h": "static int g(void) { size_t a, b; return cudaMemGetInfo (&a, &b); }\n",
            "util.c": "", "c.c": "/* cudaMemGetInfo named in a comment only */\n"}
        for name, body in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(body)
        text = cmake_text(d)
        targets = measuring_targets(d, text)
        bad = text_problems(text, targets)
        ok = targets == {"t_locked", "t_open"} and bad == ["t_open"]
        print("check_test_locks selftest: measuring %s, unlocked %s: %s" % (sorted(targets), bad, "ok" if ok else "FAILED"))
        return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests-dir", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--build", help="a configured build folder: check the properties ctest sees there too")
    ap.add_argument("--ctest", default="ctest")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    return selftest() if a.selftest else check(a.tests_dir, a.build, a.ctest)


if __name__ == "__main__":
    sys.exit(main())
