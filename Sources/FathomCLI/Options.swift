import Fathom

/// Every command-line option, each declared once (`CLIOption`). Options that mean the same in
/// several commands are one declaration; those that share a name but not a meaning (`--output`
/// a PNG or an MP4, `--frames` a slice or a folder) are one declaration each.
extension CLIOption {
    // MARK: The view

    static let location = CLIOption(
        "location", "FILE", .file(reads: true),
        "a location file: Fathom JSON (also oracle files and shared/locations), Kalles Fraktaler .kfr, or a PNG Fathom wrote"
    )
    static let preset = CLIOption(
        "preset", "NAME", .text, "a built-in view (see 'fathom presets'); default: the family's view")
    static let family = CLIOption(
        "family", "NAME", .text, Catalogue.familyNames.joined(separator: " | ") + " (see 'fathom families')")
    static let center = CLIOption(
        "center", "RE,IM", .pair, "center as decimal strings, |re|, |im| <= 1e10 (or --re RE --im IM)")
    static let re = CLIOption("re", "RE", .text, "the center's real part, a decimal string")
    static let im = CLIOption("im", "IM", .text, "the center's imaginary part, a decimal string")
    static let radius = CLIOption(
        "radius", "R", .text, "half the shorter image side, 1e-1000000...1e10 (e.g. 4e-14)")
    static let zoom = CLIOption("zoom", "Z", .text, "instead of --radius: radius = 2 / Z")
    static let rotation = CLIOption(
        "rotation", "DEG", .number(), "rotate the view counter-clockwise about its center")
    static let iterations = CLIOption("iterations", "N", .integer(nil), "iteration limit, 1...2000000000")
    static let power = CLIOption(
        "power", "P", .integer(nil),
        "Multibrot power, \(Family.powerRange.lowerBound)...\(Family.powerRange.upperBound)")
    static let julia = CLIOption("julia", "RE,IM", .pair, "Julia parameter c (implies --family julia)")
    static let newton = CLIOption(
        "newton", "POLY", .text, "Newton polynomial, e.g. z^3-1, z^4-1, z^3-2z+2 (implies --family newton)")

    /// Where a view starts from.
    static let source: [CLIOption] = [.location, .preset]

    /// The options that place a view, in the order the help lists them.
    static let view: [CLIOption] = [
        .family, .center, .re, .im, .radius, .zoom, .rotation, .iterations, .power, .julia, .newton,
    ]

    // MARK: Image and colour

    static let size = CLIOption(
        "size", "WxH", .size, "pixels, each side 1...32768, at most 100 million in all (default 1280x720)")
    static let supersample = CLIOption(
        "supersample", "K", .integer(nil), "K x K samples a pixel (1...4), their colours averaged")
    static let palette = CLIOption(
        "palette", "NAME", .text,
        Catalogue.paletteNames.joined(separator: " | ")
            + " (default \(ColorSettings().palette.rawValue); see 'fathom palettes')")
    static let gradient = CLIOption(
        "gradient", "FILE", .file(reads: true),
        "a user palette: one colour stop a line, RRGGBB or POSITION RRGGBB (positions in [0, 1), cyclic, linear in RGB)"
    )
    static let density = CLIOption(
        "density", "X", .number(NumberBound(description: "> 0") { $0 > 0 }),
        "palette cycles per 32 iterations (linear, log), across the view (histogram); > 0 (default 1; given alone: scale linear)"
    )
    static let offset = CLIOption("offset", "X", .number(), "palette phase offset in cycles (default 0)")
    static let smooth = CLIOption("smooth", "", onOff, "smooth iteration count (default on)")
    static let colorScale = CLIOption(
        "color-scale", "", .choice(words(of: ColorSettings.Scale.self)),
        "how counts become the palette's phase (default auto: the view's histogram, 4 cycles across it, stored explicitly in the PNG)"
    )
    static let interior = CLIOption(
        "interior", "RRGGBB", .text, "colour of points that do not escape (default 000000)")
    static let boundary = CLIOption(
        "boundary", "W", .text, "boundary shading: darken within W pixels of the set (distance estimate), or off")
    static let slope = CLIOption(
        "slope", "A[,H[,S]]", .text,
        "slope lighting from angle A degrees, height H (1.5), strength S (0.75), or off")
    static let trap = CLIOption(
        "trap", "point:RE,IM|cross:RE,IM", .text,
        "colour by the orbit's closest approach to a point or cross, or off")

