import Fathom
import Foundation
import Testing

// The rows of Documentation/Reliability.md's table, each run through the built executable:
// the exit code, one line on stderr naming the problem, and what is left on disk. A test reads
// the table and checks that every row is here (or in a dedicated test below) with its code.

/// Something a row sets up in its scratch folder before the command runs.
enum Setup: Sendable {
    /// A character device made with mknod (1,3 is /dev/null's device, 1,7 /dev/full's):
    /// never the real /dev/null.
    case device(String, major: UInt32, minor: UInt32)
    case fifo(String)
    case symlink(String, to: String)
    /// A file with these bytes and this mode.
    case file(String, String, mode: mode_t)
    case socket(String)
    /// A sparse file of this size (no disk used).
    case sparse(String, bytes: Int)
    /// A folder.
    case folder(String)
    /// fathom run with these arguments first (to make an input: a map, an orbit, frames); it must succeed.
    case run([String])
}

/// What must hold after the command.
enum Check: Sendable {
    /// Still a character device.
    case stillDevice(String)
    case stillFIFO(String)
    /// Still a link to the target, which holds a PNG.
    case linkToPNG(String, target: String)
    /// A PNG with this mode.
    case png(String, mode: mode_t)
    /// The bytes and the mode the setup gave it.
    case unchanged(String)
    case absent(String)
    /// Standard output is a PNG.
    case pngOnStandardOutput
    /// Standard output contains this text.
    case standardOutput(String)
    /// The PNG's stored location has this rotation.
    case rotation(String, Double)
    /// The file kept its first bytes (`prefix`, the setup's text) and a file starting with
    /// `magic` follows them: an output appended through a descriptor.
    case appended(String, prefix: String, magic: [UInt8])
    /// Standard output is one file starting with `magic`, and no report text is in it.
    case onlyOnStandardOutput(magic: [UInt8])
}

extension Check {
    /// The file this check expects the command to have written (nil: it names none).
    var changedFile: String? {
        switch self {
        case .linkToPNG(_, let target): target
        case .png(let name, _), .appended(let name, _, _): name
        default: nil
        }
    }
}

let pngMagic: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
let npyMagic: [UInt8] = [0x93] + Array("NUMPY".utf8)
/// An MP4's first box is `ftyp` (after its 4-byte size).
let mp4Magic: [UInt8] = [0, 0, 0]

struct Situation: Sendable, CustomTestStringConvertible {
    let label: String
    let args: [String]
    let code: Int32
    /// Text the one stderr line must contain (failures).
    var message = ""
    var files: [String: String] = [:]
    var setup: [Setup] = []
    var checks: [Check] = []
    /// Standard output goes to this scratch device instead of a pipe.
    var standardOutputDevice: String?
    var testDescription: String { label }
    var needsDevice: Bool { setup.contains { if case .device = $0 { true } else { false } } }
}

