import Fathom

/// The commands of `fathom`, each with its options (Options.swift): their parsers and help texts
/// derive from these.
enum Commands {
    static let render = CommandSpec(
        "render", summary: "render a view to a PNG file",
        usage: "usage: fathom render [options]",
        groups: [
            OptionGroup(
                "what to render (later options override earlier sources: --location or --preset, then the rest)",
                CLIOption.source + CLIOption.view),
            OptionGroup("image and colour", [CLIOption.size, .supersample] + CLIOption.colour + CLIOption.shading),
            OptionGroup("engine and output", renderEngine),
        ])

    private static let renderEngine: [CLIOption] =
        [CLIOption.output, .bitDepth, .npy, .threads] + CLIOption.device + [CLIOption.guardBits, .path, .reference]
        + CLIOption.perturbation + [CLIOption.saveReference, .loadReference, .verbose, .quiet]

    /// The engine options of a command that renders as render does, named by its help.
    static func asForRender(_ title: String, _ options: [CLIOption]) -> OptionGroup {
        OptionGroup(title, options, shared: "as for render")
    }

    static let verify = CommandSpec(
        "verify", summary: "check the renderer against oracle files (exact MPFR escape data)",
        usage: "usage: fathom verify [options] FILE...",
        about: """
            Renders each oracle file's location at its width x height through the normal render path
            and compares the sampled pixels: n2 and nBig exactly on every stable pixel, smooth within
            1e-6 where the oracle does not mark it unstable. Prints a table per file (mismatches only,
            or every pixel with --all). Exits 1 if any file does not match or cannot be verified.
            """,
        groups: [
            OptionGroup("options", [.sampled, .allPixels]),
            asForRender("engine", [.threads, .guardBits, .reference] + CLIOption.perturbation + CLIOption.device),
        ], positionalInputs: .max)

    static let presets = CommandSpec(
        "presets", summary: "list the built-in views", usage: "usage: fathom presets",
        about: """
            Lists the built-in views: each family's default view, Seahorse and Elephant Valley, and the
            published deep locations (shared/locations). Render one with 'fathom render --preset NAME'.
            """)

    static let families = CommandSpec(
        "families", summary: "list the fractal families with their parameters, ranges and defaults",
        usage: "usage: fathom families",
        about: """
            Lists the fractal families, each with its parameters: the command-line option, the values
            it takes, its default and its key in a location file.
            """)

    static let palettes = CommandSpec(
        "palettes", summary: "list the palettes and the colouring options", usage: "usage: fathom palettes",
        about: """
            Lists the palettes and the colouring options that apply to all of them, with their values,
            defaults and keys in a location file.
            """)

    static let info = CommandSpec(
        "info", summary: "print the location in a .json, .kfr or Fathom PNG file",
        usage: "usage: fathom info [--json] FILE",
        about: """
            Prints the location in FILE: a Fathom location JSON, a Kalles Fraktaler .kfr file, or a
            PNG written by Fathom (its fathom-location chunk): family, center, radius and zoom,
            iterations, size, colouring, engine settings, how it was rendered, and the .kfr keys kept
            but not used.
            """,
        groups: [OptionGroup("options", [.json])], positionalInputs: 1)

    static let convert = CommandSpec(
        "convert", summary: "convert a location between Fathom JSON and Kalles Fraktaler .kfr",
        usage: "usage: fathom convert IN OUT",
        about: """
            Converts a location: IN is a Fathom JSON, .kfr or Fathom PNG; OUT ends in .json (Fathom's
            location file) or .kfr (Re, Im, Zoom, Iterations, then the keys kept from an imported
            .kfr). Julia and Newton views have no .kfr form. OUT is written atomically.
            """, positionalInputs: 1)

    static let sequence = CommandSpec(
        "sequence", summary: "render a zoom-out or the frames between keyframes to numbered PNGs",
        usage: """
            usage: fathom sequence --zoom-out N [--factor F] (--location FILE | --preset NAME) [options]
                   fathom sequence [--per-segment N] KEYFRAME KEYFRAME... [options]
            """,
        about: """
            Renders frames to numbered PNGs (frame-00000.png, ...) in --output-dir. A zoom-out: N
            frames at the location's center with radius r * F^k. Keyframes (location files: JSON,
            .kfr or Fathom PNGs): --per-segment frames from each keyframe to the next, then the last
            keyframe; the radius moves logarithmically, the center in proportion to the radius,
            iterations linearly; family, colour and engine settings snap to the pair's first
            keyframe. Frames that share a center share one reference orbit; on a GPU the orbits and
            approximation tables stay on the device from frame to frame while the center is the same.
            """,
        groups: [
            OptionGroup(
                "options",
                [.location, .preset, .zoomOut, .factor, .perSegment, .frameSlice, .frameSize, .outputFolder, .resume]),
            asForRender(
                "engine and output",
                [.threads, .bitDepth, .quiet, .guardBits, .path, .reference] + CLIOption.perturbation + CLIOption.device
            ),
            OptionGroup(
                "on a cluster (a zoom-out)",
                [.slurm, .tasks, .jobFPS, .submit, .saveReferences, .loadReferences, .sliceOf]),
        ], positionalInputs: .max)

