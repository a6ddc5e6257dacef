import Fathom

/// The help texts (Documentation/CLI.md has the same content).
enum Help {
    static func text(for topic: String) -> String? {
        switch topic {
        case "render": render
        case "verify": verify
        case "presets": presets
        case "families": families
        case "info": info
        case "sequence": sequence
        case "expmap": expmap
        case "video": video
        case "find": find
        case "convert": convert
        case "palettes": palettes
        case "help": overview
        case "version": version
        default: nil
        }
    }

    static let overview = """
        fathom: deep-zoom escape-time fractal renderer

        usage: fathom <command> [options]

        commands:
          render     render a view to a PNG file
          find       find the minibrot that dominates a view, or descend to a chosen depth
          sequence   render a zoom-out or the frames between keyframes to numbered PNGs
          expmap     render the exponential map of a zoom (radius 2 in to the location's) to a file
          video      make an MP4 of a frame sequence (with ffmpeg)
          verify     check the renderer against oracle files (exact MPFR escape data)
          presets    list the built-in views
          info       print the location in a .json, .kfr or Fathom PNG file
          convert    convert a location between Fathom JSON and Kalles Fraktaler .kfr
          families   list the fractal families with their parameters, ranges and defaults
          palettes   list the palettes and the colouring options
          help       this text, or 'fathom help <command>'
          version    print the version

        'fathom <command> --help' describes a command. Exit codes: 0 ok, 64 usage, 65 bad data,
        66 cannot open input, 69 a program it needs is missing (ffmpeg), 73 cannot create output,
        74 cannot write standard output, 1 other (mismatch, view too deep), 128+N cancelled by
        signal N (130 for Ctrl-C).
        """

