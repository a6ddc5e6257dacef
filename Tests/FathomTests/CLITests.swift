import Fathom
import Foundation
import Testing

/// Runs the built `fathom` executable (next to the test bundle in .build/<config>/).
struct FathomProcess {
    static var executable: String {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var url = folder
        // The test runner is .build/<triple>/<config>/X.xctest (a file on Linux, a bundle folder on macOS).
        for _ in 0..<4 {
            let candidate = url.appendingPathComponent("fathom").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            url = url.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("fathom").path
    }

    struct Result {
        let code: Int32
        let stdout: String
        let stderr: String
        let stdoutData: Data
        /// Whether the process ended by a signal (`code` is then the signal's number).
        let uncaughtSignal: Bool
        /// Seconds from the signal `run` sent to the process's end (nil: none was sent).
        var secondsAfterSignal: Double? = nil
    }

    /// When the signal was sent, written by the thread that sends it.
    final class SentAt: @unchecked Sendable {
        private let lock = NSLock()
        private var date: Date?
        func set() { lock.withLock { date = Date() } }
        var value: Date? { lock.withLock { date } }
    }

    /// Runs fathom in `folder`; `standardOutput`: a file to write stdout to instead of a
    /// pipe; `signal`: a signal sent that many seconds after stderr first shows the text
    /// (so that it lands in the work, not in the process's start).
    static func run(
        _ args: [String], in folder: String, standardOutput: String? = nil,
        signal: (Int32, after: String, delay: Double)? = nil, environment: [String: String]? = nil,
        killAfter: Double? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = args
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        if var environment {
            // A coverage run's profile goes where the test runner says, not into the test's folder.
            if let profile = ProcessInfo.processInfo.environment["LLVM_PROFILE_FILE"] {
                environment["LLVM_PROFILE_FILE"] = environment["LLVM_PROFILE_FILE"] ?? profile
            }
            process.environment = environment
        }
        let out = Pipe(), err = Pipe()
        if let standardOutput {
            // Opened to append, as a shell's `>>` does (a device does not mind).
            let fd = open(standardOutput, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard fd >= 0 else { throw CocoaError(.fileNoSuchFile) }
            process.standardOutput = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        } else {
            process.standardOutput = out
        }
        process.standardError = err
        try process.run()
        if let killAfter {
            // A command that does not end by then is killed (the caller sees signal 9).
            let pid = process.processIdentifier
            Thread {
                Thread.sleep(forTimeInterval: killAfter)
                kill(pid, SIGKILL)
            }.start()
        }
        let outData: Data
        var errData = Data()
        let sentAt = SentAt()
        if let (signo, after, delay) = signal {
            // Read stderr as it comes (stdout is not read: these runs write files).
            let pid = process.processIdentifier
            var sent = false
            let handle = err.fileHandleForReading
            while case let chunk = handle.availableData, !chunk.isEmpty {
                errData += chunk
                if !sent && String(decoding: errData, as: UTF8.self).contains(after) {
                    sent = true
                    // A thread of its own: the global queue's threads may all be busy with
                    // other tests' work on a 2-core machine, which delayed the signal past the
                    // render's end once (CI, 2026-12-05).
                    Thread {
                        Thread.sleep(forTimeInterval: delay)
                        sentAt.set()
                        kill(pid, signo)
                    }.start()
                }
            }
            outData = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
        } else {
            outData = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
            errData = err.fileHandleForReading.readDataToEndOfFile()
        }
        process.waitUntilExit()
        return Result(
            code: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData,
            uncaughtSignal: process.terminationReason == .uncaughtSignal,
            secondsAfterSignal: sentAt.value.map { Date().timeIntervalSince($0) })
    }
}

/// A file of this repository, by its path from the root (this file is in Tests/FathomTests/).
func repositoryFile(_ path: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(path)
}

func makeFolder() throws -> String {
    let path = NSTemporaryDirectory() + "fathom-cli-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("The fathom executable")
struct CLITests {
    @Test("arguments: usage errors first, then each value's kind in the order given; nothing written")
    func argumentOrder() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (args, code, message) in [
            (["render", "--quiet", "--quiet"], Int32(64), "fathom: option '--quiet' given twice"),
            (["render", "--threads", "1", "--threads", "2"], 64, "fathom: option '--threads' given twice"),
            (["render", "--threads", "x", "--bit-depth", "12"], 65, "fathom: --threads: 'x' is not an integer"),
            (["render", "--bit-depth", "12", "--threads", "x"], 64, "fathom: --bit-depth: '12' is not one of 8, 16"),
            (["render", "--threads=x", "--nope"], 64, "fathom: unknown option '--nope'"),
            (["render", "--threads", "2000"], 65, "fathom: --threads: 2000 is outside 0...1024 (0 = all cores)"),
            (["render", "--density", "0"], 65, "fathom: --density: '0' is not a number > 0"),
            (
                ["render", "--path", "fast"], 64,
                "fathom: --path: 'fast' is not one of double, double-double, perturbation"
            ),
            (["find", "--fraction", "2"], 65, "fathom: --fraction: '2' is not a number in (0, 1]"),
            (["explore", "--port", "0"], 65, "fathom: --port: 0 is outside 1...65535"),
            (["explore", "--bind", "example.com"], 64, "fathom: --bind: 'example.com' is not an IPv4 or IPv6 address"),
            (["explore", "extra"], 64, "fathom: "),
        ] {
            let r = try FathomProcess.run(args, in: folder)
            #expect(r.code == code && r.stderr.hasPrefix(message), "\(args): \(r.code) \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("render writes a PNG whose tEXt chunk holds the full location")
    func renderWritesLocation() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let re = "-0.74364388703715870475219150611477" + String(repeating: "1234567890", count: 10)
        let r = try FathomProcess.run(
            [
                "render", "--center", "\(re),0.1318259042053119", "--radius", "1e-12",
                "--iterations", "600", "--size", "32x20", "--palette", "hot", "--output", "x.png",
            ], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("path double-double"))
        let image = try PNGReader.read(path: folder + "/x.png")
        #expect(image.width == 32 && image.height == 20)
        let chunks = try PNGReader.textChunks(path: folder + "/x.png")
        let json = try #require(chunks.first { $0.0 == FathomInfo.locationKey }?.1)
        let file = try JSONDecoder().decode(LocationFile.self, from: Data(json.utf8))
        #expect(file.center == [re, "0.1318259042053119"])
        #expect(file.radius == "1e-12")
        #expect(file.maxIterations == 600)
        #expect(file.color?.palette == .hot)
        #expect(file.render?.path == "double-double")
        // Rendering the stored location again gives the same image.
        try json.write(toFile: folder + "/again.json", atomically: true, encoding: .utf8)
        let again = try FathomProcess.run(
            ["render", "--location", "again.json", "--output", "y.png", "--quiet"], in: folder)
        #expect(again.code == 0, "\(again.stderr)")
        #expect(try PNGReader.read(path: folder + "/y.png") == image)
    }

    @Test("--guard-bits on the command line is stored in the PNG's location, as the engine settings are")
    func guardBitsStored() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func storedGuardBits(_ extra: [String]) throws -> Any? {
            let r = try FathomProcess.run(
                ["render", "--preset", "mandelbrot", "--size", "16x10", "--iterations", "50", "--output", "g.png"]
                    + extra, in: folder)
            #expect(r.code == 0, "\(r.stderr)")
            let info = try FathomProcess.run(["info", "--json", "g.png"], in: folder)
            #expect(info.code == 0, "\(info.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any]
            return try #require(json)["guardBits"]
        }
        #expect(try storedGuardBits(["--guard-bits", "52"]) as? Int == 52)
        #expect(try storedGuardBits([]) == nil)
    }

    @Test("--npy with --supersample K holds every sample: K height x K width, the K-times-larger view's field")
    func supersampledNPY() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let view = ["render", "--preset", "seahorse", "--iterations", "200", "--quiet"]
        let sampled = try FathomProcess.run(
            view + ["--size", "12x8", "--supersample", "2", "--npy", "s.npy", "--output", "s.png"], in: folder)
        let large = try FathomProcess.run(
            view + ["--size", "24x16", "--npy", "l.npy", "--output", "l.png"], in: folder)
        #expect(sampled.code == 0 && large.code == 0, "\(sampled.stderr) \(large.stderr)")
        let field = try NPYReader.read(path: folder + "/s.npy")
        #expect(field.width == 24 && field.height == 16)
        #expect(try NPYReader.read(path: folder + "/l.npy").n2 == field.n2)
    }

    @Test("verify passes oracle files and reports mismatches with a non-zero exit")
    func verify() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pass = try FathomProcess.run(
            ["verify", try fixture("pub_a_seahorse_shallow"), try fixture("pub_b_e14")], in: folder)
        #expect(pass.code == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(pass.stdout.contains("pub_a_seahorse_shallow: PASS"))
        #expect(pass.stdout.contains("2 passed, 0 failed"))
        let deep = try FathomProcess.run(
            ["verify", "--glitches", "detect", try fixture("pub_g_julia_e20")], in: folder)
        #expect(deep.code == 0, "\(deep.stdout)\(deep.stderr)")
        #expect(deep.stdout.contains("pub_g_julia_e20: PASS  path perturbation"))
        #expect(deep.stdout.contains("glitches detect"))
        // A wrong oracle value must fail: change one pixel's n2.
        let text = try String(contentsOfFile: try fixture("pub_b_e14"), encoding: .utf8)
        let broken = text.replacingOccurrences(of: "\"n2\": 413,", with: "\"n2\": 414,")
        #expect(broken != text)
        try broken.write(toFile: folder + "/broken.json", atomically: true, encoding: .utf8)
        let fail = try FathomProcess.run(["verify", "broken.json"], in: folder)
        #expect(fail.code == 1)
        #expect(fail.stdout.contains("MISMATCH"))
    }