    static let expmap = CommandSpec(
        "expmap", summary: "render the exponential map of a zoom (radius 2 in to the location's) to a file",
        usage: """
            usage: fathom expmap (--location FILE | --preset NAME | view options) [--exr PATH] [--npy PATH]
                                 [--kf-frames DIR] [--width W] [--distance]
            """,
        about: """
            Renders the exponential map of the zoom from radius 2 in to the location's radius: W
            columns of angle around the location's center, counter-clockwise from the positive real
            axis, and H = ceil(W ln(2 / radius) / (2 pi)) rows of log radius with square pixels, row 0
            the outermost (radius 2), the last at the location's radius. The rows render in bands of
            at most one octave of radius, each streamed to the file as it finishes, all against one
            reference orbit (the center's): no choice of reference. Outputs: at least one, all
            written or none.
            """,
        groups: [
            OptionGroup("outputs", [.exr, .mapNPY, .kfFrames]),
            OptionGroup("options", [.mapWidth, .distance]),
            asForRender("view options", CLIOption.source + CLIOption.view),
            asForRender("engine", [.threads, .quiet, .guardBits, .path] + CLIOption.perturbation + CLIOption.device),
        ])

    static let video = CommandSpec(
        "video", summary: "make an MP4 of a frame sequence (with ffmpeg)",
        usage: """
            usage: fathom video --frames DIR [--output OUT.mp4] [--fps F] [--reverse] [--quiet]
                   fathom video --expmap MAP.npy (--location FILE | --preset NAME | view options)
                                [--size WxH] [--zoom-speed Z | --duration S] [--fps F] [--output OUT.mp4]
            """,
        about: """
            Makes an H.264 MP4 of the frames frame-00000.png, frame-00001.png, ... in DIR (as 'fathom
            sequence' writes them: numbered from 0 without a gap, all one size), in that order or with
            --reverse backwards. The ffmpeg program (Debian's ffmpeg) encodes it; without it the
            command exits 69 before any work. The MP4 is complete or absent. A progress bar with the
            time left is shown on a terminal.

            With --expmap: a zoom from radius 2 in to the location's radius, each frame reprojected
            from the map 'fathom expmap --npy' rendered for that location (same view options),
            bilinearly, coloured with the location's colours; the map stops at the location's radius,
            so the frames' inner disc comes from a flat render of the location at the frame size (the
            last frame is that render). The map's frames take no --boundary, --slope or --trap.
            """,
        groups: [
            OptionGroup("options", [.frameFolder, .expmap, .videoOutput, .fps, .reverse, .quiet]),
            OptionGroup("options of --expmap", [.videoSize, .zoomSpeed, .duration]),
            asForRender("view (with --expmap)", CLIOption.source + CLIOption.view),
            asForRender("colour (with --expmap)", CLIOption.colour),
            asForRender(
                "engine (with --expmap: the flat render)",
                [.threads, .guardBits, .path, .reference] + CLIOption.perturbation + CLIOption.device),
        ])

    static let find = CommandSpec(
        "find", summary: "find the minibrot that dominates a view, or descend to a chosen depth",
        usage: """
            usage: fathom find [--location FILE | --preset NAME] [view options] [--depth R [--fraction F]]
                               [--save FILE] [--render PNG [--size WxH] [--threads N]] [--quiet]
            """,
        about: """
            Finds the minibrot that dominates the view (Mandelbrot): its period (the first n whose
            disc around the center, mapped to first order, contains 0), its nucleus by Newton's method
            in MPFR, and its size estimate, and prints the location that shows it (its nucleus at the
            center, radius 4 x size, at least 100 periods of iterations). With --depth R it descends:
            zoom F of the way (in log radius) towards the minibrot, find the next, deeper one around
            it, and repeat until the minibrot's radius is below R. The location's family must be
            Mandelbrot.
            """,
        groups: [
            OptionGroup("options", [.depth, .fraction, .save, .renderImage, .renderSize, .renderThreads, .quiet]),
            asForRender("view options", [.location, .preset, .center, .re, .im, .radius, .zoom, .iterations]),
        ])

    static let explore = CommandSpec(
        "explore", summary: "explore deep zooms in the browser: a local server for the page",
        usage: "usage: fathom explore [--port N] [--bind ADDRESS] [--backend B] [--threads N]",
        about: """
            Serves the explorer on this machine and prints its URL, which holds a random token every
            request must carry; open it in a browser. Drag pans, the wheel zooms at the cursor, a
            double click centres; each view is rendered as 'fathom render' renders it (the same
            field), coarse first, then in full. Runs until interrupted (Ctrl-C). Needs GNU
            libmicrohttpd at run time (Debian: libmicrohttpd12). See Documentation/Explorer.md.
            """,
        groups: [
            OptionGroup("options", [.port, .bind]),
            asForRender("engine", [.threads] + CLIOption.device),
        ])

    static let version = CommandSpec(
        "version", summary: "print the version", usage: "usage: fathom version",
        about: "Prints Fathom's version and the MPFR library's.")

    /// Every command, in the order `fathom help` lists them.
    static let all = [
        render, find, explore, sequence, expmap, video, verify, presets, info, convert, families, palettes, version,
    ]

    /// `fathom help`'s text: the commands and the exit codes.
    static var overview: String {
        let list = all.map { "  " + pad($0.name, 11) + $0.summary }
        return """
            fathom: deep-zoom escape-time fractal renderer

            usage: fathom <command> [options]

            commands:
            \(list.joined(separator: "\n"))
              help       this text, or 'fathom help <command>'

            'fathom <command> --help' describes a command. Exit codes: 0 ok, 64 usage, 65 bad data,
            66 cannot open input, 69 a program it needs is missing (ffmpeg), 73 cannot create output,
            74 cannot write standard output, 1 other (mismatch, view too deep), 128+N cancelled by
            signal N (130 for Ctrl-C).
            """
    }

    /// The help for `topic`: a command's, or the overview for `help`; nil for an unknown topic.
    static func help(for topic: String) -> String? {
        topic == "help" ? overview : all.first { $0.name == topic }?.help
    }
}