    static let render: String = """
        usage: fathom render [options]

        what to render (later options override earlier sources: --location or --preset, then the rest):
          --location FILE        a location file: Fathom JSON (also oracle files and shared/locations),
                                 Kalles Fraktaler .kfr, or a PNG Fathom wrote
          --preset NAME          a built-in view (see 'fathom presets'); default: the family's view
          --family NAME          \(Catalogue.familyNames.joined(separator: " | ")) (see 'fathom families')
          --center RE,IM         center as decimal strings, |re|, |im| <= 1e10 (or --re RE --im IM)
          --radius R             half the shorter image side, 1e-1000000...1e10 (e.g. 4e-14)
          --zoom Z               instead of --radius: radius = 2 / Z
          --rotation DEG         rotate the view counter-clockwise about its center
          --iterations N         iteration limit, 1...2000000000
          --power P              Multibrot power, \(Family.powerRange.lowerBound)...\(Family.powerRange.upperBound)
          --julia RE,IM          Julia parameter c (implies --family julia)
          --newton POLY          Newton polynomial, e.g. z^3-1, z^4-1, z^3-2z+2 (implies --family newton)

        image and colour:
          --size WxH             pixels, each side 1...32768, at most 100 million in all (default 1280x720)
          --supersample K        K x K samples a pixel (1...4), their colours averaged
          --palette NAME         \(Catalogue.paletteNames.joined(separator: " | ")) (default \(ColorSettings().palette.rawValue); see 'fathom palettes')
          --gradient FILE        a user palette: one colour stop a line, RRGGBB or POSITION RRGGBB
                                 (positions in [0, 1), cyclic, linear in RGB)
          --density X            palette cycles per 32 iterations (linear, log), across the view
                                 (histogram); > 0 (default 1; given alone: scale linear)
          --offset X             palette phase offset in cycles (default 0)
          --smooth on|off        smooth iteration count (default on)
          --color-scale S        auto | linear | log | histogram (default auto: the view's histogram,
                                 4 cycles across it, stored explicitly in the PNG)
          --interior RRGGBB      colour of points that do not escape (default 000000)
          --boundary W           boundary shading: darken within W pixels of the set (distance estimate)
          --slope A[,H[,S]]      slope lighting from angle A degrees, height H (1.5), strength S (0.75)
          --trap point:RE,IM | cross:RE,IM
                                 colour by the orbit's closest approach to a point or cross

        engine and output:
          --output PATH          PNG file (default fathom.png; - for stdout); all outputs written or none
          --bit-depth 8|16       PNG samples of 8 (default) or 16 bits
          --npy PATH             also write the per-pixel data as a NumPy .npy file: a (height,
                                 width) structured array of n2, nBig (uint32), smooth (float64);
                                 with --supersample K every sample, shape (K height, K width)
          --threads N            worker threads, 0 = all cores (default 0)
          --backend B            auto (default: CUDA when a driver loads, else the CPU) | cpu |
                                 cuda (an error without a GPU); see Documentation/GPU.md
          --gpu-exact on|off     CUDA kernels without fused multiply-adds: iteration data equal
                                 to the CPU's bit for bit (default off)
          --guard-bits N         bits kept below the pixel spacing when choosing Double or
                                 double-double (default 40)
          --path P               force double, double-double or perturbation
          --glitches M           perturbation glitch handling: rebase (default) | detect
          --reference R          first reference: auto (default: nucleus where a minibrot dominates
                                 the view, else center; the center's orbit ends at the period
                                 where Newton's method would exceed 60 s, and on a GPU at the
                                 view's first period) | center | probe (longest of a 5x5 probe) |
                                 nucleus (the dominant minibrot's nucleus if in view: never escapes;
                                 one period of it, wrapped, with --glitches rebase)
          --delta T              perturbation deltas: double | double-double | floatexp;
                                 default: by pixel spacing
          --bla on|off           skip iterations by approximation (default on; off: every step)
          --approximation A      la (linear approximation with period detection; the
                                 default) | bla (bilinear approximation) | both (LA at its
                                 entries' starts, BLA between)
          --orbit R              how passes (CPU or GPU) read the reference orbit: auto (the
                                 default: streamed where it has 2^20 steps or more and 256 a
                                 pixel of the pass) | decoded | streamed (from the compressed
                                 orbit, with a lean LA table; decoded where that cannot serve:
                                 Julia, a wrapped reference, BLA levels)
          --bla-epsilon E        BLA's relative error bound per step (default 2^-40)
          --la-epsilon E         LA's relative error bound per linearized step (default 2^-40)
          --precision-passes on|off
                                 render again pixels whose smooth value may miss 1e-7
                                 (default on; off trades that guarantee for speed)
          --coarse-first-pass on|off
                                 where a probe of the image finds it cheaper, a first pass at
                                 2^8 times the epsilons, its pixels at risk again at them
                                 (default on)
          --estimate E           the precision estimate: variance (default; the error's variance
                                 tracked forward) | product (the product of |f'(z)|, faster, but
                                 it misses wrong pixels on rebasing views)
          --mpfr-budget S        CPU seconds those passes may spend iterating pixels in MPFR
                                 (default 30; the cheapest first; the others are reported as not
                                 verified, with --verbose by pixel)
          --save-reference FILE  write the reference orbit (reusable by a later render)
          --load-reference FILE  read the reference orbit instead of computing it
          --verbose, --quiet     more output (the estimate, reference points) or less
        """

    static let verify = """
        usage: fathom verify [--threads N] [--guard-bits N] [--glitches rebase|detect]
                             [--reference auto|center|probe|nucleus] [--delta double|double-double|floatexp]
                             [--bla on|off] [--approximation la|bla|both] [--bla-epsilon E]
                             [--orbit auto|decoded|streamed] [--la-epsilon E] [--mpfr-budget S] [--estimate variance|product]
                             [--precision-passes on|off] [--coarse-first-pass on|off] [--backend auto|cpu|cuda]
                             [--gpu-exact on|off] [--sampled] [--all] FILE...

        Renders each oracle file's location at its width x height through the normal render path
        and compares the sampled pixels: n2 and nBig exactly on every stable pixel, smooth within
        1e-6 where the oracle does not mark it unstable. Prints a table per file (mismatches only,
        or every pixel with --all). --sampled renders only the sampled pixels (same path, much
        faster at extreme depth). Exits 1 if any file does not match or cannot be verified.
        """

    static let presets = """
        usage: fathom presets

        Lists the built-in views: each family's default view, Seahorse and Elephant Valley, and the
        published deep locations (shared/locations). Render one with 'fathom render --preset NAME'.
        """