    /// The colour options every image takes (a map's frames too).
    static let colour: [CLIOption] = [.palette, .gradient, .density, .offset, .smooth, .colorScale, .interior]
    /// The colourings that need a pixel's own derivative or orbit.
    static let shading: [CLIOption] = [.boundary, .slope, .trap]

    // MARK: Engine

    static let threads = CLIOption(
        "threads", "N", .integer(RenderSettings.threadRange, note: "0 = all cores"),
        "worker threads, 0 = all cores (default 0)")
    static let backend = CLIOption(
        "backend", "", .choice(ComputeBackend.all.map(\.name)),
        "where the kernels run: auto (default) takes CUDA when a driver loads, else the CPU (its lanes with AVX2 or AVX-512); cuda is an error without a GPU; emulated runs the GPU kernels on the CPU (for tests); lanes runs the passes of z^2 + c in SIMD lanes on the CPU (FATHOM_LANES=2|4|8 forces a width); see Documentation/GPU.md"
    )
    static let gpuExact = CLIOption(
        "gpu-exact", "", onOff,
        "CUDA kernels without fused multiply-adds: iteration data equal to the CPU's bit for bit (default off)")
    static let guardBits = CLIOption(
        "guard-bits", "N", .integer(RenderSettings.guardBitsRange),
        "bits kept below the pixel spacing when choosing Double or double-double, \(RenderSettings.guardBitsRange) (default \(RenderSettings.defaultGuardBits))"
    )
    static let path = CLIOption(
        "path", "", .choice(words(of: ArithmeticPath.self)), "force an arithmetic (default: by the view's depth)")
    static let glitches = CLIOption(
        "glitches", "", .choice(words(of: GlitchMode.self)),
        "perturbation glitch handling (default rebase)")
    static let reference = CLIOption(
        "reference", "", .choice(words(of: ReferencePlacement.self)),
        "first reference: auto (default) the nucleus where a minibrot dominates the view, else the center (its orbit ends at the period where Newton's method would exceed 60 s, and on a GPU at the view's first period); center; probe: the longest orbit of a 5x5 probe; nucleus: the dominant minibrot's nucleus if in view (never escapes; one period of it, wrapped, with --glitches rebase)"
    )
    static let delta = CLIOption(
        "delta", "", .choice(words(of: DeltaType.self)),
        "perturbation deltas (default: by the pixel spacing)")
    static let bla = CLIOption(
        "bla", "", onOff, "skip iterations by approximation (default on; off: every step)")
    static let approximation = CLIOption(
        "approximation", "", .choice(words(of: ApproximationMethod.self)),
        "la (default): linear approximation with period detection; bla: bilinear approximation; both: LA at its entries' starts, BLA between"
    )
    static let orbit = CLIOption(
        "orbit", "", .choice(words(of: OrbitResidency.self)),
        "how passes (CPU or GPU) read the reference orbit: auto (default) streamed where it has 2^20 steps or more and 256 a pixel of the pass; decoded; streamed: from the compressed orbit, with a lean LA table (decoded where that cannot serve: Julia, a wrapped reference, BLA levels)"
    )
    static let blaEpsilon = CLIOption(
        "bla-epsilon", "E", .number(.epsilon), "BLA's relative error bound per step (default 2^-40)")
    static let laEpsilon = CLIOption(
        "la-epsilon", "E", .number(.epsilon), "LA's relative error bound per linearized step (default 2^-40)")
    static let precisionPasses = CLIOption(
        "precision-passes", "", onOff,
        "render again pixels whose smooth value may miss 1e-7 (default on; off trades that guarantee for speed)")
    static let coarseFirstPass = CLIOption(
        "coarse-first-pass", "", onOff,
        "where a probe of the image finds it cheaper, a first pass at 2^8 times the epsilons, its pixels at risk again at them (default on)"
    )
    static let estimate = CLIOption(
        "estimate", "", .choice(words(of: EstimateMethod.self)),
        "the precision estimate: variance (default): the error's variance tracked forward; product: the product of |f'(z)|, faster, but it misses wrong pixels on rebasing views"
    )
    static let mpfrBudget = CLIOption(
        "mpfr-budget", "S",
        .number(
            NumberBound(description: "of seconds from 0 to 1e9", accepts: LocationFile.EngineSettings.isMPFRBudget)),
        "CPU seconds those passes may spend iterating pixels in MPFR (default 30; the cheapest first; the others are reported as not verified, with --verbose by pixel)"
    )
    static let saveReference = CLIOption(
        "save-reference", "FILE", .file(reads: false), "write the reference orbit (reusable by a later render)")
    static let loadReference = CLIOption(
        "load-reference", "FILE", .file(reads: true), "read the reference orbit instead of computing it")