let plain = #"{"family": "mandelbrot", "center": ["0", "0"], "radius": "1", "maxIterations": 100}"#
func locationJSON(center: String = #""0", "0""#, radius: String = "1", iterations: String = "100", extra: String = "")
    -> String
{
    #"{"family": "mandelbrot", "center": [\#(center)], "radius": "\#(radius)", "maxIterations": \#(iterations)\#(extra)}"#
}
let small = ["--size", "16x9", "--iterations", "50"]

let situations: [Situation] = [
    // Input the command line cannot use.
    Situation(
        label: "malformed center", args: ["render", "--center", "1.2.3,0"], code: 65, message: "is not a decimal number"
    ),
    Situation(label: "malformed radius", args: ["render", "--radius", "abc"], code: 65, message: "radius"),
    Situation(label: "radius zero", args: ["render", "--radius", "0"], code: 65, message: "greater than zero"),
    Situation(label: "radius negative", args: ["render", "--radius", "-1e-5"], code: 65, message: "greater than zero"),
    Situation(label: "zoom zero", args: ["render", "--zoom", "0"], code: 65, message: "zoom"),
    Situation(label: "size zero", args: ["render", "--size", "0x100"], code: 65, message: "size"),
    Situation(label: "size over the limit", args: ["render", "--size", "40000x40000"], code: 65, message: "size"),
    Situation(label: "size malformed", args: ["render", "--size", "big"], code: 65, message: "WIDTHxHEIGHT"),
    Situation(label: "iterations zero", args: ["render", "--iterations", "0"], code: 65, message: "iterations"),
    Situation(
        label: "iterations not a number", args: ["render", "--iterations", "lots"], code: 65, message: "not an integer"),
    Situation(
        label: "iterations past Int", args: ["render", "--iterations", "99999999999999999999999"], code: 65,
        message: "not an integer"),
    Situation(
        label: "multibrot power out of range", args: ["render", "--family", "multibrot", "--power", "40"], code: 65,
        message: "power"),
    Situation(
        label: "malformed Newton polynomial", args: ["render", "--family", "newton", "--newton", "z^^3"], code: 65,
        message: "polynomial"),
    Situation(
        label: "Newton polynomial whose terms add up past the limit",
        args: [
            "render", "--newton",
            "z^3+" + String(repeating: "9", count: 308) + "z+" + String(repeating: "9", count: 308) + "z",
        ],
        code: 65, message: "polynomial"),
    Situation(
        label: "Newton polynomial without the family", args: ["render", "--newton", "zz+++"], code: 65,
        message: "polynomial"),
    Situation(
        label: "Newton polynomial implies the family",
        args: ["render"] + small + ["--newton", "z^3-1", "--output", "n.png"], code: 0,
        checks: [.png("n.png", mode: 0o644), .standardOutput(", newton, ")]),
    Situation(label: "malformed Julia parameter", args: ["render", "--julia", "0.3,abc"], code: 65, message: "julia"),
    Situation(label: "negative thread count", args: ["render", "--threads", "-1"], code: 65, message: "threads"),
    Situation(
        label: "unknown palette", args: ["render", "--palette", "rainbow"], code: 64, message: "unknown palette"),
    Situation(label: "density zero", args: ["render", "--density", "0"], code: 65, message: "not a number > 0"),
    Situation(
        label: "unknown colour scale", args: ["render", "--color-scale", "sqrt"], code: 64, message: "--color-scale"),
    Situation(
        label: "automatic colour scale with a density", args: ["render", "--color-scale", "auto", "--density", "2"],
        code: 64,
        message: "without --density"),
    Situation(
        label: "unknown family", args: ["render", "--family", "burningship"], code: 64, message: "unknown family"),
    Situation(label: "unknown preset", args: ["render", "--preset", "nowhere"], code: 64, message: "unknown preset"),
    Situation(label: "unknown option", args: ["render", "--sharpness", "3"], code: 64, message: "unknown option"),
    Situation(label: "option without its value", args: ["render", "--radius"], code: 64, message: "needs a value"),
    Situation(
        label: "option given twice", args: ["render", "--radius", "1", "--radius", "2"], code: 64,
        message: "given twice"),
    Situation(label: "unknown command", args: ["paint"], code: 64, message: "unknown command"),
    Situation(
        label: "version with an unknown option", args: ["version", "--foo"], code: 64, message: "unknown option"),
    Situation(label: "help of an unknown command", args: ["help", "paint"], code: 64, message: "no help"),
    Situation(
        label: "help for version", args: ["help", "version"], code: 0, checks: [.standardOutput("fathom version")]),
    Situation(label: "verify without files", args: ["verify"], code: 64),
    // Conflicting options: refused, never one silently winning.
    Situation(
        label: "center and re together", args: ["render", "--center", "0,0", "--re", "1"], code: 64, message: "not both"
    ),
    Situation(
        label: "radius and zoom together", args: ["render", "--radius", "1", "--zoom", "2"], code: 64,
        message: "not both"),
    Situation(
        label: "Julia parameter on another family", args: ["render", "--family", "mandelbrot", "--julia", "0,0"],
        code: 64, message: "--julia"),
    Situation(
        label: "Newton polynomial on another family", args: ["render", "--family", "julia", "--newton", "z^3-1"],
        code: 64, message: "--newton"),
    Situation(
        label: "verbose and quiet together", args: ["render", "--verbose", "--quiet"], code: 64, message: "not both"),
    Situation(
        label: "location and preset together", args: ["render", "--location", "a.json", "--preset", "e50"], code: 64,
        message: "not both",
        files: ["a.json": plain]),
    // Numbers of huge magnitude and absurd work: refused before any work.
    Situation(
        label: "center beyond Double", args: ["render", "--center", "1e309,0"], code: 65, message: "outside the range"),
    Situation(
        label: "negative imaginary center beyond Double", args: ["render", "--center", "0,-1e309"], code: 65,
        message: "outside the range"),
    Situation(
        label: "center with a 10,000-digit integer part",
        args: ["render", "--center", String(repeating: "7", count: 10_000) + ",0"],
        code: 65, message: "outside the range"),
    Situation(
        label: "radius below the smallest", args: ["render", "--radius", "1e-99999999"], code: 65,
        message: "outside the range"),
    Situation(
        label: "radius past MPFR's exponent range", args: ["render", "--radius", "1e-99999999999999999999"], code: 65,
        message: "outside the range"),
    Situation(
        label: "zoom past the smallest radius", args: ["render", "--zoom", "1e99999999"], code: 65,
        message: "outside the range"),
    Situation(
        label: "radius above the largest", args: ["render", "--radius", "1e99999999"], code: 65,
        message: "outside the range"),
    Situation(
        label: "number longer than a million digits", args: ["render", "--location", "long.json"], code: 65,
        message: "longer than",
        files: ["long.json": locationJSON(center: #""0.\#(String(repeating: "1", count: 1_200_000))", "0""#)]),
    Situation(
        // With the center as the reference (the default placement may find a nucleus and
        // wrap it, so it leaves the bound to the orbit loop's own memory check).
        label: "reference orbit larger than the memory",
        args: ["render", "--preset", "e50", "--iterations", "2000000000", "--reference", "center"], code: 65,
        message: "more than this machine's"),
    Situation(
        label: "kfr zoom past the smallest radius", args: ["render", "--location", "z.kfr"], code: 65,
        message: "outside the range",
        files: ["z.kfr": "Re: 0\r\nIm: 0\r\nZoom: 1e99999999\r\nIterations: 100\r\n"]),
    Situation(
        label: "info of a kfr zoom past the smallest radius", args: ["info", "z.kfr"], code: 65,
        message: "outside the range",
        files: ["z.kfr": "Re: 0\r\nIm: 0\r\nZoom: 1e99999999\r\nIterations: 100\r\n"]),
    Situation(
        label: "JSON center beyond Double", args: ["render", "--location", "c.json"], code: 65,
        message: "outside the range",
        files: ["c.json": locationJSON(center: #""1e400", "0""#)]),
    Situation(
        label: "info of a JSON center beyond Double", args: ["info", "c.json"], code: 65, message: "outside the range",
        files: ["c.json": locationJSON(center: #""1e400", "0""#)]),
    Situation(
        label: "convert of a JSON center beyond Double", args: ["convert", "c.json", "c.kfr"], code: 65,
        message: "outside the range",
        files: ["c.json": locationJSON(center: #""1e400", "0""#)]),
    Situation(
        label: "sequence of a center beyond Double", args: ["sequence", "--zoom-out", "3", "--location", "c.json"],
        code: 65,
        message: "outside the range", files: ["c.json": locationJSON(center: #""1e400", "0""#)],
        checks: [.absent("frames")]),
    // Values with a precise message.
    Situation(
        label: "JSON iterations not whole", args: ["info", "i.json"], code: 65,
        message: "'maxIterations': 2.5 is not a whole number",
        files: ["i.json": locationJSON(iterations: "2.5")]),
    Situation(
        label: "JSON iterations past Int", args: ["info", "i.json"], code: 65, message: "'maxIterations'",
        files: ["i.json": locationJSON(iterations: "1e30")]),
    Situation(
        label: "BLA epsilon that underflows", args: ["render", "--bla-epsilon", "1e-400"], code: 65,
        message: "'1e-400' is not a number in (0, 1)"),
    Situation(
        label: "negative MPFR budget", args: ["render", "--mpfr-budget", "-5"], code: 65,
        message: "'-5' is not a number of seconds from 0 to 1e9"),
    Situation(
        label: "MPFR budget in a location file past 1e9", args: ["render", "--location", "b.json"], code: 65,
        message: "engine.mpfrBudget: 1000000000000.0 is not a number of seconds from 0 to 1e9",
        files: ["b.json": locationJSON(extra: #", "engine": {"mpfrBudget": 1e12}"#)]),
    Situation(
        label: "perturbation forced on Newton", args: ["render", "--family", "newton", "--path", "perturbation"],
        code: 65,
        message: "no perturbation formula"),
    Situation(
        label: "reference saved from a direct view", args: ["render"] + small + ["--save-reference", "r.orbit"],
        code: 65,
        message: "takes no reference orbit", checks: [.absent("r.orbit"), .absent("fathom.png")]),
    // Reference orbit files (version 3, checksummed: ReferenceFileTests has every truncation and flipped bit).
    Situation(
        label: "reference orbit file truncated",
        args: ["render", "--preset", "e50", "--size", "8x8", "--load-reference", "r.orbit"],
        code: 65, message: "checksum mismatch: the file is truncated or altered",
        files: ["r.orbit": "FATHOMRO\u{3}\0\0\0\u{2}\0\0\0\0\0\0\0\0\0\0\0"], checks: [.absent("fathom.png")]),
    Situation(
        label: "reference orbit file from an older Fathom",
        args: ["render", "--preset", "e50", "--size", "8x8", "--load-reference", "r.orbit"],
        code: 65, message: "written by an older Fathom: save it again",
        files: ["r.orbit": "FATHOMRO\u{2}\0\0\0\u{2}\0\0\0\0\0\0\0"], checks: [.absent("fathom.png")]),
    // Location files.
    Situation(
        label: "missing location file", args: ["render", "--location", "nowhere.json"], code: 66,
        message: "no such file"),
    Situation(
        label: "location file that is a folder", args: ["render", "--location", "."], code: 66, message: "folder"),
    Situation(
        label: "location file that is a FIFO", args: ["info", "f"], code: 66, message: "not a regular file",
        setup: [.fifo("f")]),
    Situation(
        label: "location file that is a device", args: ["info", "d"], code: 66, message: "not a regular file",
        setup: [.device("d", major: 1, minor: 3)], checks: [.stillDevice("d")]),
    Situation(
        label: "location file larger than 256 MiB", args: ["info", "big.json"], code: 66,
        message: "more than a location file's",
        setup: [.sparse("big.json", bytes: 300 << 20)]),
    Situation(
        label: "location file that is not JSON", args: ["render", "--location", "bad.json"], code: 65,
        message: "not JSON",
        files: ["bad.json": "this is not json"]),
    Situation(
        label: "location file without a radius", args: ["render", "--location", "bad.json"], code: 65,
        message: "radius",
        files: ["bad.json": #"{"family": "mandelbrot", "center": ["0", "0"], "maxIterations": 100}"#]),
    Situation(
        label: "location file with a bad number", args: ["render", "--location", "bad.json"], code: 65,
        message: "center",
        files: ["bad.json": #"{"family": "mandelbrot", "center": ["0", "1e"], "radius": "1", "maxIterations": 100}"#]),
    Situation(
        label: "location file with an unknown family", args: ["render", "--location", "bad.json"], code: 65,
        message: "family",
        files: ["bad.json": #"{"family": "tricorn", "center": ["0", "0"], "radius": "1", "maxIterations": 100}"#]),
    Situation(
        label: "location file with a colour out of range", args: ["render", "--location", "bad.json"], code: 65,
        message: "color.interior: [300, -1, 0] is not three components within 0...1",
        files: ["bad.json": locationJSON(extra: #", "color": {"interior": [300, -1, 0]}"#)]),
    Situation(
        label: "location file with an unknown engine value", args: ["render", "--location", "bad.json"], code: 65,
        message: "'bad.json' is not a valid location file: engine.delta: 'foo' is not one of "
            + DeltaType.allCases.map(\.rawValue).joined(separator: ", "),
        files: ["bad.json": locationJSON(extra: #", "engine": {"delta": "foo"}"#)]),
    Situation(
        label: "kfr file without a zoom", args: ["render", "--location", "bad.kfr"], code: 65, message: "Zoom",
        files: ["bad.kfr": "Re: 0\r\nIm: 0\r\nIterations: 100\r\n"]),
    Situation(
        label: "kfr file of another fractal type", args: ["info", "bad.kfr"], code: 65, message: "FractalType",
        files: ["bad.kfr": "Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 100\r\nFractalType: 4\r\n"]),
    Situation(
        label: "kfr file with a rotation", args: ["render"] + small + ["--location", "r.kfr", "--output", "r.png"],
        code: 0,
        files: ["r.kfr": "Re: -0.75\r\nIm: 0.1\r\nZoom: 10\r\nIterations: 100\r\nRotate: 45\r\n"],
        checks: [.rotation("r.png", 45)]),
    Situation(
        label: "kfr file with a bad rotation", args: ["info", "r.kfr"], code: 65, message: "Rotate",
        files: ["r.kfr": "Re: -0.75\r\nIm: 0.1\r\nZoom: 10\r\nIterations: 100\r\nRotate: east\r\n"]),
    Situation(
        label: "kfr file of a stretched view", args: ["info", "s.kfr"], code: 65, message: "StretchAmount",
        files: [
            "s.kfr": "Re: -0.75\r\nIm: 0.1\r\nZoom: 10\r\nIterations: 100\r\nStretchAngle: 10\r\nStretchAmount: 0.5\r\n"
        ]),
    Situation(label: "info of a missing file", args: ["info", "nowhere.kfr"], code: 66, message: "no such file"),
    Situation(
        label: "convert to an unknown format", args: ["convert", "a.json", "a.txt"], code: 64, message: ".json or .kfr",
        files: ["a.json": plain]),
    Situation(
        label: "convert a Julia view to kfr", args: ["convert", "a.json", "a.kfr"], code: 65, message: "julia",
        files: [
            "a.json":
                #"{"family": "julia", "juliaC": ["0", "0.6"], "center": ["0", "0"], "radius": "1", "maxIterations": 100}"#
        ]),
    Situation(
        label: "convert onto a read-only file", args: ["convert", "a.json", "b.kfr"], code: 73, message: "read-only",
        files: ["a.json": plain], setup: [.file("b.kfr", "keep me", mode: 0o444)], checks: [.unchanged("b.kfr")]),
    Situation(
        label: "missing gradient file", args: ["render", "--gradient", "nowhere.txt"], code: 66, message: "gradient"),
    Situation(
        label: "malformed gradient file", args: ["render", "--gradient", "g.txt"], code: 65,
        files: ["g.txt": "red\nblue\n"]),
    Situation(
        label: "oracle file that is not JSON", args: ["verify", "bad.json"], code: 65, files: ["bad.json": "[1, 2"]),
    // Other options.
    Situation(
        label: "bit depth other than 8 or 16", args: ["render", "--bit-depth", "12"], code: 64,
        message: "is not one of 8, 16"),
    Situation(
        label: "supersampling out of range", args: ["render", "--supersample", "9"], code: 65, message: "supersample"),
    Situation(
        label: "boundary width not a number", args: ["render", "--boundary", "thin"], code: 65, message: "boundary"),
    Situation(label: "slope with a bad strength", args: ["render", "--slope", "45,1.5,3"], code: 65, message: "slope"),
    Situation(label: "trap of an unknown shape", args: ["render", "--trap", "circle:0,0"], code: 65, message: "trap"),
    Situation(
        label: "find on a Julia view", args: ["find", "--quiet", "--preset", "julia"], code: 65, message: "Mandelbrot"),
    Situation(
        label: "find with a zero depth", args: ["find", "--quiet", "--preset", "seahorse", "--depth", "0"], code: 65,
        message: "depth"),
    Situation(
        label: "find deeper than the smallest radius",
        args: ["find", "--quiet", "--preset", "seahorse", "--depth", "1e-99999999"], code: 65,
        message: "below the smallest radius"),
    Situation(
        label: "find saving to an unknown format",
        args: ["find", "--quiet", "--preset", "seahorse", "--save", "m.txt"], code: 64,
        message: ".json or .kfr"),
    Situation(
        label: "find saving and rendering onto one file",
        args: [
            "find", "--quiet", "--preset", "seahorse", "--save", "m.json",
            "--render", "m.json",
        ], code: 64, message: "two outputs"),
    // Sequences.
    Situation(label: "sequence without a location or keyframes", args: ["sequence", "--quiet"], code: 64),
    Situation(
        label: "sequence with one keyframe", args: ["sequence", "--quiet", "a.json"], code: 64, files: ["a.json": plain]
    ),
    Situation(
        label: "sequence slice backwards", args: ["sequence", "--quiet", "--zoom-out", "10", "--frames", "5..2"],
        code: 65,
        message: "ends before it starts", checks: [.absent("frames")]),
    Situation(
        label: "sequence slice past the end", args: ["sequence", "--quiet", "--zoom-out", "10", "--frames", "5..12"],
        code: 65,
        message: "outside"),
    Situation(
        label: "sequence with frames past Int",
        args: ["sequence", "--quiet", "--per-segment", "4611686018427387905", "a.json", "b.json", "a.json"],
        code: 65, message: "out of range", files: ["a.json": plain, "b.json": locationJSON(radius: "0.5")]),
    Situation(
        label: "sequence of zero frames", args: ["sequence", "--quiet", "--zoom-out", "0"], code: 65, message: "frames"),
    Situation(
        label: "sequence factor below one", args: ["sequence", "--quiet", "--zoom-out", "3", "--factor", "0.5"],
        code: 65,
        message: "greater than 1"),
    Situation(
        label: "sequence into a file", args: ["sequence", "--quiet", "--zoom-out", "2", "--output-dir", "a.json"],
        code: 73,
        message: "is a file", files: ["a.json": "{}"]),
    // Outputs: nothing a user owns is destroyed.
    Situation(
        label: "output folder missing", args: ["render", "--size", "8x8", "--output", "missing/out.png"], code: 73,
        message: "does not exist"),
    Situation(
        label: "npy into a missing folder", args: ["render", "--size", "8x8", "--npy", "missing/a.npy"], code: 73,
        message: "does not exist",
        checks: [.absent("fathom.png")]),
    Situation(
        label: "output is a folder", args: ["render", "--size", "8x8", "--output", "."], code: 73, message: "folder"),
    Situation(
        label: "output is an empty path", args: ["render", "--size", "8x8", "--output", ""], code: 73,
        message: "empty path"),
    Situation(
        label: "output is a character device", args: ["render"] + small + ["--output", "null"], code: 0,
        setup: [.device("null", major: 1, minor: 3)], checks: [.stillDevice("null")]),
    Situation(
        label: "output is a full device", args: ["render"] + small + ["--output", "full"], code: 73,
        message: "No space left",
        setup: [.device("full", major: 1, minor: 7)], checks: [.stillDevice("full")]),
    Situation(
        label: "output through a symbolic link", args: ["render"] + small + ["--output", "link.png"], code: 0,
        setup: [.file("target.png", "old", mode: 0o644), .symlink("link.png", to: "target.png")],
        checks: [.linkToPNG("link.png", target: "target.png")]),
    Situation(
        label: "output through a dangling symbolic link", args: ["render"] + small + ["--output", "link.png"], code: 0,
        setup: [.symlink("link.png", to: "new.png")], checks: [.linkToPNG("link.png", target: "new.png")]),
    Situation(
        label: "output is a read-only file", args: ["render"] + small + ["--output", "ro.png"], code: 73,
        message: "read-only",
        setup: [.file("ro.png", "keep me", mode: 0o444)], checks: [.unchanged("ro.png")]),
    Situation(
        label: "output replaces a file keeping its mode", args: ["render"] + small + ["--output", "rw.png"], code: 0,
        setup: [.file("rw.png", "old", mode: 0o640)], checks: [.png("rw.png", mode: 0o640)]),
    Situation(
        label: "output is a socket", args: ["render"] + small + ["--output", "s"], code: 73, message: "socket",
        setup: [.socket("s")]),
    Situation(
        label: "output is standard output", args: ["render"] + small + ["--output", "-"], code: 0,
        checks: [.pngOnStandardOutput]),
    Situation(
        label: "two outputs on one path", args: ["render"] + small + ["--output", "o.png", "--npy", "o.png"], code: 64,
        message: "two outputs", checks: [.absent("o.png")]),
    Situation(
        label: "two outputs on one file by two names",
        args: ["render"] + small + ["--output", "o.png", "--npy", "./o.png"], code: 64,
        message: "same file", checks: [.absent("o.png")]),
    Situation(
        label: "two outputs on one file through a link",
        args: ["render"] + small + ["--output", "link.png", "--npy", "target.png"],
        code: 64, message: "same file",
        setup: [.file("target.png", "old", mode: 0o644), .symlink("link.png", to: "target.png")],
        checks: [.unchanged("target.png")]),
    Situation(
        label: "reference orbit on the image's path",
        args: [
            "render", "--preset", "e50", "--size", "8x8", "--output", "a.png",
            "--save-reference", "a.png",
        ], code: 64, message: "two outputs"),
    Situation(
        label: "second output fails", args: ["render"] + small + ["--output", "y.png", "--npy", "full"], code: 73,
        message: "No space left",
        setup: [.device("full", major: 1, minor: 7), .file("y.png", "keep me", mode: 0o644)],
        checks: [.unchanged("y.png"), .stillDevice("full")]),
    Situation(
        label: "standard output that cannot be written", args: ["version"], code: 74, message: "standard output",
        setup: [.device("full", major: 1, minor: 7)], standardOutputDevice: "full"),
    Situation(
        label: "report that cannot be written", args: ["presets"], code: 74, message: "standard output",
        setup: [.device("full", major: 1, minor: 7)], standardOutputDevice: "full"),
]

/// Whether the tests run under a sanitizer (`make test-asan`, `make test-tsan` set its options),
/// whose runtime makes a process slower to end.
let underSanitizer = ["ASAN_OPTIONS", "TSAN_OPTIONS"].contains { ProcessInfo.processInfo.environment[$0] != nil }

/// Every row run through the executable: the first review's and the classes of the second.
let allSituations = situations + classSituations

/// Rows of Reliability.md that have a test of their own below.
let dedicatedRows: Set<String> = [
    "SIGINT during a render", "SIGTERM during a render", "SIGHUP during a render", "SIGQUIT during a render",
    "SIGQUIT during an expmap", "SIGUSR1 during a render", "SIGALRM during an expmap",
    "SIGINT while an output FIFO has no reader", "SIGINT during find's search", "report past the file size limit",
    // GPUTests.commandLineWithoutDriver (skipped where a CUDA driver is present).
    "CUDA backend without a driver",
    "presets list deep radii", "verbose reference points",
]

@Suite("Reliability: bad input and situations, through the executable")
struct ReliabilityTests {
    /// Sets up `s` in `folder`; false when this machine does not allow it (mknod needs root).
    func prepare(_ s: Situation, in folder: String) throws -> Bool {
        for (name, text) in s.files { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        for setup in s.setup {
            switch setup {
            case .device(let name, let major, let minor):
                guard mknod(folder + "/" + name, S_IFCHR | 0o666, dev_t(major) << 8 | dev_t(minor)) == 0 else {
                    return false
                }
            case .fifo(let name):
                #expect(mkfifo(folder + "/" + name, 0o644) == 0)
            case .symlink(let name, let target):
                #expect(symlink(target, folder + "/" + name) == 0)
            case .file(let name, let text, let mode):
                try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
                #expect(chmod(folder + "/" + name, mode) == 0)
            case .folder(let name):
                try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
            case .run(let args):
                let r = try FathomProcess.run(args, in: folder)
                #expect(r.code == 0, "setup \(args): \(r.stderr)")
            case .sparse(let name, let bytes):
                #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil))
                #expect(truncate(folder + "/" + name, off_t(bytes)) == 0)
            case .socket(let name):
                let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                var address = sockaddr_un()
                address.sun_family = sa_family_t(AF_UNIX)
                let path = Array((folder + "/" + name).utf8CString)
                guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else { return false }
                withUnsafeMutableBytes(of: &address.sun_path) { raw in path.withUnsafeBytes { raw.copyMemory(from: $0) }
                }
                let bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
                close(fd)
                #expect(bound == 0)
            }
        }
        return true
    }

    func mode(_ path: String) -> (type: mode_t, permissions: mode_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT, info.st_mode & 0o7777)
    }

    func isPNG(_ data: Data) -> Bool { data.prefix(8) == Data([137, 80, 78, 71, 13, 10, 26, 10]) }

    @Test(
        "each row: its exit code, one line on stderr, and what it leaves on disk",
        arguments: allSituations.filter { !$0.needsDevice })
    func situation(_ s: Situation) throws { try run(s) }

    @Test(
        "each row with a scratch device (mknod, never the real /dev/null)",
        .enabled(if: geteuid() == 0, "mknod needs root; CI runs as root"),
        arguments: allSituations.filter(\.needsDevice))
    func deviceSituation(_ s: Situation) throws { try run(s) }

    func run(_ s: Situation) throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(try prepare(s, in: folder), "setup failed")
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        // Every regular file's bytes and mode before the command: a failure changes none of
        // them, a success only those its checks name (nothing a user owns is replaced).
        let snapshot = try regularFiles(in: folder)
        var args = s.args
        if args.first == "render" && s.code != 0 && !args.contains("--quiet") && !args.contains("--verbose") {
            args.insert("--quiet", at: 1)
        }
        // The temporary folder is the scratch folder too, so a stream's staged copy left
        // behind is seen below.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder
        let r = try FathomProcess.run(
            args, in: folder, standardOutput: s.standardOutputDevice.map { folder + "/" + $0 },
            environment: environment)
        #expect(r.code == s.code, "stderr: \(r.stderr)")
        if s.code != 0 {
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1, "stderr: \(r.stderr)")
            #expect(r.stderr.hasPrefix("fathom: "), "stderr: \(r.stderr)")
            #expect(s.message.isEmpty || r.stderr.contains(s.message), "stderr: \(r.stderr)")
            let after = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
            #expect(after == before, "files left: \(after.subtracting(before))")
        } else {
            #expect(!r.stderr.contains("fathom: "), "stderr: \(r.stderr)")
        }
        let expected = Set(s.checks.compactMap(\.changedFile))
        for (name, old) in snapshot where !expected.contains(name) {
            #expect(try regularFile(folder + "/" + name) == old, "\(name) was changed")
        }
        // No temporary file is left anywhere in the folder.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy {
                !$0.hasSuffix(".tmp") && !$0.hasSuffix(".old")
            })
        for check in s.checks {
            switch check {
            case .stillDevice(let name): #expect(mode(folder + "/" + name)?.type == S_IFCHR, "\(name)")
            case .stillFIFO(let name): #expect(mode(folder + "/" + name)?.type == S_IFIFO, "\(name)")
            case .linkToPNG(let name, let target):
                #expect(mode(folder + "/" + name)?.type == S_IFLNK)
                #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name)) == target)
                #expect(isPNG(FileManager.default.contents(atPath: folder + "/" + target) ?? Data()))
            case .png(let name, let permissions):
                #expect(mode(folder + "/" + name)?.permissions == permissions & ~currentUmask())
                #expect(isPNG(FileManager.default.contents(atPath: folder + "/" + name) ?? Data()))
            case .unchanged(let name):
                let text =
                    s.files[name] ?? s.setup.compactMap { if case .file(name, let t, _) = $0 { t } else { nil } }.first
                let setMode = s.setup.compactMap { if case .file(name, _, let m) = $0 { m } else { nil } }.first
                #expect(mode(folder + "/" + name)?.type == S_IFREG)
                if let setMode { #expect(mode(folder + "/" + name)?.permissions == setMode) }
                chmod(folder + "/" + name, 0o644)
                #expect(FileManager.default.contents(atPath: folder + "/" + name) == Data((text ?? "").utf8))
            case .absent(let name): #expect(mode(folder + "/" + name) == nil, "\(name) exists")
            case .pngOnStandardOutput: #expect(isPNG(Data(r.stdout.utf8)) || isPNG(r.stdoutData))
            case .standardOutput(let text): #expect(r.stdout.contains(text), "stdout: \(r.stdout)")
            case .rotation(let name, let degrees):
                #expect(try LocationFile.read(path: folder + "/" + name).rotation == degrees)
            case .appended(let name, let prefix, let magic):
                let data = [UInt8](FileManager.default.contents(atPath: folder + "/" + name) ?? Data())
                let head = Array(prefix.utf8)
                #expect(Array(data.prefix(head.count)) == head, "\(name) lost its first bytes")
                #expect(Array(data.dropFirst(head.count).prefix(magic.count)) == magic, "\(name): nothing appended")
                #expect(!String(decoding: data, as: UTF8.self).contains("wrote "), "\(name): the report is in it")
            case .onlyOnStandardOutput(let magic):
                let data = [UInt8](r.stdoutData)
                #expect(Array(data.prefix(magic.count)) == magic, "stdout: \(data.prefix(16))")
                #expect(!r.stdout.contains("wrote "), "the report is mixed into standard output")
            }
        }
    }

    /// The bytes and mode of each regular file in `folder` and its subfolders, by relative path.
    func regularFiles(in folder: String) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for case let name as String in FileManager.default.enumerator(atPath: folder) ?? .init() {
            if let file = try regularFile(folder + "/" + name) { out[name] = file }
        }
        return out
    }

    /// A regular file's mode (two bytes) then its bytes; nil for anything else.
    func regularFile(_ path: String) throws -> [UInt8]? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let mode = UInt16(info.st_mode & 0o7777)
        chmod(path, mode_t(mode) | 0o400)
        defer { chmod(path, mode_t(mode)) }
        return [UInt8(mode >> 8), UInt8(mode & 0xff)] + readBytes(path)
    }

    /// A file's bytes by read(2) (FileManager's `contents(atPath:)` leaks its buffer for an empty
    /// file, which LeakSanitizer reports).
    func readBytes(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return out }
            out += buffer.prefix(n)
        }
    }

    /// The umask of this process (new files get 0666 without it).
    func currentUmask() -> mode_t {
        let mask = umask(0)
        umask(mask)
        return mask
    }

    @Test(
        "SIGINT, SIGTERM and SIGHUP cancel a render: one line, 128 + N, no file and no temporary file",
        arguments: [
            (SIGINT, "SIGINT during a render"), (SIGTERM, "SIGTERM during a render"),
            (SIGHUP, "SIGHUP during a render"),
        ])
    func signals(_ signal: Int32, _ row: String) throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // e1086's reference orbit alone takes over a second: the signal lands in the render.
        let r = try FathomProcess.run(
            ["render", "--preset", "e1086", "--size", "256x256", "--verbose", "--output", "c.png", "--npy", "c.npy"],
            in: folder, signal: (signal, after: "estimate: ", delay: 0.3))
        #expect(r.code == 128 + signal, "\(row): \(r.stderr)")
        #expect(
            r.stderr.hasPrefix("estimate: ") && r.stderr.hasSuffix("fathom: cancelled (\(row.prefix { $0 != " " }))\n"),
            "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test(
        "SIGQUIT and the other signals that end a process: temporary files removed, then the signal's default",
        arguments: [
            (
                SIGQUIT, "SIGQUIT during a render",
                ["render", "--preset", "e1086", "--size", "256x256", "--npy", "c.npy"]
            ),
            (SIGQUIT, "SIGQUIT during an expmap", ["expmap", "--preset", "e1000", "--width", "256", "--npy", "m.npy"]),
            (
                SIGUSR1, "SIGUSR1 during a render",
                ["render", "--preset", "e1086", "--size", "256x256", "--npy", "c.npy"]
            ),
            (SIGALRM, "SIGALRM during an expmap", ["expmap", "--preset", "e1000", "--width", "256", "--npy", "m.npy"]),
        ])
    func endingSignals(_ signal: Int32, _ row: String, _ args: [String]) throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder
        // The render's estimate (--verbose), or the map's first line (its map on standard output,
        // so its report is on stderr), once the output is staged.
        let map = args[0] == "expmap"
        if map { #expect(FileManager.default.createFile(atPath: folder + "/out.bin", contents: nil)) }
        let r = try FathomProcess.run(
            map ? args.dropLast() + ["-"] : args + ["--verbose"], in: folder,
            standardOutput: map ? folder + "/out.bin" : nil,
            signal: (signal, after: map ? "expmap: " : "estimate: ", delay: 0.5),
            environment: environment, killAfter: 60)
        #expect(r.uncaughtSignal && r.code == signal, "\(row): \(r.code) \(r.stderr)")
        #expect(!r.stderr.contains("Backtrac"), "\(r.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder) == (map ? ["out.bin"] : []),
            "\(row): files left")
        if map { #expect(readBytes(folder + "/out.bin").isEmpty) }
    }

    @Test(
        "one SIGINT ends a command within a second in a phase that does not poll: an output FIFO without a reader, find's search",
        arguments: [
            (
                "SIGINT while an output FIFO has no reader",
                ["render", "--preset", "e50", "--size", "8x8", "--verbose", "--output", "p"], "estimate: ", 2.0
            ),
            (
                "SIGINT during find's search",
                ["find", "--preset", "seahorse", "--depth", "1e-99999", "--render", "-", "--size", "8x8"],
                "level: ", 0.3
            ),
        ])
    func cancelWaits(_ row: String, _ args: [String], _ after: String, _ delay: Double) throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/p", 0o644) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = folder
        // find's levels are on stderr when its image goes to standard output (here a file).
        #expect(FileManager.default.createFile(atPath: folder + "/out.bin", contents: nil))
        let r = try FathomProcess.run(
            args, in: folder, standardOutput: folder + "/out.bin", signal: (SIGINT, after: after, delay: delay),
            environment: environment, killAfter: 30)
        #expect(r.code == 130 && !r.uncaughtSignal, "\(row): \(r.code) \(r.stderr)")
        #expect(r.stderr.hasSuffix("fathom: cancelled (SIGINT)\n"), "\(r.stderr)")
        // Within a second of the signal (the watchdog's 0.75 s, and a loaded machine's slack; a
        // sanitizer's runtime takes longer to end a process).
        let seconds = try #require(r.secondsAfterSignal, "\(row): no signal was sent")
        #expect(seconds < (underSanitizer ? 3 : 1.5), "\(row): \(seconds) s after the signal")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["out.bin", "p"],
            "\(row): files left")
    }

    // Not under the Thread Sanitizer, whose runtime dies of SIGBUS in its own file-backed
    // mappings under a 4 KiB file size limit, before fathom's first write.
    @Test(
        "a report larger than the file size limit lets it be: exit 74, one line (every write is checked)",
        .enabled(if: ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil, "the Thread Sanitizer's runtime"))
    func fileSizeLimit() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A location whose JSON is about 40 KB, written under a 4 KiB limit (`ulimit -f 4`).
        let digits = "0." + String(repeating: "1234567890", count: 2000)
        try locationJSON(center: "\"-\(digits)\", \"\(digits)\"", radius: "1e-5").write(
            toFile: folder + "/long.json", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "ulimit -f 4; exec \"$0\" info --json long.json > out.json", FathomProcess.executable,
        ]
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 74, "\(stderr)")
        #expect(stderr == "fathom: cannot write to standard output: File too large\n", "\(stderr)")
    }

    @Test("presets list deep radii as mantissa and exponent; --verbose abbreviates reference points")
    func shortNumbers() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let presets = try FathomProcess.run(["presets"], in: folder)
        #expect(presets.stdout.contains("e1298 ") && presets.stdout.contains(" 9.76e-1299 "), "presets list deep radii")
        #expect(presets.stdout.contains(" 7.41e-8001 "))
        let r = try FathomProcess.run(
            ["render", "--preset", "e1086", "--size", "8x8", "--verbose", "--output", "v.png"], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        let reference = try #require(r.stdout.split(separator: "\n").first { $0.hasPrefix("reference 0: ") })
        #expect(reference.count < 120 && reference.contains(" digits)"), "verbose reference points: \(reference)")
        // The PNG keeps every digit.
        let stored = try LocationFile.read(path: folder + "/v.png")
        #expect((stored.render?.references?.first?.first?.count ?? 0) > 1000)
        #expect(r.stderr.contains("estimate: view needs "))
    }

    @Test("every row of Documentation/Reliability.md is tested here, with its exit code")
    func documentedRows() throws {
        let doc = repositoryFile("Documentation/Reliability.md")
        let whole = try String(contentsOf: doc, encoding: .utf8)
        // The "Cases" section only: other sections (Sanitizers) have tables of their own.
        let cases = try #require(whole.range(of: "\n## Cases\n"), "Reliability.md has no Cases section")
        let text = whole[cases.upperBound...].components(separatedBy: "\n## ")[0]
        let rows = text.split(separator: "\n").filter {
            $0.hasPrefix("| ") && !$0.hasPrefix("| situation") && !$0.hasPrefix("|---")
        }
        .map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        .filter { $0.count >= 5 }
        #expect(rows.count >= 60)
        #expect(rows.count >= 200)
        let byLabel = Dictionary(allSituations.map { ($0.label, $0) }, uniquingKeysWith: { a, _ in a })
        for row in rows {
            let label = row[1], code = row[3]
            if dedicatedRows.contains(label) { continue }
            let s = try #require(byLabel[label], "row '\(label)' has no test")
            #expect(code == "\(s.code)", "row '\(label)': the table says \(code), the test \(s.code)")
        }
        let documented = Set(rows.map { $0[1] })
        for s in allSituations { #expect(documented.contains(s.label), "'\(s.label)' is tested but not in the table") }
        for label in dedicatedRows { #expect(documented.contains(label), "'\(label)' is tested but not in the table") }
    }
}
