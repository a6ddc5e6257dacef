#!/usr/bin/env python3
"""A fuzzer for fathom's command line (Documentation/Reliability.md, "Fuzzing", "The command line").

It learns each command's options from the executable (`fathom help`, `fathom CMD --help`, then
`fathom CMD --NAME=x --zz-no-such-option` to tell a flag from an option with a value), runs the
executable many times with random argument vectors (good, borderline and hostile values, unknown,
repeated and value-less options, positional junk), each in a fresh scratch folder holding small
input fixtures, and checks what the documented contract promises: the exit codes, one error line
"fathom: ..." on stderr, no trap or backtrace, no temporary file left (in $TMPDIR or next to an
output), no input changed, nothing changed by a failed command, SIGINT/SIGTERM/SIGHUP obeyed.

    Scripts/cli-fuzz.py --seconds 60                 # FATHOM=.build/release/fathom by default
    Scripts/cli-fuzz.py --runs 500 --seed 7 --commands render,expmap --jobs 2
    Scripts/cli-fuzz.py --seed 7 --replay 123        # run 123 of seed 7 again, verbosely

Findings go to .build/fuzz-runs/cli/findings.txt (one line each, with the seed, the run number and
the argument vector), a summary to summary.txt; the exit status is 1 when there is any finding.
Standard library only.
"""

import argparse
import hashlib
import json
import os
import random
import re
import resource
import select
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Documented exit codes (Documentation/CLI.md, "Exit codes"); 128+N only for a signal N the
# fuzzer sent itself.
DOCUMENTED_CODES = {0, 1, 64, 65, 66, 69, 73, 74}
# Exit 1 is "other": the documented cases only (an oracle mismatch or a file verify cannot
# check, find without a minibrot, a Newton view deeper than double-double, sbatch failing).
# Any other exit 1 (an error the CLI did not map to a sysexits code) is a finding.
EXIT_1_ALLOWED = re.compile(
    r"do not match the oracle|could not be verified|no minibrot found|descent stopped|"
    r"Newton fractals have no perturbation formula|submit\.sh failed|GPU backend: "
)
TRAP = re.compile(
    r"Fatal error|Crash|Backtrac|Illegal instruction|[Pp]recondition|Segmentation fault|"
    r"\*\*\* Signal \d+|Assertion failed|swift-runtime:|Stack dump|core dumped|Aborted"
)
# Lines a failing command may print before its one "fathom: " line.
SIDE_LINE = re.compile(r"^(warning: |estimate: |frame \d+: warning)")
SIGNAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM", signal.SIGHUP: "SIGHUP", signal.SIGQUIT: "SIGQUIT"}

# --------------------------------------------------------------------------------------------
# Learning the command line from the executable.


def quick(argv, cwd=None, timeout=30):
    r = subprocess.run(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
        env=child_env(tempfile.gettempdir()))
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def child_env(tmpdir):
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("SLURM_") or k.startswith("FATHOM") or k == "JOB_COMPLETION_INDEX")}
    env["TMPDIR"] = tmpdir
    return env


class CommandLine:
    """The commands, their options (flag or valued, with the metavar their help gives), the
    presets, palettes and families, all as the executable describes them."""

    def __init__(self, fathom):
        self.fathom = fathom
        rc, overview, err = quick([fathom, "help"])
        if rc != 0:
            sys.exit(f"cli-fuzz: '{fathom} help' failed (exit {rc}): {err.strip()}")
        block = overview.split("commands:", 1)[1] if "commands:" in overview else overview
        self.commands = re.findall(r"(?m)^  ([a-z][a-z-]*)\s{2,}\S", block)
        if "help" not in self.commands:
            self.commands.append("help")
        self.helps = {}
        self.options = {}  # command -> {name: "flag" | "value"}
        self.metavar = {}  # name -> metavar (first seen)
        for c in self.commands:
            if c == "help":
                self.options[c] = {}
                continue
            _, text, _ = quick([fathom, c, "--help"])
            self.helps[c] = text
            for m in re.finditer(r"--([a-z][a-z0-9-]*)[ =]([A-Z][A-Za-z0-9.,:\[\]]*|[a-z0-9-]+(?:\|[a-z0-9-]+)+)", text):
                meta = m.group(2)
                while meta and meta[-1] in "],)" and meta.count("[") < meta.count("]") + (meta[-1] != "]"):
                    meta = meta[:-1]
                self.metavar.setdefault(m.group(1), meta)
        for c in self.commands:
            if c == "help":
                continue
            table = {}
            for name in sorted(set(re.findall(r"--([a-z][a-z0-9-]*)", self.helps[c])) - {"help"}):
                _, _, err = quick([fathom, c, f"--{name}=x", "--zz-no-such-option"])
                if f"unknown option '--{name}'" in err:
                    continue
                table[name] = "flag" if "takes no value" in err else "value"
            self.options[c] = table
        _, text, _ = quick([fathom, "presets"])
        self.presets = {}  # name -> (family, radius exponent, iterations, path)
        for line in text.splitlines()[1:]:
            f = line.split()
            if len(f) >= 5 and f[3].isdigit():
                m = re.search(r"e(-?\d+)$", f[2])
                self.presets[f[0]] = (f[1], int(m.group(1)) if m else 0, int(f[3]), f[4])
        _, text, _ = quick([fathom, "palettes"])
        self.palettes = re.findall(r"(?m)^([a-z]+): ", text) or ["cosine"]
        _, text, _ = quick([fathom, "families"])
        self.families = re.findall(r"(?m)^([a-z]+): ", text) or ["mandelbrot"]

    def cost(self, preset):
        """'shallow', 'deep' (well under a second at 8x8) or 'costly' (needs few iterations)."""
        family, exponent, iterations, path = self.presets.get(preset, ("", 0, 1000, "double"))
        if path == "double":
            return "shallow"
        return "costly" if iterations > 270000 or exponent < -1100 else "deep"


# --------------------------------------------------------------------------------------------
# Fixtures: small input files made once by the executable itself, copied into every run's folder.

FIXTURE_SPECS = [
    # (file made, argv to make it (in the fixture folder), stdout to that file?)
    ("tiny.png", ["render", "--preset", "seahorse", "--size", "8x8", "--iterations", "200", "--output", "tiny.png", "--quiet"], False),
    ("loc.json", ["info", "--json", "tiny.png"], True),
    ("loc.kfr", ["convert", "loc.json", "loc.kfr"], False),
    ("deep.png", ["render", "--preset", "e1000", "--size", "8x8", "--output", "deep.png", "--quiet"], False),
    ("deep.json", ["convert", "deep.png", "deep.json"], False),
    ("julia.json", ["render", "--preset", "julia", "--size", "8x8", "--iterations", "100", "--output", "julia.png", "--quiet"], False),
    ("m.npy", ["expmap", "--preset", "seahorse", "--width", "8", "--iterations", "200", "--npy", "m.npy", "--quiet"], False),
    ("r.orbit", ["render", "--preset", "e50", "--size", "8x8", "--save-reference", "r.orbit", "--output", "/dev/null", "--quiet"], False),
    ("seq", ["sequence", "--zoom-out", "2", "--size", "8x8", "--preset", "seahorse", "--output-dir", "seq", "--quiet"], False),
]