    static let families = """
        usage: fathom families

        Lists the fractal families, each with its parameters: the command-line option, the values
        it takes, its default and its key in a location file.
        """

    static let palettes = """
        usage: fathom palettes

        Lists the palettes and the colouring options that apply to all of them, with their values,
        defaults and keys in a location file.
        """

    static let info = """
        usage: fathom info [--json] FILE

        Prints the location in FILE: a Fathom location JSON, a Kalles Fraktaler .kfr file, or a
        PNG written by Fathom (its fathom-location chunk): family, center, radius and zoom,
        iterations, size, colouring, engine settings, how it was rendered, and the .kfr keys kept
        but not used. --json prints the whole location file as JSON instead.
        """

    static let convert = """
        usage: fathom convert IN OUT

        Converts a location: IN is a Fathom JSON, .kfr or Fathom PNG; OUT ends in .json (Fathom's
        location file) or .kfr (Re, Im, Zoom, Iterations, then the keys kept from an imported
        .kfr). Julia and Newton views have no .kfr form. OUT is written atomically.
        """

    static let sequence = """
        usage: fathom sequence --zoom-out N [--factor F] (--location FILE | --preset NAME) [options]
               fathom sequence [--per-segment N] KEYFRAME KEYFRAME... [options]

        Renders frames to numbered PNGs (frame-00000.png, ...) in --output-dir (default frames,
        created if its parent exists). A zoom-out: N frames, frame k at the location's center
        with radius r * F^k (F default 2), so frame 0 is the deepest. Keyframes (location files:
        JSON, .kfr or Fathom PNGs): --per-segment frames (default 30) from each keyframe to the
        next, then the last keyframe; the radius moves logarithmically, the center in proportion
        to the radius, iterations linearly; family, colour and engine settings snap to the pair's
        first keyframe. Frames that share a center share one reference orbit.

        options:
          --frames A..B          render frames A to B only (a slice: byte-identical to the same
                                 frames of a full run, so a long sequence can be shared out)
          --size WxH             frame size (default: the location's, else 1280x720)
          --threads N, --bit-depth 8|16, --quiet
          --guard-bits, --path, --glitches, --reference, --delta, --bla, --approximation, --orbit, --bla-epsilon,
          --la-epsilon, --mpfr-budget, --estimate, --precision-passes, --coarse-first-pass,
          --backend, --gpu-exact as for render (on a GPU the orbits and BLA tables stay on the
                                 device from frame to frame while the center is the same)

        on a cluster (a zoom-out):
          --slurm DIR            write Slurm jobs into DIR instead of rendering: reference.sbatch
                                 (the orbits, once), frames.sbatch (an array of --tasks N, default
                                 4, each a slice, after it), video.sbatch (the MP4 at --fps, after
                                 them) and submit.sh, which submits the three; --submit runs it
          --save-references DIR  compute the frames' reference orbits and save them in DIR
          --load-references DIR  take the orbits saved there (refused until that job finished)
          --slice-of T           render this task's share of T slices: its index from
                                 SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX (Kubernetes)
          --resume               skip frames already in --output-dir whose PNG is whole and
                                 whose stored view, guard bits and engine settings are the frame's
        """