    /// The perturbation settings a location file can carry (`LocationFile.EngineSettings`) but
    /// the arithmetic path and the reference's placement.
    static let perturbation: [CLIOption] = [
        .glitches, .delta, .bla, .approximation, .orbit, .blaEpsilon, .laEpsilon, .mpfrBudget, .estimate,
        .precisionPasses, .coarseFirstPass,
    ]
    /// Where the kernels run.
    static let device: [CLIOption] = [.backend, .gpuExact]

    // MARK: Output and reporting

    static let output = CLIOption(
        "output", "PATH", .file(reads: false),
        "PNG file (default fathom.png; - for stdout); all outputs written or none")
    static let bitDepth = CLIOption(
        "bit-depth", "", .choice(BitDepth.allCases.map { String($0.rawValue) }),
        "bits a PNG sample (default 8)")
    static let npy = CLIOption(
        "npy", "PATH", .file(reads: false),
        "also write the per-pixel data as a NumPy .npy file: a (height, width) structured array of n2, nBig (uint32), smooth (float64); with --supersample K every sample, shape (K height, K width)"
    )
    static let verbose = CLIOption(flag: "verbose", "more output (the estimate, reference points)")
    static let quiet = CLIOption(flag: "quiet", "no report and no progress line")

    // MARK: verify

    static let sampled = CLIOption(
        flag: "sampled", "render only the sampled pixels (same path, much faster at extreme depth)")
    static let allPixels = CLIOption(flag: "all", "print every sampled pixel, not only the mismatches")

    // MARK: sequence

    static let zoomOut = CLIOption(
        "zoom-out", "N", .integer(nil), "N frames, frame k at radius r * F^k (frame 0 the deepest)")
    static let factor = CLIOption("factor", "F", .number(), "the zoom-out's factor from frame to frame (default 2)")
    static let perSegment = CLIOption(
        "per-segment", "N", .integer(nil), "frames from each keyframe to the next (default 30)")
    static let frameSlice = CLIOption(
        "frames", "A..B", .text,
        "render frames A to B only (a slice: byte-identical to the same frames of a full run, so a long sequence can be shared out)"
    )
    static let frameSize = CLIOption(
        "size", "WxH", .size, "frame size (default: the location's, else 1280x720)")
    static let outputFolder = CLIOption(
        "output-dir", "DIR", .file(reads: false), "where the frames go (default frames, created if its parent exists)")
    static let resume = CLIOption(
        flag: "resume",
        "skip frames already in --output-dir whose PNG is whole and whose stored view, guard bits and engine settings are the frame's"
    )
    static let slurm = CLIOption(
        "slurm", "DIR", .file(reads: false),
        "write Slurm jobs into DIR instead of rendering: reference.sbatch (the orbits, once), frames.sbatch (an array of --tasks N, default 4, each a slice, after it), video.sbatch (the MP4 at --fps, after them) and submit.sh, which submits the three; --submit runs it"
    )
    static let tasks = CLIOption("tasks", "N", .integer(nil), "the Slurm array's tasks (default 4)")
    static let jobFPS = CLIOption("fps", "F", .number(), "the video job's frames a second (default 30)")
    static let submit = CLIOption(flag: "submit", "run submit.sh once the jobs are written")
    static let saveReferences = CLIOption(
        "save-references", "DIR", .file(reads: false), "compute the frames' reference orbits and save them in DIR")
    static let loadReferences = CLIOption(
        "load-references", "DIR", .file(reads: false),
        "take the orbits saved there (refused until that job finished)")
    static let sliceOf = CLIOption(
        "slice-of", "T", .text,
        "render this task's share of T slices: its index from SLURM_ARRAY_TASK_ID, else JOB_COMPLETION_INDEX (Kubernetes)"
    )