def make_fixtures(fathom, folder):
    os.makedirs(folder)
    for name, argv, to_stdout in FIXTURE_SPECS:
        if name == "julia.json":
            rc, _, err = quick([fathom] + argv, cwd=folder, timeout=120)
            if rc == 0:
                rc, out, err = quick([fathom, "info", "--json", "julia.png"], cwd=folder)
                if rc == 0:
                    open(os.path.join(folder, name), "w").write(out)
                os.remove(os.path.join(folder, "julia.png"))
        else:
            rc, out, err = quick([fathom] + argv, cwd=folder, timeout=120)
            if rc == 0 and to_stdout:
                open(os.path.join(folder, name), "w").write(out)
        if rc != 0 or not os.path.exists(os.path.join(folder, name)):
            print(f"cli-fuzz: warning: fixture {name} not made (exit {rc}): {err.strip()[:200]}", file=sys.stderr)
    p = lambda n: os.path.join(folder, n)
    gradient = os.path.join(REPO, "Documentation", "gradients", "classic.txt")
    if os.path.exists(gradient):
        shutil.copyfile(gradient, p("grad.txt"))
    else:
        open(p("grad.txt"), "w").write("000000\n0.5 ffffff\n")
    open(p("bad.txt"), "w").write("this is not a gradient\n12345\n")
    open(p("empty.json"), "w").close()
    open(p("bad.json"), "w").write('{"family": "mandelbrot", "center": ["0", "0"]\n')
    if os.path.exists(p("r.orbit")):
        data = open(p("r.orbit"), "rb").read()
        open(p("cut.orbit"), "wb").write(data[: len(data) // 2])
    if os.path.exists(p("tiny.png")):
        shutil.copyfile(p("tiny.png"), p("ro.png"))
        os.chmod(p("ro.png"), 0o444)
        os.symlink("tiny.png", p("link.png"))
    os.symlink("nowhere.png", p("dangling.png"))
    os.makedirs(p("dir"))
    oracles = os.path.join(os.path.dirname(REPO), "shared", "oracle")
    for src, dst in [("pub_a_seahorse_shallow.json", "oracle.json"), ("pub_g_julia_e20.json", "oracle-julia.json")]:
        if os.path.exists(os.path.join(oracles, src)):
            shutil.copyfile(os.path.join(oracles, src), p(dst))
            os.chmod(p(dst), 0o644)
    if os.path.exists(p("oracle.json")):  # an oracle whose first pixel is wrong: verify exits 1
        o = json.load(open(p("oracle.json")))
        try:
            o["pixels"][0]["n2"] = int(o["pixels"][0].get("n2", 0)) + 7
            json.dump(o, open(p("oracle-wrong.json"), "w"))
        except (KeyError, IndexError, TypeError, ValueError):
            pass
    return sorted(os.listdir(folder))


def snapshot(folder):
    """{relative path: (kind, mode, digest or link target)} of everything in folder."""
    result = {}
    for root, dirs, files in os.walk(folder):
        for n in dirs + files:
            path = os.path.join(root, n)
            rel = os.path.relpath(path, folder)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                result[rel] = ("link", mode, os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                h = hashlib.sha1()
                try:
                    with open(path, "rb") as f:
                        for chunk in iter(lambda: f.read(1 << 20), b""):
                            h.update(chunk)
                except OSError:
                    pass
                result[rel] = ("file", mode, h.hexdigest())
            elif stat.S_ISDIR(st.st_mode):
                result[rel] = ("dir", mode, "")
            else:
                result[rel] = ("other", mode, stat.S_IFMT(st.st_mode))
    return result


# --------------------------------------------------------------------------------------------
# Values.

HOSTILE = [
    "", " ", "\t", "-", "--", "0", "-1", "1e999999", "-1e999999", "1e-999999", "99999999999999999999",
    "-99999999999999999999", "nan", "NaN", "inf", "-inf", "0x1p3", "١٢", "ünïcødé ✓", "a\nb", "line\r",
    "$(touch PWNED)", "`touch PWNED`", "%s%n%x", "1,2,3", "9" * 400, "x" * 5000, "\x7f", "1e-99999999999999999999",
]


class Gen:
    """Values for one run. Paths are relative to the run's folder (the fixtures' copy)."""

    def __init__(self, rng, cli, fixtures):
        self.rng = rng
        self.cli = cli
        self.fixtures = set(fixtures)
        self.inputs = []
        self.outputs = []

    def pick(self, good, border=(), hostile=True, weights=(0.8, 0.14, 0.06)):
        r = self.rng.random()
        if r < weights[0] or not (border or hostile):
            return str(self.rng.choice(list(good)))
        if r < weights[0] + weights[1] and border:
            return str(self.rng.choice(list(border)))
        return self.rng.choice(HOSTILE) if hostile else str(self.rng.choice(list(border or good)))

    def have(self, names):
        return [n for n in names if n in self.fixtures]

    HOSTILE_PATHS = ["", "nowhere.json", "dir", "dir/", ".", "fifo", "/dev/null", "/dev/full", "-",
                     "dangling.png", "$(touch PWNED)", "ünï.json", "a\nb.json", "x" * 300, "missing/in.json"]

    def input_path(self, good, also=()):
        """An input file: usually a good one, sometimes another fixture or a hostile path."""
        r = self.rng.random()
        good = self.have(good) or ["nowhere"]
        if r < 0.7:
            v = self.rng.choice(good)
        elif r < 0.85:
            v = self.rng.choice(sorted(self.fixtures | set(also)))
        else:
            v = self.rng.choice(self.HOSTILE_PATHS)
        self.inputs.append(v)
        return v

    def output_path(self, ext):
        r = self.rng.random()
        if r < 0.6:
            v = self.rng.choice([f"out{ext}", f"o{len(self.outputs)}{ext}", f"dir/out{ext}"])
        elif r < 0.72 and self.inputs:
            v = self.rng.choice(self.inputs)  # a file that is also an input
        elif r < 0.8 and self.outputs:
            prev = self.rng.choice(self.outputs)  # two outputs on one file, maybe by two names
            v = self.rng.choice([prev, "./" + prev, "dir/../" + prev])
        else:
            v = self.rng.choice([
                "-", "/dev/null", "/dev/full", "ro.png", "link.png", "dangling.png", "missing/out" + ext, "dir",
                "", "fifo", "tiny.png", "loc.json", "out", "$(touch PWNED)", "ü" + ext, "a\nb" + ext,
                "x" * 300 + ext, "seq", ".", "m.npy", "r.orbit"])
        self.outputs.append(v)
        return v

    def output_dir(self):
        v = self.pick(["out", "outdir", "dir", "dir/sub"],
                      ["seq", "tiny.png", "missing/out", "", "/dev/null", "fifo", "link.png", "ro.png", ".", "frames"],
                      hostile=False, weights=(0.75, 0.25, 0))
        self.outputs.append(v)
        return v

    # -- per option ------------------------------------------------------------------------

    def size(self):
        return self.pick(["8x8", "4x4", "8x4", "1x1", "16x9", "12x12", "2x8", "8x8", "32x18"],
                         ["0x8", "8x0", "32769x1", "1x32769", "10001x10000", "32768x1", "1x32768", "8X8", "8x", "x8",
                          "8x8x8", "-8x8", "+8x8", " 8x8", "8x8 ", "8.0x8", "0x0", "08x08", "8x-8", "4294967304x1",
                          "9223372036854775807x9223372036854775807", "8×8"])

    def preset(self):
        names = sorted(self.cli.presets)
        shallow = [n for n in names if self.cli.cost(n) == "shallow"]
        deep = [n for n in names if self.cli.cost(n) == "deep"]
        costly = [n for n in names if self.cli.cost(n) == "costly"]
        r = self.rng.random()
        if r < 0.55 or not (deep or costly):
            return self.rng.choice(shallow or names or ["seahorse"])
        if r < 0.8 and deep:
            return self.rng.choice(deep)
        if r < 0.93 and costly:
            return self.rng.choice(costly)
        return self.rng.choice(["nowhere", "", "Seahorse", "seahorse ", "e50.json", "../e50"])

    def value(self, cmd, name):
        rng = self.rng
        on_off = lambda: self.pick(["on", "off"], ["yes", "ON", "1", "", "of", "true"])
        number = lambda good, border: self.pick(good, border)
        if name == "location":
            return self.input_path(["loc.json", "loc.kfr", "tiny.png", "deep.json", "julia.json", "deep.png"])
        if name == "preset":
            return self.preset()
        if name == "family":
            return self.pick(self.cli.families, ["burningship", "", "Mandelbrot", "julia "])
        if name == "center":
            return self.pick(["-0.75,0.1", "0,0", "-0.7462,-0.0959", "0.25,0", "-1.76,0", "0.3,-0.5"],
                             ["1e10,0", "1e11,0", "0,-1e309", "1.2.3,0", ",", "0", "0,0,0", "-0.5,", "1e309,0", "0x1,0",
                              " 0,0", "0 ,0", "+0.1,+0.1", "7" * 10000 + ",0", "0," + "1" * 100000, "1e-1000000,0"])
        if name in ("re", "im"):
            return number(["-0.75", "0", "0.1", "-1.76", "1e-20"], ["1e10", "1.1e10", "1e309", "1.2.3", "0x1", "+0"])
        if name == "radius":
            return number(["1e-3", "0.5", "2", "1.5", "4e-14", "3e-20", "1e-40", "2e-60"],
                          ["1e-300", "1e-1000", "1e10", "1e-1000001", "1.1e10", "0", "-1e-5", "1e-99999999", "abc",
                           "1e", "e5", ".", "-0", "1e-1000000", "2.000000000000000000000001"])
        if name == "zoom":
            return number(["1", "2", "10", "1e5", "1e20"], ["0", "-2", "1e99999999", "1e1000", "1e-10", "1e10", "2e10"])
        if name == "rotation":
            return number(["0", "45", "-30", "90", "360", "1e6"], ["1e308", "1e309", "nan", "inf", "-0", "1e-320"])
        if name == "iterations":
            if rng.random() < 0.01:
                return rng.choice(["2000000000", "1000000"])  # costly: may time out (slow)
            return number(["50", "100", "200", "500", "1000", "2000"],
                          ["1", "0", "-1", "2000000001", "1.5", "1e3", "99999999999999999999999", "2"])
        if name == "power":
            return number(["2", "3", "4", "5", "8", "16"], ["1", "17", "40", "0", "-2", "3.5", "2.0"])
        if name == "julia":
            return self.pick(["-0.8,0.156", "0.285,0.01", "-0.4,0.6", "0,1"], ["0.3,abc", "1e10,0", "1e11,0", ",", "0"])
        if name == "newton":
            return self.pick(["z^3-1", "z^4-1", "z^5-1", "z^3-2z+2", "z^2-1", "z^12-1", "2z^3+z-5"],
                             ["z^13-1", "z", "1", "z^1", "z^^3", "zz+++", "z^3+" + "9" * 308 + "z+" + "9" * 308 + "z",
                              "z^3-1e400", "z^2+1e-400", "z^0", "z^-1", "z^3 - 1", "Z^3-1", "z**3-1", "z^3-1+0i",
                              "z^99999999999999999999", "z^3-1e-320"])
        if name == "supersample":
            return number(["1", "2", "3", "4"], ["0", "5", "9", "-1", "2.5"])
        if name == "palette":
            return self.pick(self.cli.palettes, ["rainbow", "", "COSINE", "hot "])
        if name == "gradient":
            return self.input_path(["grad.txt"], also=["bad.txt"])
        if name in ("density",):
            return number(["1", "0.5", "2", "0.01", "4"], ["0", "-1", "1e-300", "1e300", "1e309", "1e-320"])
        if name == "offset":
            return number(["0", "0.25", "-0.5", "3"], ["1e308", "1e300", "-1e300", "1e-320"])
        if name in ("smooth", "gpu-exact", "bla", "precision-passes", "coarse-first-pass"):
            return on_off()
        if name == "color-scale":
            return self.pick(["auto", "linear", "log", "histogram"], ["sqrt", "", "AUTO"])
        if name == "interior":
            return self.pick(["000000", "ff8800", "FFFFFF", "123abc"], ["fff", "gg0000", "#000000", "", "0000000", "-00000", "0x0000"])
        if name == "boundary":
            return number(["1", "0.5", "2"], ["0", "-1", "off", "thin", "1e300", "on", "1e-320"])
        if name == "slope":
            return self.pick(["45", "45,1.5", "45,1.5,0.75", "0,1,1", "-90,0.5,0"],
                             ["45,1.5,3", "a,b", "45,,", "45,0,0", "off", "45,1.5,0.75,9", "1e309", ",", "45,1e308,1"])
        if name == "trap":
            return self.pick(["point:0,0", "cross:0.1,-0.2", "point:-0.75,0.1"],
                             ["circle:0,0", "point:", "point:1e400,0", "off", "point:0", "cross:a,b", ":0,0", "point:0,0,0"])
        if name == "output":
            return self.output_path(".mp4" if cmd == "video" else ".png")
        if name == "bit-depth":
            return number(["8", "16"], ["12", "0", "", "8.0", "-8", "16 "])
        if name in ("npy",):
            return self.output_path(".npy")
        if name == "exr":
            return self.output_path(".exr")
        if name == "threads":
            return number(["0", "1", "2"], ["-1", "1024", "1025", "99999999999999999999", "two", "1.5", "100000"])
        if name == "backend":
            return self.pick(["cpu", "auto"], ["cuda", "gpu", "", "CPU"], weights=(0.85, 0.12, 0.03))
        if name == "guard-bits":
            return number(["0", "8", "40", "64"], ["65", "-1", "x", "1e3"])
        if name == "path":
            return self.pick(["double", "double-double", "perturbation"], ["", "mpfr", "Double"])
        if name == "glitches":
            return self.pick(["rebase", "detect"], ["none", ""])
        if name == "reference":
            return self.pick(["auto", "center", "probe", "nucleus"], ["", "middle"])
        if name == "delta":
            return self.pick(["double", "double-double", "floatexp"], ["float", ""])
        if name == "approximation":
            return self.pick(["la", "bla", "both"], ["none", "LA", ""])
        if name == "orbit":
            return self.pick(["auto", "decoded", "streamed"], ["compressed", ""])
        if name in ("bla-epsilon", "la-epsilon"):
            return number(["1e-12", "1e-6", "0.5", "9.094947017729282e-13"], ["0", "1", "1e-400", "2", "1e-320", "0.9999999999999999"])
        if name == "estimate":
            return self.pick(["variance", "product"], ["exact", ""])
        if name == "mpfr-budget":
            return number(["0", "1", "30"], ["1e9", "1e10", "-5", "1e-300", "1e-320"])
        if name == "save-reference":
            return self.output_path(".orbit")
        if name == "load-reference":
            return self.input_path(["r.orbit"], also=["cut.orbit"])
        if name == "load-references":
            self.inputs.append("dir")
            return self.pick(["dir", "refs"], ["tiny.png", "nowhere", "", "fifo", "/dev/null"], hostile=False)
        if name in ("save-references", "slurm", "output-dir", "kf-frames"):
            return self.output_dir()
        if name == "depth":
            return number(["1e-10", "1e-20", "1e-6", "1e-30"], ["0", "-1", "1e-99999999", "1e-1000", "2", "abc", "1e10"])
        if name == "fraction":
            return number(["0.5", "0.25", "0.9"], ["0", "1", "2", "-0.5", "1e-300", "1e-320"])
        if name == "save":
            return self.output_path(rng.choice([".json", ".kfr", ".json", ".txt", ""]))
        if name == "render":
            return self.output_path(".png")
        if name == "zoom-out":
            return number(["1", "2", "3"], ["0", "-1", "99999999999999999999", "2.5", "4611686018427387905"])
        if name == "factor":
            return number(["2", "1.5", "4"], ["1", "0.5", "0", "1e308", "-2", "1.0000000001", "1e-320"])
        if name == "per-segment":
            return number(["1", "2", "3"], ["0", "-1", "4611686018427387905", "2.5", "9223372036854775807"])
        if name == "frames":
            if cmd == "video":
                v = self.pick(["seq"], ["dir", "nowhere", "tiny.png", "", "fifo", "/dev/null", "seq/", "frames"], hostile=False)
                self.inputs.append(v)
                return v
            return self.pick(["0..1", "1..1", "0..0"],
                             ["1..0", "0..99", "a..b", "0..", "..", "5..12", "-1..1", "0...1", "99999999999999999999..1"])
        if name == "tasks":
            return number(["1", "2", "4"], ["0", "-1", "99999999999999999999", "100000"])
        if name == "fps":
            return number(["1", "4", "24", "30"], ["0", "241", "-1", "29.97", "240", "1e-300"])
        if name == "slice-of":
            return number(["1", "2", "4"], ["0", "-1", "x", "99999999999999999999"])
        if name == "width":
            return number(["4", "5", "8", "12", "16"], ["3", "0", "-4", "32769", "8.5", "1e3", "9223372036854775807"])
        if name == "expmap":
            return self.input_path(["m.npy"], also=["tiny.png", "empty.json"])
        if name == "zoom-speed":
            return self.pick(["1", "2", "4", "8"], ["0", "-1", "1e-300", "1e300", "1e-10", "0.001", "1e-320"],
                             weights=(0.5, 0.42, 0.08))
        if name == "duration":
            return self.pick(["0.5", "1", "0.25"], ["0", "-1", "1e-300", "1e9", "1e300", "1e-320", "1e6"],
                             weights=(0.5, 0.42, 0.08))
        # An option this script does not know: by its help's metavar.
        meta = self.cli.metavar.get(name, "")
        if "|" in meta:
            return self.pick(meta.split("|"), ["", "x"])
        if meta in ("FILE", "PATH", "DIR", "PNG") or meta.endswith(".npy"):
            return self.input_path(sorted(self.fixtures)) if rng.random() < 0.5 else self.output_path(".png")
        return number(["1", "2", "0.5", "0"], ["-1", "x", "1e300"])

    def positionals(self, cmd):
        """Positional arguments of the commands that take them (their usage lines)."""
        rng = self.rng
        if cmd == "verify":
            n = rng.choice([1, 1, 1, 1, 1, 2, 2, 2, 3, 0])
            return [self.input_path(["oracle.json", "oracle-julia.json", "oracle-wrong.json"]) for _ in range(n)]
        if cmd == "info":
            return [self.input_path(["loc.json", "loc.kfr", "tiny.png", "deep.json", "julia.json"])] if rng.random() < 0.95 else []
        if cmd == "convert":
            r = rng.random()
            src = self.input_path(["loc.json", "loc.kfr", "tiny.png", "deep.json", "julia.json"])
            if r < 0.05:
                return [src]
            dst = self.output_path(rng.choice([".json", ".kfr", ".json", ".kfr", ".json", ".kfr", ".txt", ""]))
            return [src, dst] + (["extra"] if r > 0.97 else [])
        if cmd == "sequence":
            n = rng.choice([2, 2, 3, 1])
            return [self.input_path(["loc.json", "deep.json", "tiny.png", "loc.kfr"]) for _ in range(n)]
        if cmd == "help":
            r = rng.random()
            if r < 0.2:
                return []
            if r < 0.8:
                return [rng.choice(self.cli.commands)]
            return rng.choice([["paint"], ["render", "video"], [""], ["--help"], ["-h"], ["$(touch PWNED)"], ["help"]])
        return []


def generate(cli, fixtures, seed, n, commands):
    """Run n's command line and run conditions, a function of (seed, n) alone."""
    rng = random.Random(f"{seed}/{n}")
    g = Gen(rng, cli, fixtures)
    weight = {"render": 6, "expmap": 3, "sequence": 3, "video": 3, "find": 2, "convert": 2, "info": 2, "verify": 2}
    cmd = rng.choices(commands, [weight.get(c, 1) for c in commands])[0]
    table = cli.options.get(cmd, {})
    names = sorted(table)
    chosen = []
    # The view first, then a random few of the other options.
    if "preset" in table or "location" in table:
        r = rng.random()
        if r < 0.55 and "preset" in table:
            chosen.append("preset")
        elif r < 0.85 and "location" in table:
            chosen.append("location")
        elif r < 0.88 and "preset" in table and "location" in table:
            chosen += ["location", "preset"]
    pool = [n for n in names if n not in ("preset", "location")]
    # Commands with two forms: mostly one coherent form, sometimes a mix (exit 64).
    form = None
    if cmd == "video" and rng.random() < 0.9:
        form = rng.choice(["frames", "expmap"])
        chosen.append(form)
        if form == "frames" and rng.random() < 0.85:
            chosen = [n for n in chosen if n not in ("preset", "location")] + ["frames"]
            chosen = list(dict.fromkeys(chosen))
            pool = [n for n in pool if n in ("output", "fps", "reverse", "quiet")]
        elif form == "expmap" and "preset" not in chosen and "location" not in chosen and rng.random() < 0.8:
            chosen.append("preset")
    if cmd == "sequence":
        form = "keyframes" if rng.random() < 0.25 else "zoom-out"
        if form == "keyframes" and rng.random() < 0.9:
            chosen = [n for n in chosen if n not in ("preset", "location")]
            pool = [n for n in pool if n != "zoom-out"]
    if cmd == "expmap" and rng.random() < 0.9:
        chosen.append(rng.choices(["npy", "exr", "kf-frames"], [6, 2, 1])[0])
    # Each command's own options (not the view and engine options it shares with render) are
    # taken more often.
    own = {"video": ("zoom-speed", "duration", "fps", "reverse", "size"),
           "expmap": ("family", "newton", "julia", "power", "distance", "iterations"),
           "sequence": ("factor", "frames", "per-segment", "slurm", "tasks", "resume", "slice-of", "output-dir"),
           "find": ("depth", "fraction", "save", "render"), "verify": ("sampled", "all")}.get(cmd, ())
    p = min(0.5, 2.5 / max(1, len(pool)))
    for name in pool:
        if name not in chosen and rng.random() < (0.3 if name in own else p):
            chosen.append(name)
    values = {}
    for name in chosen:
        if table.get(name) == "value":
            values[name] = g.value(cmd, name)
    if cmd == "video" and values.get("expmap") and "preset" in values and rng.random() < 0.8:
        values["preset"] = "seahorse"  # the map fixture's view, so the frames are made
        if rng.random() < 0.5 and "iterations" in table:
            chosen.append("iterations")
            values["iterations"] = "200"
    # Keep the work small: a tiny image, a narrow map, few iterations on the deepest presets.
    small = {"render": "size", "sequence": "size", "expmap": "width", "video": "size", "find": "size"}
    key = small.get(cmd)
    if cmd != "video" or form == "expmap":
        pass
    else:
        key = None
    if "preset" in values and cli.cost(values["preset"]) == "costly" and rng.random() < 0.95 \
            and ("iterations" not in table or cmd == "expmap"):
        values["preset"] = rng.choice([n for n in sorted(cli.presets) if cli.cost(n) != "costly"] or ["seahorse"])
    if key in table and key not in values and rng.random() < 0.97 and (cmd != "find" or "render" in values):
        chosen.append(key)
        values[key] = rng.choice(["8x8", "4x4", "8x4", "16x9"]) if key == "size" else rng.choice(["4", "8", "16"])
    if "iterations" in table and "iterations" not in values and cli.cost(values.get("preset", "")) == "costly" \
            and rng.random() < 0.96:
        chosen.append("iterations")
        values["iterations"] = rng.choice(["200", "1000", "2000"])
    if cmd == "sequence" and form == "zoom-out" and "zoom-out" not in values and rng.random() < 0.95:
        chosen.append("zoom-out")
        values["zoom-out"] = rng.choice(["1", "2", "3"])
    if cmd == "video" and "fps" in table and "fps" not in values and values.get("expmap") and rng.random() < 0.7:
        chosen.append("fps")
        values["fps"] = rng.choice(["2", "4", "8"])
    argv = []
    for name in chosen:
        if table.get(name) == "flag":
            argv.append(f"--{name}" if rng.random() > 0.03 else f"--{name}=1")
        elif rng.random() < 0.15:
            argv.append(f"--{name}={values[name]}")
        else:
            argv += [f"--{name}", values[name]]
    if cmd != "sequence" or form == "keyframes" or rng.random() < 0.03:
        argv += g.positionals(cmd)
    # Mutations of the vector.
    r = rng.random()
    if r < 0.04:
        argv.insert(rng.randrange(len(argv) + 1), rng.choice(
            ["--zz-unknown", "--Size", "-s", "---size", "--", "--=x", "-", "-h", "--help", "--SIZE=8x8", "--size8x8"]))
    elif r < 0.08 and values:
        name = rng.choice(sorted(values))
        argv += [f"--{name}", g.value(cmd, name)]  # given twice
    elif r < 0.11 and [n for n in names if table[n] == "value"]:
        argv.append("--" + rng.choice([n for n in names if table[n] == "value"]))  # without its value
    elif r < 0.15:
        argv.insert(rng.randrange(len(argv) + 1), rng.choice(HOSTILE[1:] + ["junk", "loc.json", "8x8"]))
    elif r < 0.165:
        rng.shuffle(argv)
    command = cmd
    if rng.random() < 0.015:
        command = rng.choice(["Render", "", "paint", "--help", "-h", "render,find"])
    full = ([command] if command != "" or rng.random() < 0.5 else []) + argv
    # Run conditions.
    stdout = rng.choices(["pipe", "file", "full", "closed"], [55, 35, 5, 5])[0]
    sig = None
    if rng.random() < 0.06:
        sig = (rng.choices([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT], [3, 2, 2, 1])[0],
               rng.choice([rng.uniform(0, 0.05), rng.uniform(0.05, 0.4), rng.uniform(0.4, 1.5)]))
    env = {}
    if "slice-of" in values and rng.random() < 0.6:
        env["SLURM_ARRAY_TASK_ID"] = rng.choice(["0", "1", "3", "-1", "abc", "99999999999999999999", ""])
    return {"n": n, "command": cmd, "argv": full, "stdout": stdout, "signal": sig, "env": env,
            "inputs": g.inputs, "outputs": g.outputs}


# --------------------------------------------------------------------------------------------
# Running one.


class FifoHelper(threading.Thread):
    """Keeps a run's FIFO from blocking anyone: holds a reader open and drains it, and now and
    then opens it for writing (a few bytes, then closed) so that a reader blocked in open() goes on."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.stop = threading.Event()

    def run(self):
        try:
            rfd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return
        try:
            while not self.stop.is_set():
                ready, _, _ = select.select([rfd], [], [], 0.05)
                if ready:
                    try:
                        os.read(rfd, 1 << 16)
                    except OSError:
                        pass
                try:
                    wfd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
                    try:
                        os.write(wfd, b"junk\n")
                    except OSError:
                        pass
                    os.close(wfd)
                except OSError:
                    pass
        finally:
            os.close(rfd)


def quote(a):
    """A shell word for a, on one line: $'...' with escapes where a has control characters."""
    if a and all(c.isprintable() for c in a):
        return shlex.quote(a)
    if a == "":
        return "''"
    out = "".join({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", "'": "\\'"}.get(c, c)
                  if c.isprintable() or c in "\n\r\t" else "\\x%02x" % ord(c) if ord(c) < 256 else c for c in a)
    return "$'" + out + "'"


def q(argv):
    return " ".join(quote(a) for a in argv)


def normalise(text):
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\d+", "#", text)
    return text[:110]


class Fuzzer:
    def __init__(self, args, cli, fixtures_dir, fixtures, base):
        self.args = args
        self.cli = cli
        self.fixtures_dir = fixtures_dir
        self.fixtures = fixtures
        self.template = snapshot(fixtures_dir)
        self.base = base
        self.lock = threading.Lock()
        self.findings = []  # (class, line)
        self.classes = {}  # class -> [count, first line]
        self.slow = []
        self.codes = {}  # (command, code) -> count
        self.messages = {}  # (command, code, error line) -> count
        self.runs = 0
        self.findings_file = open(os.path.join(args.out, "findings.txt"), "w")

    def run_one(self, n, verbose=False, spec=None):
        spec = spec or generate(self.cli, self.fixtures, self.args.seed, n, self.args.commands)
        scratch = os.path.join(self.base, f"run-{n}")
        tmpdir = os.path.join(self.base, f"tmp-{n}")
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(self.fixtures_dir, scratch, symlinks=True)
        os.makedirs(tmpdir, exist_ok=True)
        os.mkfifo(os.path.join(scratch, "fifo"))
        helper = FifoHelper(os.path.join(scratch, "fifo"))
        helper.start()
        env = child_env(tmpdir)
        env.update(spec["env"])
        out_path = os.path.join(self.base, f"stdout-{n}")
        err_path = os.path.join(self.base, f"stderr-{n}")
        errf = open(err_path, "wb")
        mode = spec["stdout"]
        stdout_arg = {"pipe": subprocess.PIPE, "closed": subprocess.PIPE, "file": open(out_path, "wb"),
                      "full": open("/dev/full", "wb")}[mode]
        argv = [self.args.fathom] + spec["argv"]
        started = time.monotonic()
        proc = subprocess.Popen(argv, cwd=scratch, env=env, stdin=subprocess.DEVNULL, stdout=stdout_arg,
                                stderr=errf, start_new_session=True)
        if mode not in ("pipe", "closed"):
            stdout_arg.close()
        captured = bytearray()
        reader = None
        if mode == "pipe":
            def drain():
                for chunk in iter(lambda: proc.stdout.read(65536), b""):
                    if len(captured) < 1 << 20:
                        captured.extend(chunk)
            reader = threading.Thread(target=drain, daemon=True)
            reader.start()
        elif mode == "closed":
            proc.stdout.close()  # a reader that went away
        sent = []
        problems = []
        slow = False
        grace = self.args.grace

        def send(sig):
            try:
                os.kill(proc.pid, sig)
                sent.append(sig)
            except ProcessLookupError:
                pass

        def wait(seconds):
            try:
                proc.wait(timeout=max(0, seconds))
                return True
            except subprocess.TimeoutExpired:
                return False

        limit = self.args.timeout

        def after_signal(sig, kind, when):
            """Waits grace seconds for the end; past that a finding, then up to 10 s more, then SIGKILL."""
            sent_at = time.monotonic()
            if wait(grace + (3 if sig == signal.SIGQUIT else 0)):
                return
            if wait(10):
                problems.append(("slow-cancel", f"took {time.monotonic() - sent_at:.1f} s (over {grace:g} s) to end after "
                                       f"{SIGNAMES[sig]} {when}"))
                return
            problems.append((kind, f"still running {time.monotonic() - sent_at:.0f} s after {SIGNAMES[sig]} {when}: killed"))
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

        if spec["signal"] and not wait(spec["signal"][1]):
            send(spec["signal"][0])
            after_signal(spec["signal"][0], "ignored-signal", f"sent at {spec['signal'][1]:.2f} s")
        if proc.returncode is None and not wait(limit - (time.monotonic() - started)):
            slow = True
            send(signal.SIGINT)
            after_signal(signal.SIGINT, "ignored-SIGINT", f"at the {limit:g} s limit")
        elapsed = time.monotonic() - started
        # Children left behind (ffmpeg, a shell) in the run's process group.
        try:
            os.killpg(proc.pid, 0)
            problems.append(("orphan-process", "processes of the run still alive after fathom exited"))
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if reader:
            reader.join(5)
            proc.stdout.close()
        helper.stop.set()
        helper.join(2)
        errf.close()
        stderr = open(err_path, "rb").read().decode("utf-8", "replace")
        if mode == "file":
            captured = open(out_path, "rb").read(1 << 20)
        rc = proc.returncode
        killed = proc.returncode == -signal.SIGKILL and any(k in ("ignored-signal", "ignored-SIGINT") for k, _ in problems)
        problems += self.check(spec, scratch, tmpdir, rc, stderr, sent, killed)
        result = {"spec": spec, "rc": rc, "stderr": stderr, "stdout": bytes(captured[:4096]), "sent": sent,
                  "slow": slow, "elapsed": elapsed, "problems": problems}
        self.record(result, scratch)
        if verbose:
            self.show(result, scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(tmpdir, ignore_errors=True)
        for p in (out_path, err_path):
            if os.path.exists(p):
                os.remove(p)
        return result

    # -- the checks -------------------------------------------------------------------------

    def check(self, spec, scratch, tmpdir, rc, stderr, sent, killed):
        problems = []
        cmd = spec["command"]
        argv = spec["argv"]
        quit_death = rc == -signal.SIGQUIT and signal.SIGQUIT in sent
        cancelled = rc is not None and rc > 128 and (rc - 128) in sent
        crashed = False
        # Exit code.
        if killed:
            pass
        elif rc < 0:
            if -rc not in sent:
                crashed = True
                fatal = next((l.strip() for l in stderr.splitlines() if "Fatal error" in l or "recondition" in l), "")
                problems.append(("crash", f"died of {signal.Signals(-rc).name}" + (f": {fatal[:200]}" if fatal else "")))
        elif rc in DOCUMENTED_CODES:
            if rc == 1 and not EXIT_1_ALLOWED.search(stderr):
                problems.append(("exit-1", "exit 1 (other) for an error the documented cases do not cover"))
        elif cancelled:
            pass
        elif rc == 128 + signal.SIGPIPE and spec["stdout"] == "closed":
            pass
        elif rc > 128:
            problems.append(("signal-exit", f"exit {rc} (128+{rc - 128}, a signal the fuzzer did not send)"))
        else:
            problems.append(("exit-code", f"undocumented exit code {rc}"))
        # A trap, an assertion, a backtrace.
        m = TRAP.search(stderr)
        if m and not crashed:
            line = next((l for l in stderr.splitlines() if TRAP.search(l)), m.group(0))
            problems.append(("trap", line.strip()[:200]))
        # The error line.
        lines = [l for l in stderr.replace("\r", "\n").split("\n") if l.strip()]
        # An output on standard output (`-`, a name of descriptor 1, or the very file or device
        # standard output is) sends the report to stderr, before any error line.
        stdout_file = {"file": "out.txt", "full": "/dev/full"}.get(spec["stdout"])
        to_stdout = any(a in ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1") or a.endswith("=-")
                        or (stdout_file and (a == stdout_file or a.endswith("=" + stdout_file)))
                        or a.endswith("=/dev/stdout") for a in argv)
        if not killed and rc != 0 and rc >= 0 and not (rc == 141 and spec["stdout"] == "closed"):
            errors = [i for i, l in enumerate(lines) if l.startswith("fathom: ")]
            others = [l for i, l in enumerate(lines) if i not in errors and not SIDE_LINE.match(l)]
            if cancelled:
                want = f"fathom: cancelled ({SIGNAMES.get(rc - 128, '')})"
                if not lines or lines[-1] != want or len(errors) != 1:
                    problems.append(("cancel-message", f"exit {rc}: stderr is not one line '{want}'"))
            elif len(errors) != 1 or errors[0] != len(lines) - 1 or (others and not to_stdout):
                newline_in_argv = any("\n" in a or "\r" in a for a in argv)
                kind = "stderr-multiline-echo" if newline_in_argv else "stderr-format"
                problems.append((kind, f"exit {rc}: stderr is not one 'fathom: ' line ({len(lines)} lines, {len(errors)} 'fathom: ')"))
        if any(l.count("(see '") > 1 for l in lines):
            problems.append(("message-format", "an error line with two \"(see '...')\" hints"))
        if rc == 0 and any(l.startswith("fathom: ") for l in lines):
            problems.append(("error-line-on-success", "exit 0 with a 'fathom: ' line on stderr"))
        # Temporary files.
        if not killed and not quit_death and not crashed:
            left = sorted(os.listdir(tmpdir)) if os.path.isdir(tmpdir) else []
            if left:
                problems.append(("tmpdir-leftover", f"left in TMPDIR: {left[:3]}"))
        after = snapshot(scratch)
        if not killed and not quit_death and not crashed:
            tmps = sorted(p for p in after if p.endswith(".tmp") and p not in self.template)
            if tmps:
                problems.append(("tmp-leftover", f"temporary files left: {tmps[:3]}"))
        if "PWNED" in after or os.path.exists(os.path.join(self.base, "PWNED")):
            problems.append(("shell-injection", "a file PWNED was created: an argument reached a shell"))
        # The fixtures: inputs never change; nothing changes on a failure; modes and links are kept.
        inputs = self.resolve(scratch, self.inputs_of(spec))
        outputs = self.resolve(scratch, [o for o in spec["outputs"] if o in argv or any(a.endswith("=" + o) for a in argv)])
        for rel, old in sorted(self.template.items()):
            new = after.get(rel)
            if new == old:
                continue
            what = "removed" if new is None else ("mode %o -> %o" % (old[1], new[1]) if new[:1] == old[:1] and new[2] == old[2]
                                                  else f"{old[0]} -> {new[0]}" if new[0] != old[0] else "bytes changed")
            if old[0] == "dir" and new and new[0] == "dir" and new[1] == old[1]:
                continue
            if rel in inputs:
                kind = "input-overwritten" if rel in outputs else "input-changed"
                problems.append((kind, f"input {rel}: {what}"))
            elif rc != 0 and not (rc in (74, 141) and rel in outputs):
                problems.append(("fixture-changed-on-failure", f"{rel}: {what} (exit {rc})"))
            elif old[0] == "link" and (new is None or new[0] != "link"):
                problems.append(("link-replaced", f"{rel}: a symbolic link was replaced ({what})"))
            elif new and new[0] == old[0] == "file" and new[1] != old[1]:
                problems.append(("mode-not-kept", f"{rel}: {what}"))
        # A failed command leaves nothing new (a sequence keeps the frames it finished).
        # (Exit 74 or 141: the report on stdout failed after the outputs were committed.)
        if rc not in (0, 74, 141) and not killed and not quit_death and not crashed and cmd != "sequence":
            new = sorted(p for p, v in after.items() if p not in self.template and v[0] == "file" and not p.endswith(".tmp"))
            if new:
                problems.append(("output-on-failure", f"exit {rc} but new files: {new[:3]}"))
        if spec["stdout"] == "full" and rc == 0 and cmd in ("presets", "version", "families", "palettes") \
                and spec["argv"][:1] == [cmd]:
            problems.append(("stdout-error-ignored", "exit 0 although its report could not be written (/dev/full)"))
        return problems

    def inputs_of(self, spec):
        """The paths the command reads: the values of input options and its input positionals."""
        cmd = spec["command"]
        table = self.cli.options.get(cmd, {})
        argv = spec["argv"][1:] if spec["argv"][:1] == [cmd] else spec["argv"]
        names = {"location", "gradient", "load-reference", "load-references", "expmap"} | ({"frames"} if cmd == "video" else set())
        found, positionals, i = [], [], 0
        while i < len(argv):
            a = argv[i]
            i += 1
            if a.startswith("--"):
                name, eq, value = a[2:].partition("=")
                if table.get(name) == "value":
                    if not eq:
                        if i >= len(argv):
                            break
                        value = argv[i]
                        i += 1
                    if name in names:
                        found.append(value)
                continue
            positionals.append(a)
        count = {"verify": len(positionals), "info": 1, "convert": 1, "sequence": len(positionals)}.get(cmd, 0)
        return found + positionals[:count]

    def resolve(self, scratch, paths):
        """The fixtures (relative paths) that paths name, through links and into folders."""
        real = {}
        for rel in self.template:
            real.setdefault(os.path.realpath(os.path.join(scratch, rel)), set()).add(rel)
        names = set()
        for p in paths:
            if not p or p.startswith("/"):
                continue
            r = os.path.realpath(os.path.join(scratch, p))
            names |= real.get(r, set())
            names |= {rel for rel in self.template if os.path.realpath(os.path.join(scratch, rel)).startswith(r + os.sep)}
        return names

    # -- reporting ---------------------------------------------------------------------------

    def record(self, result, scratch):
        spec = result["spec"]
        n, cmd, rc = spec["n"], spec["command"], result["rc"]
        repro = self.repro(spec)
        with self.lock:
            self.runs += 1
            key = (cmd, "slow" if result["slow"] else rc)
            self.codes[key] = self.codes.get(key, 0) + 1
            last = [l for l in result["stderr"].splitlines() if l.startswith("fathom: ")]
            if last:
                k = (cmd, rc, normalise(last[-1]))
                self.messages[k] = self.messages.get(k, 0) + 1
            if result["slow"]:
                self.slow.append(f"slow: {cmd} ran past {self.args.timeout:g} s (exit {rc} after SIGINT) | {repro}")
            for kind, detail in result["problems"]:
                message = next((l for l in result["stderr"].splitlines() if l.startswith("fathom: ")), "")
                if kind in ("crash", "trap"):
                    message = detail
                cls = f"{kind} | {cmd} | {normalise(message) if kind not in ('stderr-multiline-echo',) else ''}"
                first = message if kind not in ("crash", "trap") else next(
                    (l for l in result["stderr"].splitlines() if l.strip()), "")
                line = f"[{kind}] {cmd}: {detail} | stderr: {first[:160]!r} | {repro}"
                self.findings.append((cls, line))
                self.findings_file.write(line + "\n")
                self.findings_file.flush()
                entry = self.classes.setdefault(cls, [0, line])
                entry[0] += 1
                if entry[0] == 1:
                    print("FINDING " + line, flush=True)
                    keep = os.path.join(self.args.out, "runs", f"{n}")
                    if not os.path.exists(keep):
                        os.makedirs(keep)
                        json.dump({"seed": self.args.seed, "run": n, "argv": spec["argv"], "stdout_mode": spec["stdout"],
                                   "signal": spec["signal"] and [int(spec["signal"][0]), spec["signal"][1]],
                                   "env": spec["env"], "exit": rc, "sent": [int(s) for s in result["sent"]],
                                   "problems": result["problems"]}, open(os.path.join(keep, "run.json"), "w"), indent=1)
                        open(os.path.join(keep, "stderr"), "w").write(result["stderr"])

    def repro(self, spec):
        extra = []
        if spec["stdout"] != "pipe":
            extra.append({"file": "> out.txt", "full": "> /dev/full", "closed": "| true"}[spec["stdout"]])
        if spec["signal"]:
            extra.append(f"(then {SIGNAMES[spec['signal'][0]]} after {spec['signal'][1]:.2f} s)")
        env = "".join(f"{k}={shlex.quote(v)} " for k, v in spec["env"].items())
        return (f"seed {self.args.seed} run {spec['n']}: {env}fathom {q(spec['argv'])}"
                + (" " + " ".join(extra) if extra else ""))

    def show(self, result, scratch):
        spec = result["spec"]
        print(f"run {spec['n']} (seed {self.args.seed}): {q([self.args.fathom] + spec['argv'])}")
        print(f"  stdout: {spec['stdout']}, signal: {spec['signal']}, env: {spec['env']}, sent: {result['sent']}")
        print(f"  exit {result['rc']} in {result['elapsed']:.2f} s{' (slow)' if result['slow'] else ''}")
        print("  stderr: " + (result["stderr"].rstrip().replace("\n", "\n          ") or "(empty)"))
        print(f"  stdout: {result['stdout'][:300]!r}")
        for kind, detail in result["problems"]:
            print(f"  FINDING [{kind}] {detail}")
        print(f"  the run's folder, after the run: {scratch}")

    def summary(self, seconds):
        lines = [f"fathom command-line fuzzer: {self.args.fathom}, seed {self.args.seed}, {self.runs} runs in {seconds:.0f} s,"
                 f" {len(self.findings)} findings in {len(self.classes)} classes, {len(self.slow)} slow runs",
                 f"replay a run: Scripts/cli-fuzz.py --seed {self.args.seed} --replay N (the fixture files are in"
                 f" {os.path.join(self.args.out, 'fixtures')}; the run's folder also has a FIFO 'fifo')", "",
                 "finding classes (count, first occurrence):"]
        for cls, (count, line) in sorted(self.classes.items(), key=lambda kv: -kv[1][0]):
            lines.append(f"  {count:5d}  {line}")
        lines += ["", "slow runs:"] + [f"  {s}" for s in self.slow[:50]]
        lines += ["", "exit codes per command:"]
        for cmd in sorted({c for c, _ in self.codes}):
            codes = sorted(((str(k), v) for (c, k), v in self.codes.items() if c == cmd))
            lines.append(f"  {cmd}: " + ", ".join(f"{k}: {v}" for k, v in codes))
        lines += ["", "most frequent error lines:"]
        for (cmd, rc, m), count in sorted(self.messages.items(), key=lambda kv: -kv[1])[:60]:
            lines.append(f"  {count:5d}  {cmd} exit {rc}: {m}")
        return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description="Fuzzes fathom's command line (Documentation/Reliability.md).")
    ap.add_argument("--seconds", type=float, default=None, help="total time budget (default 60 without --runs)")
    ap.add_argument("--runs", type=int, default=None, help="number of runs")
    ap.add_argument("--seed", type=int, default=None, help="seed (default: from the clock; printed)")
    ap.add_argument("--timeout", type=float, default=20, help="per-run wall-clock limit, then SIGINT (20 s)")
    ap.add_argument("--grace", type=float, default=2, help="seconds a run may take to end after a signal (2)")
    ap.add_argument("--commands", default="", help="comma-separated commands to fuzz (default all)")
    ap.add_argument("--jobs", type=int, default=1, help="runs at once (1)")
    ap.add_argument("--replay", default="", help="comma-separated run numbers to run again verbosely")
    ap.add_argument("--out", default=os.path.join(REPO, ".build", "fuzz-runs", "cli"), help="findings and summary folder")
    ap.add_argument("--try", dest="try_", metavar="ARGS", default="",
                    help="check one command line (shell words, run in a fixture folder), e.g. --try 'convert loc.json loc.json'")
    ap.add_argument("--stdout", default="pipe", choices=["pipe", "file", "full", "closed"], help="stdout for --try")
    ap.add_argument("--list", action="store_true", help="print the learned option table and exit")
    ap.add_argument("--workdir", default=None, help="base folder for the runs' scratch folders (default: a new temporary one)")
    args = ap.parse_args()
    if args.replay or args.try_:
        args.out = os.path.join(args.out, "replay")
    args.fathom = os.path.abspath(os.environ.get("FATHOM", os.path.join(REPO, ".build", "release", "fathom")))
    if not os.access(args.fathom, os.X_OK):
        sys.exit(f"cli-fuzz: {args.fathom} is not an executable (set FATHOM or run 'make release')")
    if args.seed is None:
        args.seed = int(time.time() * 1000) % 1000000007
    if args.seconds is None and args.runs is None:
        args.seconds = 60
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    cli = CommandLine(args.fathom)
    if args.list:
        for c in cli.commands:
            print(f"{c}: " + " ".join(f"--{n}" + ("" if k == "flag" else f" {cli.metavar.get(n, 'VALUE')}")
                                       for n, k in sorted(cli.options[c].items())))
        print(f"presets: {sorted(cli.presets)}\npalettes: {cli.palettes}\nfamilies: {cli.families}")
        return 0
    wanted = [c for c in args.commands.split(",") if c] or cli.commands
    unknown = [c for c in wanted if c not in cli.commands]
    if unknown:
        sys.exit(f"cli-fuzz: unknown command(s) {unknown}; fathom has {cli.commands}")
    args.commands = wanted
    base = args.workdir or tempfile.mkdtemp(prefix="fathom-cli-fuzz-")
    os.makedirs(base, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    shutil.rmtree(os.path.join(args.out, "runs"), ignore_errors=True)
    fixtures_dir = os.path.join(base, "fixtures")
    shutil.rmtree(fixtures_dir, ignore_errors=True)
    fixtures = make_fixtures(args.fathom, fixtures_dir)
    shutil.rmtree(os.path.join(args.out, "fixtures"), ignore_errors=True)
    shutil.copytree(fixtures_dir, os.path.join(args.out, "fixtures"), symlinks=True)
    fuzzer = Fuzzer(args, cli, fixtures_dir, fixtures, base)
    options = sum(len(t) for t in cli.options.values())
    print(f"cli-fuzz: {args.fathom}, seed {args.seed}, commands {','.join(wanted)} ({options} options learned),"
          f" {len(fixtures)} fixtures, timeout {args.timeout:g} s, jobs {args.jobs}, work in {base}", flush=True)
    started = time.monotonic()
    if args.try_:
        words = shlex.split(args.try_)
        spec = {"n": 0, "command": words[0] if words else "", "argv": words, "stdout": args.stdout, "signal": None,
                "env": {}, "inputs": [], "outputs": [w for w in words if not w.startswith("--")]}
        fuzzer.run_one(0, verbose=True, spec=spec)
        return 1 if fuzzer.findings else 0
    if args.replay:
        for n in [int(x) for x in args.replay.split(",") if x]:
            fuzzer.run_one(n, verbose=True)
        return 1 if fuzzer.findings else 0
    counter = iter(range(1, 1 << 62))
    counter_lock = threading.Lock()

    def worker():
        while True:
            with counter_lock:
                n = next(counter)
            if args.runs is not None and n > args.runs:
                return
            if args.seconds is not None and time.monotonic() - started > args.seconds:
                return
            try:
                fuzzer.run_one(n)
            except Exception as e:  # the fuzzer's own failure: report it and go on
                print(f"cli-fuzz: run {n}: internal error: {e!r}", file=sys.stderr)
    try:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for _ in range(max(1, args.jobs)):
                pool.submit(worker)
    except KeyboardInterrupt:
        print("cli-fuzz: interrupted", file=sys.stderr)
    elapsed = time.monotonic() - started
    text = fuzzer.summary(elapsed)
    open(os.path.join(args.out, "summary.txt"), "w").write(text)
    fuzzer.findings_file.close()
    print(text.split("\nslow runs:")[0].rstrip())
    print(f"cli-fuzz: {fuzzer.runs} runs, {len(fuzzer.findings)} findings ({len(fuzzer.classes)} classes),"
          f" {len(fuzzer.slow)} slow; {os.path.join(args.out, 'findings.txt')}, summary.txt")
    if not args.workdir:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if fuzzer.findings else 0


if __name__ == "__main__":
    sys.exit(main())