    @Test(
        "a saved reference orbit renders the same image when loaded, serves a lower limit as a fresh orbit would, and one too short is refused"
    )
    func referenceFiles() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let e55 = try fixture("pub_c_e55")
        let save = try FathomProcess.run(
            ["render", "--location", e55, "--size", "64x36", "--save-reference", "e55.orbit", "--output", "a.png"],
            in: folder)
        #expect(save.code == 0, "\(save.stderr)")
        let load = try FathomProcess.run(
            ["render", "--location", e55, "--size", "64x36", "--load-reference", "e55.orbit", "--output", "b.png"],
            in: folder)
        #expect(load.code == 0, "\(load.stderr)")
        #expect(try PNGReader.read(path: folder + "/a.png") == PNGReader.read(path: folder + "/b.png"))
        // The orbit runs to e55's limit (15,000) without escaping: it serves any lower limit
        // (`ReferenceOrbit.serves`, the cache's rule too), cut to that limit
        // (`ReferenceOrbit.limited`), so the field is the one a fresh orbit gives; not a higher one.
        let lower = try FathomProcess.run(
            [
                "render", "--location", e55, "--iterations", "12000", "--size", "64x36", "--load-reference",
                "e55.orbit",
                "--output", "d.png", "--npy", "d.npy",
            ], in: folder)
        #expect(lower.code == 0, "\(lower.stderr)")
        let fresh = try FathomProcess.run(
            [
                "render", "--location", e55, "--iterations", "12000", "--size", "64x36", "--output", "e.png", "--npy",
                "e.npy",
            ],
            in: folder)
        #expect(fresh.code == 0, "\(fresh.stderr)")
        let loaded = try Data(contentsOf: URL(fileURLWithPath: folder + "/d.npy"))
        #expect(loaded == (try Data(contentsOf: URL(fileURLWithPath: folder + "/e.npy"))), "the field of a fresh orbit")
        let wrong = try FathomProcess.run(
            [
                "render", "--location", e55, "--iterations", "20000", "--size", "8x8", "--load-reference", "e55.orbit",
                "--output", "c.png",
            ], in: folder)
        #expect(wrong.code == 65)
        #expect(wrong.stderr.contains("does not fit this view"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/c.png"))
    }

    @Test("help for every command, and presets lists the built-in views")
    func help() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for args in [
            ["help"], ["--help"], ["render", "--help"], ["verify", "--help"], ["presets", "--help"],
            ["help", "render"],
            ["families", "--help"], ["palettes", "--help"],
        ] {
            let r = try FathomProcess.run(args, in: folder)
            #expect(r.code == 0 && r.stdout.contains("usage: fathom"), "\(args)")
        }
        let presets = try FathomProcess.run(["presets"], in: folder)
        for name in [
            "mandelbrot", "julia", "newton", "multibrot", "seahorse", "elephant", "e1086", "e52465", "glitch_test_1",
        ] {
            #expect(presets.stdout.contains(name + " "), "\(name)")
        }
    }

    @Test("families and palettes list the library's catalogue, which the parser and help use too")
    func catalogue() throws {
        #expect(Catalogue.familyNames == Family.names)
        #expect(Catalogue.paletteNames == Palette.allCases.map(\.rawValue))
        #expect(Catalogue.families.first { $0.name == "multibrot" }?.parameters.first?.values == "2...16")
        #expect(Catalogue.families.first { $0.name == "julia" }?.parameters.first?.defaultValue == "-0.8,0.156")
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let families = try FathomProcess.run(["families"], in: folder)
        #expect(families.code == 0)
        for name in Family.names {
            #expect(families.stdout.contains("\n\(name): ") || families.stdout.hasPrefix("\(name): "), "\(name)")
        }
        #expect(families.stdout.contains("--power P: the power p; 2...16; default 3"))
        let palettes = try FathomProcess.run(["palettes"], in: folder)
        #expect(palettes.code == 0)
        for p in Palette.allCases { #expect(palettes.stdout.contains("\(p.rawValue): \(p.summary)")) }
        #expect(palettes.stdout.contains("--density X"))
        let help = try FathomProcess.run(["render", "--help"], in: folder)
        #expect(help.stdout.contains(Catalogue.paletteNames.joined(separator: " | ")))
        let bad = try FathomProcess.run(["render", "--quiet", "--palette", "nope"], in: folder)
        #expect(bad.code == 64 && bad.stderr.contains(Catalogue.paletteNames.joined(separator: ", ")))
    }

    @Test("find descends from Seahorse Valley past 1e-100 and saves the minibrot's location")
    func find() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let r = try FathomProcess.run(
            ["find", "--preset", "seahorse", "--depth", "1e-100", "--save", "m.kfr"], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("level: ") && r.stdout.contains("period: "))
        let file = try LocationFile.read(path: folder + "/m.kfr")
        let radius = try BigFloat(parsing: file.radius, precision: Precision(bits: 64))
        #expect(radius.doubleValue < 1e-100 && radius.doubleValue > 0)
        #expect(file.center[0].count > 100)
    }

    @Test(
        "every family renders from the command line",
        arguments: ["mandelbrot", "multibrot", "julia", "newton", "seahorse", "elephant"])
    func families(preset: String) throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let r = try FathomProcess.run(
            ["render", "--preset", preset, "--size", "40x30", "--iterations", "200", "--output", "p.png"], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        let image = try PNGReader.read(path: folder + "/p.png")
        // Not one flat colour.
        #expect(Set(stride(from: 0, to: image.pixels.count, by: 3).map { image.pixels[$0] }).count > 3)
    }

    @Test("the command line overrides a location file's engine settings; a bad value names the engine's values")
    func engineOverrides() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try String(decoding: engineJSON(#"{"path": "double-double", "glitches": "detect"}"#), as: UTF8.self)
            .write(toFile: folder + "/f.json", atomically: true, encoding: .utf8)
        func render(_ extra: [String]) throws -> FathomProcess.Result {
            try FathomProcess.run(
                ["render", "--location", "f.json", "--size", "16x16", "--output", "o.png"] + extra, in: folder)
        }
        let file = try render([])
        #expect(file.code == 0 && file.stdout.contains(", path double-double ("), "\(file.stdout) \(file.stderr)")
        let direct = try render(["--path", "double"])
        #expect(direct.code == 0 && direct.stdout.contains(", path double ("), "\(direct.stdout) \(direct.stderr)")
        let detect = try render(["--path", "perturbation"])
        #expect(
            detect.code == 0 && detect.stdout.contains(", path perturbation (")
                && detect.stdout.contains(", glitches detect"),
            "\(detect.stdout) \(detect.stderr)")
        let rebase = try render(["--path", "perturbation", "--glitches", "rebase", "--delta", "floatexp"])
        #expect(
            rebase.code == 0 && rebase.stdout.contains("deltas floatexp")
                && rebase.stdout.contains(", glitches rebase"),
            "\(rebase.stdout) \(rebase.stderr)")
        // The PNG stores the settings the render used: the file's with the command line's over them.
        #expect(
            try LocationFile.read(path: folder + "/o.png").engine
                == .init(path: .perturbation, glitches: .rebase, delta: .floatExp))

        // A bad option value: a usage error listing the engine's values (the list follows the enum).
        let deltas = DeltaType.allCases.map(\.rawValue)
        for (option, message) in [
            ("path", "--path: 'foo' is not one of double, double-double, perturbation"),
            ("glitches", "--glitches: 'foo' is not one of rebase, detect"),
            ("reference", "--reference: 'foo' is not one of auto, center, probe, nucleus"),
            ("estimate", "--estimate: 'foo' is not one of variance, product"),
            ("delta", "--delta: 'foo' is not one of \(deltas.joined(separator: ", "))"),
            ("coarse-first-pass", "--coarse-first-pass: 'foo' is not one of on, off"),
            ("smooth", "--smooth: 'foo' is not one of on, off"),
            ("color-scale", "--color-scale: 'foo' is not one of auto, linear, log, histogram"),
        ] {
            let bad = try render(["--quiet", "--\(option)", "foo"])
            #expect(bad.code == 64 && bad.stderr == "fathom: \(message) (see 'fathom help')\n", "\(bad.stderr)")
        }
        // A bad value in the file: the file is malformed (exit 65), for every command that reads it.
        try String(decoding: engineJSON(#"{"path": "fast"}"#), as: UTF8.self).write(
            toFile: folder + "/g.json", atomically: true, encoding: .utf8)
        let paths = ArithmeticPath.allCases.map(\.rawValue).joined(separator: ", ")
        for args in [
            ["render", "--quiet", "--location", "g.json"],
            ["render", "--quiet", "--location", "g.json", "--path", "double"], ["info", "g.json"],
        ] {
            let bad = try FathomProcess.run(args, in: folder)
            #expect(
                bad.code == 65
                    && bad.stderr
                        == "fathom: 'g.json' is not a valid location file: engine.path: 'fast' is not one of \(paths)\n",
                "\(args): \(bad.stderr)")
        }
    }

    @Test("sequence frames render with their keyframe's engine settings, the command line over them")
    func sequenceEngine() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try String(decoding: engineJSON(#"{"path": "double-double"}"#), as: UTF8.self).write(
            toFile: folder + "/a.json", atomically: true, encoding: .utf8)
        try String(decoding: engineJSON("{}", radius: "1"), as: UTF8.self).write(
            toFile: folder + "/b.json", atomically: true, encoding: .utf8)
        let r = try FathomProcess.run(
            ["sequence", "--per-segment", "1", "--size", "16x9", "a.json", "b.json"], in: folder)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(
            r.stdout.contains("frame 0: radius 1.5, path double-double,")
                && r.stdout.contains("frame 1: radius 1, path double,"), "\(r.stdout)")
        #expect(try LocationFile.read(path: folder + "/frames/frame-00000.png").engine == .init(path: .doubleDouble))
        #expect(try LocationFile.read(path: folder + "/frames/frame-00001.png").engine == nil)
        let forced = try FathomProcess.run(
            [
                "sequence", "--per-segment", "1", "--size", "16x9", "--path", "double", "--output-dir", "f2", "a.json",
                "b.json",
            ],
            in: folder)
        #expect(forced.code == 0, "\(forced.stderr)")
        #expect(
            forced.stdout.contains("frame 0: radius 1.5, path double,")
                && forced.stdout.contains("frame 1: radius 1, path double,"), "\(forced.stdout)")
        #expect(try LocationFile.read(path: folder + "/f2/frame-00001.png").engine == .init(path: .double))
    }
}