    // MARK: expmap

    static let exr = CLIOption(
        "exr", "PATH", .file(reads: false),
        "OpenEXR with Kalles Fraktaler's channels for zoomasm: N (uint, escape count + IterationsBias 1024; 0xFFFFFFFF: did not escape) and NF (float, the smooth count's fraction); needs OpenEXR's C library (libopenexr-dev) at run time"
    )
    static let mapNPY = CLIOption(
        "npy", "PATH", .file(reads: false), "the iteration data as for render's --npy, shape (H, W)")
    static let kfFrames = CLIOption(
        "kf-frames", "DIR", .file(reads: false),
        "instead: Kalles Fraktaler's layout, one EXR per octave (00001.exr the deepest, W x H with H = ceil(W ln 2 / (2 pi))), file k's row y at radius rho 2^(k-1) hypot(W, H) / H 2^(-y/H) and column x at the angle 2 pi x / W; DIR is made if its parent exists"
    )
    static let mapWidth = CLIOption(
        "width", "W", .integer(nil), "columns around (4 to 32768; default 1024)")
    static let distance = CLIOption(
        flag: "distance",
        "also the distance estimate, as the EXR's DEX and DEY (floats: a vector in image axes, y down, as KF writes them; its length in pixels of the pixel's own row, or with --kf-frames of the file's flat frame, as KF's; 0 where it did not escape)"
    )

    // MARK: video

    static let frameFolder = CLIOption(
        "frames", "DIR", .file(reads: true), "a folder of frame-00000.png, frame-00001.png, ... to encode")
    static let expmap = CLIOption(
        "expmap", "MAP.npy", .file(reads: true), "instead: the frames reprojected from this exponential map")
    static let videoOutput = CLIOption("output", "OUT.mp4", .file(reads: false), "the MP4 (default fathom.mp4)")
    static let fps = CLIOption("fps", "F", .number(), "frames a second, 1 to 240 (default 30)")
    static let reverse = CLIOption(flag: "reverse", "the frames backwards (a zoom-out played as a zoom in)")
    static let videoSize = CLIOption("size", "WxH", .size, "the frame size (default 640x360)")
    static let zoomSpeed = CLIOption("zoom-speed", "Z", .number(), "octaves a second (default 1)")
    static let duration = CLIOption("duration", "S", .number(), "instead of --zoom-speed: the whole zoom in S seconds")

    // MARK: find

    static let port = CLIOption(
        "port", "N", .integer(1...65535),
        "the port to listen on (default: the first free one of 8765 and the 19 after it)")
    static let bind = CLIOption(
        "bind", "ADDRESS", .text,
        "the IPv4 or IPv6 address to listen on (default 127.0.0.1: this machine only)")
    static let depth = CLIOption(
        "depth", "R", .text, "descend until the minibrot's radius is below R (a decimal, > 0)")
    static let fraction = CLIOption(
        "fraction", "F", .number(NumberBound(description: "in (0, 1]") { $0 > 0 && $0 <= 1 }),
        "how far each descent step zooms towards the minibrot, in log radius (default 0.5)")
    static let save = CLIOption(
        "save", "FILE", .file(reads: false), "write the location found (.json or .kfr)")
    static let renderImage = CLIOption("render", "PNG", .file(reads: false), "render the location found to a PNG")
    static let renderSize = CLIOption(
        "size", "WxH", .size, "the size of --render's image (default 640x360)")
    static let renderThreads = CLIOption(
        "threads", "N", threads.value,
        "the threads of --render's image, 0 = all cores (default 0)")

    // MARK: info

    static let json = CLIOption(flag: "json", "print the whole location file as JSON")
}