    static let expmap = """
        usage: fathom expmap (--location FILE | --preset NAME | view options) [--exr PATH] [--npy PATH]
                             [--kf-frames DIR] [--width W] [--distance]

        view options: --family, --center (or --re, --im), --radius (or --zoom), --rotation,
        --iterations, --power, --julia, --newton as for render, laid over the location.

        Renders the exponential map of the zoom from radius 2 in to the location's radius: W
        columns of angle (default 1024) around the location's center, counter-clockwise from the
        positive real axis, and H = ceil(W ln(2 / radius) / (2 pi)) rows of log radius with square
        pixels, row 0 the outermost (radius 2), the last at the location's radius. The rows render
        in bands of at most one octave of radius, each streamed to the file as it finishes, all
        against one reference orbit (the center's). Outputs (at least one; all written or none):
          --exr PATH             OpenEXR with Kalles Fraktaler's channels for zoomasm: N (uint,
                                 escape count + IterationsBias 1024; 0xFFFFFFFF: did not escape)
                                 and NF (float, the smooth count's fraction); needs OpenEXR's C
                                 library (libopenexr-dev) at run time
          --npy PATH             the iteration data as for render's --npy, shape (H, W)
          --kf-frames DIR        instead: Kalles Fraktaler's layout, one EXR per octave (00001.exr
                                 the deepest, W x H with H = ceil(W ln 2 / (2 pi))), file k's row y
                                 at radius rho 2^(k-1) hypot(W, H) / H 2^(-y/H) and column x at the
                                 angle 2 pi x / W; DIR is made if its parent exists

        options:
          --width W              columns around (4 to 32768; default 1024)
          --distance             also the distance estimate, as the EXR's DEX and DEY (floats: a
                                 vector in image axes, y down, as KF writes them; its length in
                                 pixels of the pixel's own row, or with --kf-frames of the file's
                                 flat frame, as KF's; 0 where it did not escape)
          --threads N, --quiet
          --guard-bits, --path, --glitches, --delta, --bla, --approximation, --orbit, --bla-epsilon,
          --la-epsilon, --mpfr-budget, --estimate, --precision-passes, --coarse-first-pass,
          --backend, --gpu-exact as for render (the map has one reference, its center's orbit:
          no choice of reference)
        """

    static let video = """
        usage: fathom video --frames DIR [--output OUT.mp4] [--fps F] [--reverse] [--quiet]
               fathom video --expmap MAP.npy (--location FILE | --preset NAME | view options)
                            [--size WxH] [--zoom-speed Z | --duration S] [--fps F] [--output OUT.mp4]

        Makes an H.264 MP4 (default fathom.mp4) of the frames frame-00000.png, frame-00001.png, ...
        in DIR (as 'fathom sequence' writes them: numbered from 0 without a gap, all one size), in
        that order or with --reverse backwards (a zoom-out sequence, frame 0 the deepest, played
        backwards is a zoom in). --fps: frames a second (1 to 240, default 30). The ffmpeg program
        (Debian's ffmpeg) encodes it; without it the command exits 69 before any work. The MP4 is
        complete or absent. A progress bar with the time left is shown on a terminal.

        With --expmap: a zoom from radius 2 in to the location's radius, each frame (--size, default
        640x360) reprojected from the map 'fathom expmap --npy' rendered for that location (same
        view options), bilinearly, coloured with the location's colours; the map stops at the
        location's radius, so the frames' inner disc comes from a flat render of the location at
        the frame size (the last frame is that render). --zoom-speed: octaves a second (default 1),
        or --duration: the whole zoom in S seconds.

        options of --expmap (as for render):
          view                   --family, --center (or --re, --im), --radius (or --zoom), --rotation,
                                 --iterations, --power, --julia, --newton
          colour                 --palette, --gradient, --density, --offset, --smooth, --color-scale,
                                 --interior (the map's frames take no --boundary, --slope or --trap)
          engine (the flat       --threads, --guard-bits, --path, --glitches, --reference, --delta,
          render)                --bla, --approximation, --orbit, --bla-epsilon, --la-epsilon,
                                 --precision-passes, --coarse-first-pass, --estimate, --mpfr-budget,
                                 --backend, --gpu-exact
        """

    static let find = """
        usage: fathom find [--location FILE | --preset NAME] [--center RE,IM | --re RE --im IM]
                           [--radius R | --zoom Z] [--iterations N] [--depth R [--fraction F]]
                           [--save FILE] [--render PNG [--size WxH]] [--threads N] [--quiet]

        Finds the minibrot that dominates the view (Mandelbrot): its period (the first n whose
        disc around the center, mapped to first order, contains 0), its nucleus by Newton's method
        in MPFR, and its size estimate, and prints the location that shows it (its nucleus at the
        center, radius 4 x size, at least 100 periods of iterations). With --depth R it descends:
        zoom F of the way (in log radius, default 0.5) towards the minibrot, find the next,
        deeper one around it, and repeat until the minibrot's radius is below R.
        The view options are render's (a Mandelbrot view: the location's family must be
        Mandelbrot). --save FILE writes the location (.json or .kfr); --render PNG renders it
        (default 640x360, on --threads threads).
        """

    static let version = """
        fathom version
          Prints Fathom's version and the MPFR library's.
        """
}
