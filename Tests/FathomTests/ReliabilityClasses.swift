// Rows of Documentation/Reliability.md for the classes of the second hostile review: every input
// option against what may stand at its path, outputs that are inputs, descriptors, standard output
// kept for data, checks before any work, scripts, one-line errors and reference orbits. Each class
// has its rule in the code (Reliability.md, "Rules"); these rows would catch a new member of it.

let classSituations: [Situation] =
    [
        Situation(
            label: "input FIFO: render --location",
            args: ["render", "--location", "in", "--size", "16x9", "--iterations", "50"], code: 66, message: "FIFO",
            setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: render --location",
            args: ["render", "--location", "in", "--size", "16x9", "--iterations", "50"], code: 66, message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: render --location",
            args: ["render", "--location", "in", "--size", "16x9", "--iterations", "50"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(
            label: "input missing: render --location",
            args: ["render", "--location", "in", "--size", "16x9", "--iterations", "50"], code: 66),
        Situation(
            label: "input FIFO: render --gradient",
            args: ["render", "--gradient", "in", "--size", "16x9", "--iterations", "50"], code: 66, message: "FIFO",
            setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: render --gradient",
            args: ["render", "--gradient", "in", "--size", "16x9", "--iterations", "50"], code: 66, message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: render --gradient",
            args: ["render", "--gradient", "in", "--size", "16x9", "--iterations", "50"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(
            label: "input missing: render --gradient",
            args: ["render", "--gradient", "in", "--size", "16x9", "--iterations", "50"], code: 66),
        Situation(
            label: "input FIFO: render --load-reference",
            args: ["render", "--preset", "e50", "--size", "16x9", "--load-reference", "in"], code: 66, message: "FIFO",
            setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: render --load-reference",
            args: ["render", "--preset", "e50", "--size", "16x9", "--load-reference", "in"], code: 66,
            message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: render --load-reference",
            args: ["render", "--preset", "e50", "--size", "16x9", "--load-reference", "in"], code: 66,
            message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(
            label: "input missing: render --load-reference",
            args: ["render", "--preset", "e50", "--size", "16x9", "--load-reference", "in"], code: 66),
        Situation(
            label: "input FIFO: video --expmap",
            args: ["video", "--expmap", "in", "--preset", "seahorse", "--size", "16x16"], code: 66, message: "FIFO",
            setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: video --expmap",
            args: ["video", "--expmap", "in", "--preset", "seahorse", "--size", "16x16"], code: 66, message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: video --expmap",
            args: ["video", "--expmap", "in", "--preset", "seahorse", "--size", "16x16"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(
            label: "input missing: video --expmap",
            args: ["video", "--expmap", "in", "--preset", "seahorse", "--size", "16x16"], code: 66),
        Situation(
            label: "input FIFO: info", args: ["info", "in"], code: 66, message: "FIFO", setup: [.fifo("in")],
            checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: info", args: ["info", "in"], code: 66, message: "folder", setup: [.folder("in")]),
        Situation(
            label: "input device: info", args: ["info", "in"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(label: "input missing: info", args: ["info", "in"], code: 66),
        Situation(
            label: "input FIFO: convert", args: ["convert", "in", "out.json"], code: 66, message: "FIFO",
            setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: convert", args: ["convert", "in", "out.json"], code: 66, message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: convert", args: ["convert", "in", "out.json"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(label: "input missing: convert", args: ["convert", "in", "out.json"], code: 66),
        Situation(
            label: "input FIFO: verify", args: ["verify", "in"], code: 66, message: "FIFO", setup: [.fifo("in")],
            checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: verify", args: ["verify", "in"], code: 66, message: "folder", setup: [.folder("in")]),
        Situation(
            label: "input device: verify", args: ["verify", "in"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(label: "input missing: verify", args: ["verify", "in"], code: 66),
        Situation(
            label: "input FIFO: sequence keyframes",
            args: ["sequence", "in", "in", "--size", "8x8", "--output-dir", "frames"], code: 66, message: "FIFO",
            setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: sequence keyframes",
            args: ["sequence", "in", "in", "--size", "8x8", "--output-dir", "frames"], code: 66, message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: sequence keyframes",
            args: ["sequence", "in", "in", "--size", "8x8", "--output-dir", "frames"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(
            label: "input missing: sequence keyframes",
            args: ["sequence", "in", "in", "--size", "8x8", "--output-dir", "frames"], code: 66),
        Situation(
            label: "input FIFO: find --location", args: ["find", "--location", "in"], code: 66, message: "FIFO",
            setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: find --location", args: ["find", "--location", "in"], code: 66, message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: find --location", args: ["find", "--location", "in"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(label: "input missing: find --location", args: ["find", "--location", "in"], code: 66),
        Situation(
            label: "input FIFO: expmap --location",
            args: ["expmap", "--location", "in", "--width", "8", "--npy", "o.npy"],
            code: 66, message: "FIFO", setup: [.fifo("in")], checks: [.stillFIFO("in")]),
        Situation(
            label: "input folder: expmap --location",
            args: ["expmap", "--location", "in", "--width", "8", "--npy", "o.npy"], code: 66, message: "folder",
            setup: [.folder("in")]),
        Situation(
            label: "input device: expmap --location",
            args: ["expmap", "--location", "in", "--width", "8", "--npy", "o.npy"], code: 66, message: "device",
            setup: [.device("in", major: 1, minor: 3)], checks: [.stillDevice("in")]),
        Situation(
            label: "input missing: expmap --location",
            args: ["expmap", "--location", "in", "--width", "8", "--npy", "o.npy"], code: 66),
        Situation(
            label: "input FIFO: video --frames", args: ["video", "--frames", "in"], code: 66, setup: [.fifo("in")],
            checks: [.stillFIFO("in")]),
        Situation(label: "input missing: video --frames", args: ["video", "--frames", "in"], code: 66),
        Situation(
            label: "frame that is a FIFO", args: ["video", "--frames", "f"], code: 66, message: "FIFO",
            setup: [
                .run(["sequence", "--zoom-out", "2", "--size", "8x8", "--output-dir", "f", "--quiet"]),
                .fifo("f/frame-00002.png"),
            ]),
        Situation(
            label: "convert onto its own input", args: ["convert", "loc.json", "loc.json"], code: 64, message: "input",
            files: ["loc.json": plain]),
        Situation(
            label: "convert onto its input by another name", args: ["convert", "loc.json", "./loc.json"], code: 64,
            message: "input", files: ["loc.json": plain]),
        Situation(
            label: "convert onto its input through a link", args: ["convert", "loc.json", "link.json"], code: 64,
            message: "input", files: ["loc.json": plain], setup: [.symlink("link.json", to: "loc.json")]),
        Situation(
            label: "render over its location file",
            args: ["render", "--location", "loc.json", "--output", "loc.json", "--size", "16x9", "--iterations", "50"],
            code: 64, message: "input", files: ["loc.json": plain]),
        Situation(
            label: "render's NumPy file over its location file",
            args: ["render", "--location", "loc.json", "--npy", "loc.json", "--size", "16x9", "--iterations", "50"],
            code: 64, message: "input", files: ["loc.json": plain]),
        Situation(
            label: "render's NumPy file over its gradient",
            args: ["render", "--gradient", "g.txt", "--npy", "g.txt", "--size", "16x9", "--iterations", "50"], code: 64,
            message: "input", files: ["g.txt": "0 000764\n0.5 ffffff\n"]),
        Situation(
            label: "render's image over its gradient",
            args: ["render", "--gradient", "g.txt", "--output", "g.txt", "--size", "16x9", "--iterations", "50"],
            code: 64,
            message: "input", files: ["g.txt": "0 000764\n0.5 ffffff\n"]),
        Situation(
            label: "reference orbit saved over the one loaded",
            args: [
                "render", "--preset", "e50", "--size", "16x9", "--load-reference", "r.orbit", "--save-reference",
                "r.orbit",
            ], code: 64, message: "input",
            setup: [
                .run([
                    "render", "--preset", "e50", "--size", "16x9", "--save-reference", "r.orbit", "--output", "e.png",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "video over its map",
            args: ["video", "--expmap", "m.npy", "--preset", "seahorse", "--size", "16x16", "--output", "m.npy"],
            code: 64,
            message: "input",
            setup: [
                .run([
                    "expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "m.npy",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "video over one of its frames", args: ["video", "--frames", "f", "--output", "f/frame-00000.png"],
            code: 64, message: "input",
            setup: [.run(["sequence", "--zoom-out", "2", "--size", "8x8", "--output-dir", "f", "--quiet"])]),
        Situation(
            label: "map over its location file",
            args: ["expmap", "--location", "loc.json", "--width", "8", "--npy", "loc.json"], code: 64, message: "input",
            files: ["loc.json": plain]),
        Situation(
            label: "find's saved view over its location file",
            args: ["find", "--location", "loc.json", "--save", "loc.json"], code: 64, message: "input",
            files: ["loc.json": plain]),
        Situation(
            label: "find's image over its location file",
            args: ["find", "--location", "loc.json", "--render", "loc.json"],
            code: 64, message: "input", files: ["loc.json": plain]),
        Situation(
            label: "render's image through standard output onto its location file",
            args: [
                "render", "--location", "loc.json", "--output", "/dev/stdout", "--size", "16x9", "--iterations", "50",
            ],
            code: 64, message: "same file as the input", files: ["loc.json": plain], standardOutputDevice: "loc.json"),
        Situation(
            label: "output /dev/stdout appends to a file",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "/dev/stdout"], code: 0,
            setup: [.file("log.txt", "precious\n", mode: 0o644)],
            checks: [.appended("log.txt", prefix: "precious\n", magic: pngMagic)], standardOutputDevice: "log.txt"),
        Situation(
            label: "output /dev/fd/1 appends to a file",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "/dev/fd/1"], code: 0,
            setup: [.file("log.txt", "precious\n", mode: 0o644)],
            checks: [.appended("log.txt", prefix: "precious\n", magic: pngMagic)], standardOutputDevice: "log.txt"),
        Situation(
            label: "output /proc/self/fd/1 appends to a file",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "/proc/self/fd/1"], code: 0,
            setup: [.file("log.txt", "precious\n", mode: 0o644)],
            checks: [.appended("log.txt", prefix: "precious\n", magic: pngMagic)], standardOutputDevice: "log.txt"),
        Situation(
            label: "NumPy file to /dev/stdout appends",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "o.png", "--npy", "/dev/stdout"],
            code: 0,
            setup: [.file("log.txt", "precious\n", mode: 0o644)],
            checks: [.appended("log.txt", prefix: "precious\n", magic: npyMagic), .png("o.png", mode: 0o666)],
            standardOutputDevice: "log.txt"),
        Situation(
            label: "map to /dev/stdout appends",
            args: ["expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "/dev/stdout"],
            code: 0, setup: [.file("log.txt", "precious\n", mode: 0o644)],
            checks: [.appended("log.txt", prefix: "precious\n", magic: npyMagic)], standardOutputDevice: "log.txt"),
        Situation(
            label: "video to /dev/stdout appends", args: ["video", "--frames", "f", "--output", "/dev/stdout"], code: 0,
            setup: [
                .run(["sequence", "--zoom-out", "2", "--size", "8x8", "--output-dir", "f", "--quiet"]),
                .file("log.txt", "precious\n", mode: 0o644),
            ], checks: [.appended("log.txt", prefix: "precious\n", magic: mp4Magic)], standardOutputDevice: "log.txt"),
        Situation(
            label: "output to a descriptor that is not open",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "/dev/fd/1000"], code: 73,
            message: "not open"
        ),
        Situation(
            label: "output to another process's descriptor",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "/proc/1/fd/1"], code: 73,
            message: "another process"),
        Situation(
            label: "output to a descriptor the process opened itself",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "/proc/self/fd/0"], code: 73),
        Situation(
            label: "standard output given twice",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "-", "--npy", "/dev/stdout"], code: 64,
            message: "same file", setup: [.file("out.bin", "", mode: 0o644)], standardOutputDevice: "out.bin"),
        Situation(
            label: "image on standard output, report kept off it",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "-"], code: 0,
            setup: [.file("out.bin", "", mode: 0o644)],
            checks: [.appended("out.bin", prefix: "", magic: pngMagic)],
            standardOutputDevice: "out.bin"),
        Situation(
            label: "map on standard output, report kept off it",
            args: ["expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "-"], code: 0,
            setup: [.file("out.bin", "", mode: 0o644)], checks: [.appended("out.bin", prefix: "", magic: npyMagic)],
            standardOutputDevice: "out.bin"),
        Situation(
            label: "video on standard output, report kept off it", args: ["video", "--frames", "f", "--output", "-"],
            code: 0,
            setup: [
                .run(["sequence", "--zoom-out", "2", "--size", "8x8", "--output-dir", "f", "--quiet"]),
                .file("out.bin", "", mode: 0o644),
            ], checks: [.appended("out.bin", prefix: "", magic: mp4Magic)], standardOutputDevice: "out.bin"),
        Situation(
            label: "find's image on standard output, report kept off it",
            args: ["find", "--preset", "seahorse", "--render", "-", "--size", "16x9"], code: 0,
            setup: [.file("out.bin", "", mode: 0o644)], checks: [.appended("out.bin", prefix: "", magic: pngMagic)],
            standardOutputDevice: "out.bin"),
        Situation(
            label: "families to a full standard output", args: ["families"], code: 74, message: "standard output",
            files: ["loc.json": plain], setup: [.device("full", major: 1, minor: 7)], standardOutputDevice: "full"),
        Situation(
            label: "palettes to a full standard output", args: ["palettes"], code: 74, message: "standard output",
            files: ["loc.json": plain], setup: [.device("full", major: 1, minor: 7)], standardOutputDevice: "full"),
        Situation(
            label: "help to a full standard output", args: ["help"], code: 74, message: "standard output",
            files: ["loc.json": plain], setup: [.device("full", major: 1, minor: 7)], standardOutputDevice: "full"),
        Situation(
            label: "help of a command to a full standard output", args: ["help", "render"], code: 74,
            message: "standard output", files: ["loc.json": plain], setup: [.device("full", major: 1, minor: 7)],
            standardOutputDevice: "full"),
        Situation(
            label: "info to a full standard output", args: ["info", "loc.json"], code: 74, message: "standard output",
            files: ["loc.json": plain], setup: [.device("full", major: 1, minor: 7)], standardOutputDevice: "full"),
        Situation(
            label: "info --json to a full standard output", args: ["info", "--json", "loc.json"], code: 74,
            message: "standard output", files: ["loc.json": plain], setup: [.device("full", major: 1, minor: 7)],
            standardOutputDevice: "full"),
        Situation(
            label: "verify's help to a full standard output", args: ["verify", "--help"], code: 74,
            message: "standard output", files: ["loc.json": plain], setup: [.device("full", major: 1, minor: 7)],
            standardOutputDevice: "full"),
        Situation(
            label: "image to a full standard output",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "-"], code: 74,
            message: "standard output",
            setup: [.device("full", major: 1, minor: 7)], standardOutputDevice: "full"),
        Situation(
            label: "video of a map that is not NumPy",
            args: ["video", "--expmap", "t.npy", "--preset", "seahorse", "--size", "16x16"], code: 65,
            message: "not a NumPy", files: ["t.npy": "hello"]),
        Situation(
            label: "video of a truncated map",
            args: ["video", "--expmap", "t.npy", "--preset", "seahorse", "--size", "16x16"], code: 65,
            message: "not an exponential map", files: ["t.npy": "\u{93}NUMPY"]),
        Situation(
            label: "video of a map of another view",
            args: ["video", "--expmap", "m.npy", "--preset", "e50", "--size", "16x16"], code: 65, message: "rows",
            setup: [
                .run([
                    "expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "m.npy",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "video of a Newton map",
            args: ["video", "--expmap", "n.npy", "--preset", "seahorse", "--size", "16x16"], code: 65,
            message: "not Fathom's iteration data",
            setup: [.run(["expmap", "--preset", "newton", "--width", "8", "--npy", "n.npy", "--quiet"])]),
        Situation(
            label: "Newton map", args: ["expmap", "--preset", "newton", "--width", "16", "--npy", "n.npy"], code: 0),
        Situation(
            label: "video zoom speed 1e-300",
            args: ["video", "--expmap", "m.npy", "--preset", "seahorse", "--size", "32x18", "--zoom-speed", "1e-300"],
            code: 65, message: "frames, more than",
            setup: [
                .run([
                    "expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "m.npy",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "video zoom speed 1e-9",
            args: ["video", "--expmap", "m.npy", "--preset", "seahorse", "--size", "32x18", "--zoom-speed", "1e-9"],
            code: 65, message: "frames, more than",
            setup: [
                .run([
                    "expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "m.npy",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "video zoom speed not finite",
            args: ["video", "--expmap", "m.npy", "--preset", "seahorse", "--size", "32x18", "--zoom-speed", "inf"],
            code: 65, message: "not a number",
            setup: [
                .run([
                    "expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "m.npy",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "video duration too short",
            args: ["video", "--expmap", "m.npy", "--preset", "seahorse", "--size", "32x18", "--duration", "1e-300"],
            code: 65,
            setup: [
                .run([
                    "expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "m.npy",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "video frame rate out of range",
            args: ["video", "--expmap", "m.npy", "--preset", "seahorse", "--size", "32x18", "--fps", "1e-300"],
            code: 65,
            setup: [
                .run([
                    "expmap", "--preset", "seahorse", "--width", "8", "--iterations", "100", "--npy", "m.npy",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "map distances of a Newton view",
            args: ["expmap", "--preset", "newton", "--exr", "m.exr", "--distance"], code: 64, message: "Newton"),
        Situation(
            label: "find's image of size zero",
            args: ["find", "--preset", "seahorse", "--depth", "1e-30", "--render", "m.png", "--size", "0x0"], code: 65,
            message: "size"),
        Situation(
            label: "find's size without an image", args: ["find", "--preset", "seahorse", "--size", "64x36"], code: 64,
            message: "--render"),
        Situation(
            label: "find's negative threads",
            args: ["find", "--preset", "seahorse", "--render", "m.png", "--threads", "-1"], code: 65, message: "threads"
        ),
        Situation(
            label: "jobs folder with a newline",
            args: [
                "sequence", "--zoom-out", "3", "--preset", "seahorse", "--size", "8x8", "--slurm",
                "jobs\ntouch PWNED\n#",
            ], code: 64, message: "control character"),
        Situation(
            label: "jobs folder with a tab",
            args: ["sequence", "--zoom-out", "3", "--preset", "seahorse", "--size", "8x8", "--slurm", "jobs\tx"],
            code: 64,
            message: "control character"),
        Situation(
            label: "jobs folder with an escape",
            args: [
                "sequence", "--zoom-out", "3", "--preset", "seahorse", "--size", "8x8", "--slurm", "jobs\u{1b}[31m",
            ],
            code: 64, message: "control character"),
        Situation(
            label: "unknown preset with a newline", args: ["render", "--preset", "a\nb"], code: 64,
            message: "unknown preset"),
        Situation(label: "input name with a newline", args: ["info", "a\nb"], code: 66),
        Situation(label: "engine value with a carriage return", args: ["render", "--delta", "x\r"], code: 64),
        Situation(
            label: "reference orbit of another view",
            args: [
                "render", "--preset", "flake", "--radius", "2e-50", "--iterations", "263010", "--size", "16x9",
                "--load-reference", "r.orbit",
            ], code: 65, message: "lies",
            setup: [
                .run([
                    "render", "--preset", "e50", "--size", "16x9", "--save-reference", "r.orbit", "--output", "e.png",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "reference orbit loaded for a direct view",
            args: ["render", "--size", "16x9", "--iterations", "50", "--load-reference", "r.orbit"], code: 65,
            message: "takes no reference orbit",
            setup: [
                .run([
                    "render", "--preset", "e50", "--size", "16x9", "--save-reference", "r.orbit", "--output", "e.png",
                    "--quiet",
                ])
            ]),
        Situation(
            label: "UTF-8 name round trip", args: ["info", "u.png"], code: 0,
            files: ["u.json": locationJSON(extra: #", "name": "Mandelbröt ☃""#)],
            setup: [.run(["render", "--location", "u.json", "--output", "u.png", "--size", "8x8", "--quiet"])],
            checks: [.standardOutput("name: Mandelbröt ☃")]),
        Situation(
            label: "gradient reported by info", args: ["info", "g.png"], code: 0,
            files: ["g.txt": "0 000764\n0.5 ffffff\n"],
            setup: [.run(["render", "--gradient", "g.txt", "--output", "g.png", "--size", "8x8", "--quiet"])],
            checks: [.standardOutput("colour: gradient of 2 stops")]),
        Situation(
            label: "image on a pipe, report kept off it",
            args: ["render", "--size", "16x9", "--iterations", "50", "--output", "/dev/stdout"],
            code: 0, checks: [.onlyOnStandardOutput(magic: pngMagic)]),
        Situation(
            label: "find's image on a pipe, report kept off it",
            args: ["find", "--preset", "seahorse", "--render", "-", "--size", "16x9"],
            code: 0, checks: [.onlyOnStandardOutput(magic: pngMagic)]),

        // Oracle files that do not hold together: one line and 65 before any render (a center of
        // one coordinate, pixels outside the image trapped or read the wrong pixel).
    ] + oracleSituations

/// An oracle file for `verify` with the given center and one pixel at (x, y).
func oracle(center: String, x: Int, y: Int) -> String {
    """
    {"name": "t", "family": "mandelbrot", "power": 2, "center": \(center), "radius": "2", "width": 8,
     "height": 4, "maxIterations": 50, "precisionBits": 64,
     "pixels": [{"x": \(x), "y": \(y), "n2": 1, "nBig": 3, "unstable": false, "smoothUnstable": false}]}
    """
}

let oracleSituations: [Situation] = [
    Situation(
        label: "oracle with one center coordinate", args: ["verify", "o.json"], code: 65, message: "center",
        files: ["o.json": oracle(center: #"["0"]"#, x: 0, y: 0)]),
    Situation(
        label: "oracle pixel past the row's end", args: ["verify", "o.json"], code: 65, message: "outside",
        files: ["o.json": oracle(center: #"["0", "0"]"#, x: 9, y: 0)]),
    Situation(
        label: "oracle pixel at a negative column", args: ["verify", "o.json"], code: 65, message: "outside",
        files: ["o.json": oracle(center: #"["0", "0"]"#, x: -5, y: 0)]),
    Situation(
        label: "oracle pixel at a huge row", args: ["verify", "o.json"], code: 65, message: "outside",
        files: ["o.json": oracle(center: #"["0", "0"]"#, x: 0, y: 4_611_686_018_427_387_904)]),
    Situation(
        label: "oracle of a well-formed view", args: ["verify", "o.json"], code: 1, message: "do not match",
        files: ["o.json": oracle(center: #"["0", "0"]"#, x: 0, y: 0)]),
]
