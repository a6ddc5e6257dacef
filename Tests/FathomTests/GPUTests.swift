import Fathom
import Foundation
import FractalNumerics
import Testing

/// The GPU backend's kernels (FathomKernels.h) against the CPU kernels. Without a GPU they run
/// as the host emulation (the same source compiled for the CPU): every iteration count, smooth
/// value and precision flag must equal the CPU's. With a CUDA driver the same comparisons run
/// on the device in exact mode (--fmad=false); without one the test runner reports them skipped.
@Suite("GPU backend")
struct GPUTests {
    /// A small render of `preset` (or `location`) on `backend`.
    static func render(
        _ location: Location, width: Int, height: Int, backend: ComputeBackend, glitches: GlitchMode = .rebase,
        delta: DeltaType? = nil, estimate: EstimateMethod = .variance, approximation: ApproximationMethod = .linear,
        extras: Bool = false
    ) throws -> RenderResult {
        var settings = RenderSettings(width: width, height: height)
        settings.perturbation.deltaType = delta
        settings.backend = backend
        settings.gpuExact = true
        settings.perturbation.glitchMode = glitches
        settings.perturbation.approximation = approximation
        settings.perturbation.estimate = estimate
        if extras { settings.extras.derivative = true }
        return try Renderer.render(location: location, settings: settings)
    }

    static let cases: [(String, Int, Int, GlitchMode, DeltaType?, EstimateMethod, ApproximationMethod)] = [
        ("e50", 48, 27, .rebase, nil, .variance, .linear),  // Double deltas, LA, rebasing, the error variance
        ("e50", 48, 27, .rebase, nil, .variance, .bla),  // BLA
        ("e50", 48, 27, .rebase, nil, .product, .bla),  // the product estimate
        ("e50", 48, 27, .rebase, nil, .variance, .both),  // LA, BLA up to the next LA start
        ("e318", 32, 18, .rebase, nil, .variance, .linear),  // FloatExp deltas
        ("e318", 32, 18, .rebase, nil, .variance, .bla),
        ("e318", 32, 18, .rebase, nil, .product, .linear),
        ("e1000", 64, 36, .rebase, nil, .variance, .linear),  // FloatExp at 1e-1000
        ("e50", 16, 9, .rebase, .doubleDouble, .variance, .linear),  // double-double deltas in the first pass
        ("glitch_test_4", 64, 36, .detect, nil, .variance, .linear),  // Pauldelbrot detection and extra references
        ("mandelbrot", 96, 54, .rebase, nil, .variance, .linear),  // direct Double with the rounding check
        ("seahorse", 96, 54, .rebase, nil, .variance, .linear),
        ("multibrot", 96, 54, .rebase, nil, .variance, .linear),  // direct Double, z^3 + c
    ]

    static func location(_ name: String) -> Location { Presets.named(name)!.location }

    @Test("the emulated GPU kernels give the CPU's iteration field", arguments: 0..<cases.count)
    func emulationEqualsCPU(_ k: Int) throws {
        let (name, w, h, glitches, delta, estimate, approximation) = Self.cases[k]
        let cpu = try Self.render(
            Self.location(name), width: w, height: h, backend: .cpu, glitches: glitches, delta: delta,
            estimate: estimate, approximation: approximation)
        let gpu = try Self.render(
            Self.location(name), width: w, height: h, backend: .emulated, glitches: glitches, delta: delta,
            estimate: estimate, approximation: approximation)
        #expect(gpu.report.device == "CPU emulation")
        #expect(gpu.report.gpuPasses > 0)
        #expect(
            gpu.field == cpu.field,
            "\(name): \(zip(gpu.field.nBig, cpu.field.nBig).filter { $0 != $1 }.count) counts differ")
        #expect(gpu.report.perturbation?.loopSteps == cpu.report.perturbation?.loopSteps)
        #expect(gpu.report.perturbation?.approximationSteps == cpu.report.perturbation?.approximationSteps)
        #expect(gpu.report.perturbation?.glitchedPixels == cpu.report.perturbation?.glitchedPixels)
        if (name == "e50" || name == "e318") && delta == nil && approximation == .linear {
            // Pixels at risk go on to 106-bit deltas (DoubleDouble for e50, DoubleDoubleExp for
            // e318): the first pass, the pass at 2^-53 and the 106-bit pass(es) all on the device.
            #expect((gpu.report.perturbation?.doubleDoublePixels ?? 0) > 0, "\(name): a 106-bit pass")
            #expect(gpu.report.gpuPasses >= 3, "\(name): \(gpu.report.gpuPasses) GPU passes")
        }
    }

    /// The cases the CPU's lane form takes (z^2 + c, a decoded orbit: every delta type).
    static let laneCases = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]

    @Test(
        "the CPU's lane form at every width gives the CPU kernel's iteration field, loop steps and flags",
        arguments: laneCases, LaneWidthCase.allCases)
    func lanesEqualCPU(_ k: Int, _ width: LaneWidthCase) throws {
        let (name, w, h, glitches, delta, estimate, approximation) = Self.cases[k]
        let cpu = try Self.render(
            Self.location(name), width: w, height: h, backend: .cpu, glitches: glitches, delta: delta,
            estimate: estimate, approximation: approximation)
        let lanes = try Self.render(
            Self.location(name), width: w, height: h, backend: .lanes(width: width.rawValue), glitches: glitches,
            delta: delta, estimate: estimate, approximation: approximation)
        #expect(lanes.report.device == "CPU lanes, \(width.rawValue) wide")
        #expect(
            lanes.report.perturbation?.deltaType
                == delta ?? (name == "e50" || name == "glitch_test_4" ? .double : .floatExp))
        #expect(lanes.report.gpuPasses > 0)
        if (name == "e50" || name == "e318") && delta == nil && approximation == .linear {
            // Pixels at risk go on to 106-bit deltas (DoubleDouble for e50, DoubleDoubleExp for
            // e318): those passes in lanes too.
            let wide = lanes.report.perturbation?.passes.filter { $0.label.hasPrefix("at risk, 106-bit") } ?? []
            #expect(!wide.isEmpty && wide.allSatisfy { $0.laneWidth == width.rawValue }, "\(name): \(wide)")
        }
        #expect(
            Self.differing(lanes.field, cpu.field) == 0,
            "\(name): \(Self.differing(lanes.field, cpu.field)) pixels differ")
        #expect(lanes.field == cpu.field)
        #expect(lanes.report.perturbation?.loopSteps == cpu.report.perturbation?.loopSteps)
        #expect(lanes.report.perturbation?.approximationSteps == cpu.report.perturbation?.approximationSteps)
        #expect(lanes.report.perturbation?.glitchedPixels == cpu.report.perturbation?.glitchedPixels)
        #expect(lanes.field.nBig.contains { $0 > 0 }, "the view has escaping pixels")
    }

    @Test(
        "the lane form takes a first pass with the interior proof (a minibrot's nucleus as the reference): the proof on the host, the rest in lanes, the CPU's field",
        arguments: LaneWidthCase.allCases)
    func lanesInteriorProof(_ width: LaneWidthCase) throws {
        // Peer case d (a minibrot at 2.5e-433, FloatExp deltas): its reference is the nucleus.
        let location = try LocationFile.read(url: repositoryFile("Benchmarks/Locations/fs_d_deepmini_e433.json"))
            .location()
        let cpu = try Self.render(location, width: 40, height: 40, backend: .cpu)
        let lanes = try Self.render(location, width: 40, height: 40, backend: .lanes(width: width.rawValue))
        let proven = try #require(cpu.report.perturbation?.interiorPixels)
        #expect(proven > 0, "the view has pixels proven interior")
        #expect(lanes.report.perturbation?.interiorPixels == proven)
        #expect(lanes.report.perturbation?.deltaType == .floatExp)
        let first = lanes.report.perturbation?.passes.first { $0.label == "first" }
        #expect(first?.laneWidth == width.rawValue, "the first pass ran in lanes")
        #expect(lanes.field == cpu.field)
        #expect(lanes.report.perturbation?.loopSteps == cpu.report.perturbation?.loopSteps)
    }

    @Test(
        "the lane form takes Julia sets (no dc added) at every width as the CPU kernel",
        arguments: LaneWidthCase.allCases)
    func lanesJulia(_ width: LaneWidthCase) throws {
        let julia = Location(
            family: .julia(re: "-0.8", im: "0.156"), centerRe: "0.0302", centerIm: "0.0402", radius: "1e-20",
            maxIterations: 3000)
        var settings = RenderSettings(width: 40, height: 24, path: .perturbation)
        settings.perturbation.deltaType = .double
        let cpu = try Renderer.render(location: julia, settings: settings)
        settings.backend = .lanes(width: width.rawValue)
        let lanes = try Renderer.render(location: julia, settings: settings)
        #expect(lanes.report.gpuPasses > 0)
        #expect(lanes.field == cpu.field)
        #expect(lanes.field.nBig.contains { $0 > 0 }, "the view has escaping pixels")
    }

    @Test(
        "auto without a GPU: the CPU's lane form where the CPU has AVX2 or AVX-512, else the CPU kernel; the CPU's field either way, and direct views on the CPU's own kernels",
        .enabled(if: !GPUTests.cudaDriverPresent, "a CUDA driver is present"),
        .enabled(if: ProcessInfo.processInfo.environment["FATHOM_LANES"] == nil, "FATHOM_LANES is set"))
    func autoWithoutGPU() throws {
        let widest = ComputeBackend.widestLanes
        let device = widest >= 4 ? "CPU lanes, \(widest) wide" : "cpu"
        for name in ["e50", "mandelbrot"] {
            let cpu = try Self.render(Self.location(name), width: 48, height: 27, backend: .cpu)
            let auto = try Self.render(Self.location(name), width: 48, height: 27, backend: .auto)
            #expect(auto.report.device == device)
            #expect(auto.field == cpu.field, "\(name)")
            #expect(auto.report.warnings.isEmpty)
            // A direct view (mandelbrot) has no pass the lanes take.
            #expect((auto.report.gpuPasses > 0) == (name == "e50" && widest >= 4), "\(name)")
        }
    }

    @Test("FATHOM_LANES: the lanes' width where it is 2, 4 or 8; the CPU's widest is one of them")
    func laneWidths() {
        #expect([2, 4, 8].contains(ComputeBackend.widestLanes))
        #expect(ComputeBackend(named: "lanes") != nil)
    }

    @Test(
        "Julia and Multibrot perturbation with LA on the emulated kernels equal the CPU's, Double and double-double deltas"
    )
    func juliaAndMultibrotPerturbation() throws {
        let julia = Location(
            family: .julia(re: "-0.8", im: "0.156"), centerRe: "0.0302", centerIm: "0.0402", radius: "1e-20",
            maxIterations: 3000)
        let multibrot = Location(
            family: .multibrot(power: 4), centerRe: "-0.3106", centerIm: "0.7", radius: "1e-18", maxIterations: 2000)
        for location in [julia, multibrot] {
            for delta in [DeltaType.double, .doubleDouble] {
                var settings = RenderSettings(width: 40, height: 24, path: .perturbation)
                settings.perturbation.deltaType = delta
                // LA on both (the default): Julia's critical orbit has a table of its own.
                let cpu = try Renderer.render(location: location, settings: settings)
                settings.backend = .emulated
                let gpu = try Renderer.render(location: location, settings: settings)
                #expect(gpu.report.perturbation?.deltaType == delta)
                #expect(gpu.field == cpu.field, "\(delta)")
                #expect(gpu.report.gpuPasses > 0)
                #expect(gpu.field.nBig.contains { $0 > 0 }, "the view has escaping pixels")
            }
        }
    }

    /// Views for the streamed orbit: FloatExp deltas at 1e-318, double-double deltas (an orbit
    /// with low words, predicted in double-double), Pauldelbrot detection, and the period-3
    /// nucleus at 1e-320, whose orbit has steps below 2^-1000 in the tiny table.
    static func streamedViews() throws -> [(String, Location, GlitchMode, DeltaType?)] {
        let p = Precision(bits: 1200)
        let near = try BigComplex(parsingRe: "-1.76", im: "0.004", precision: p)
        let m = try #require(MinibrotFinder.find(near: near, radius: FloatExp(0.02)))
        let nucleus = Location(
            centerRe: m.nucleus.re.decimalString(significantDigits: 370),
            centerIm: m.nucleus.im.decimalString(significantDigits: 370), radius: "1e-320", maxIterations: 600)
        return [
            ("e318", location("e318"), .rebase, nil), ("e50", location("e50"), .rebase, .doubleDouble),
            ("glitch_test_4", location("glitch_test_4"), .detect, nil), ("nucleus", nucleus, .rebase, .floatExp),
        ]
    }

    /// Pixels whose counts or smooth value's bits differ (all of them where the sizes differ).
    static func differing(_ a: IterationField, _ b: IterationField) -> Int {
        guard a.n2.count == b.n2.count else { return max(a.n2.count, b.n2.count) }
        return (0..<a.n2.count).filter {
            a.n2[$0] != b.n2[$0] || a.nBig[$0] != b.nBig[$0] || a.smooth[$0].bitPattern != b.smooth[$0].bitPattern
        }.count
    }

    @Test(
        "the emulated kernels streaming the compressed orbit give the CPU's streamed field, and with the whole table the decoded one"
    )
    func streamedOrbit() throws {
        for (name, location, glitches, delta) in try Self.streamedViews() {
            for stage in [0, 2] {
                var settings = RenderSettings(width: 24, height: 14, path: .perturbation)
                settings.perturbation.deltaType = delta
                settings.perturbation.glitchMode = glitches
                settings.perturbation.placement = .center
                settings.perturbation.streamedStage = stage
                settings.gpuExact = true
                settings.perturbation.orbitResidency = .streamed
                let cpu = try Renderer.render(location: location, settings: settings)
                settings.backend = .emulated
                let gpu = try Renderer.render(location: location, settings: settings)
                let report = try #require(gpu.report.perturbation)
                #expect(report.streamedPasses >= 1 && gpu.report.gpuPasses >= 1, "\(name)")
                #expect(report.referenceLength > 3 * 128, "\(name): the orbit runs past keys")
                #expect(gpu.field.maxIterations == cpu.field.maxIterations)
                #expect(Self.differing(gpu.field, cpu.field) == 0, "\(name), stage \(stage)")
                #expect(report.loopSteps == cpu.report.perturbation?.loopSteps, "\(name), stage \(stage)")
                #expect(report.approximationSteps > 0, "\(name): LA steps jump through the stream")
                if stage == 0 {
                    settings.perturbation.orbitResidency = .decoded
                    let decoded = try Renderer.render(location: location, settings: settings)
                    #expect(decoded.report.perturbation?.streamedPasses == 0)
                    #expect(Self.differing(gpu.field, decoded.field) == 0, "\(name): streamed against decoded")
                }
            }
        }
    }

    @Test(
        "Julia on the direct Double path (lanes with the rounding check; |c| > 2 without) on the emulated kernels equals the CPU's"
    )
    func juliaDirect() throws {
        let outside = Location(
            family: .julia(re: "0.3", im: "2.05"), centerRe: "0", centerIm: "0", radius: "1.5", maxIterations: 500)
        for location in [Self.location("julia"), outside] {
            var settings = RenderSettings(width: 96, height: 54)
            let cpu = try Renderer.render(location: location, settings: settings)
            settings.backend = .emulated
            let gpu = try Renderer.render(location: location, settings: settings)
            #expect(cpu.report.path == .double)
            #expect(gpu.report.gpuPasses > 0)
            #expect(gpu.field == cpu.field, "\(location.name ?? "julia |c| > 2")")
            #expect(gpu.field.nBig.contains { $0 > 1 }, "pixels escape after more than one step")
        }
    }

    @Test("on a GPU backend the default placement is the CPU's: the Seahorse's period-33 nucleus, the CPU's field")
    func devicePlacementIsTheCPUs() throws {
        // The Seahorse view holding the period-33 minibrot (the CPU takes its nucleus there), and
        // 1e-6 around the same center, whose orbit escapes (101 steps) before a period shows:
        // in exact mode the emulated device's field is the CPU default render's, to the byte.
        for (radius, period) in [("3.725e-3", 33), ("1e-6", nil as Int?)] {
            let location = Location(
                centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: radius, maxIterations: 100_000)
            var settings = RenderSettings(width: 16, height: 9, path: .perturbation)
            settings.backend = .emulated
            settings.gpuExact = true
            let gpu = try Renderer.render(location: location, settings: settings)
            let report = try #require(gpu.report.perturbation)
            settings.backend = .cpu
            let cpu = try Renderer.render(location: location, settings: settings)
            let cpuReport = try #require(cpu.report.perturbation)
            #expect(report.referencePeriod == period && cpuReport.referencePeriod == period)
            #expect(report.referenceIsNucleus == (period != nil) && cpuReport.referenceIsNucleus == (period != nil))
            #expect(report.referenceEscaped == (period == nil))
            #expect(gpu.field == cpu.field)
        }
        // With a cache the nucleus orbit serves the next render of the view: the same field,
        // no second orbit.
        let cache = ReferenceCache()
        var cached = RenderSettings(width: 16, height: 9, path: .perturbation)
        cached.backend = .emulated
        cached.gpuExact = true
        cached.perturbation.cache = cache
        let location = Location(
            centerRe: "-0.746223962861", centerIm: "-0.0959468433527", radius: "3.725e-3", maxIterations: 100_000)
        let first = try Renderer.render(location: location, settings: cached)
        let second = try Renderer.render(location: location, settings: cached)
        #expect(cache.orbitHits >= 1 && second.field == first.field)
        #expect(second.report.perturbation?.referencePeriod == 33)
    }

    @Test("a second render of the same view reuses the orbit and table kept on the device, with the same field")
    func residentUploads() throws {
        let location = Location(
            centerRe: "-0.743643887037158704752191506114774", centerIm: "0.131825904205311970493132056385139",
            radius: "1e-22", maxIterations: 4000)
        for (approximation, arrays) in [(ApproximationMethod.linear, 3), (.bla, 4)] {
            let cpu = try Self.render(location, width: 40, height: 24, backend: .cpu, approximation: approximation)
            // The emulated executor is the process's one, and tests of other suites running at
            // the same time may evict its 12 resident copies between two renders: a pair of
            // renders must show the reuse at least once in a few tries (every try, alone).
            var best = 0
            for _ in 0..<5 where best < arrays {
                let first = try Self.render(
                    location, width: 40, height: 24, backend: .emulated, approximation: approximation)
                let second = try Self.render(
                    location, width: 40, height: 24, backend: .emulated, approximation: approximation)
                #expect(first.field == cpu.field && second.field == cpu.field)
                best = max(best, second.report.gpuUploadsSaved)
            }
            // LA: the orbit, the entries and the chain offsets; BLA: the orbit, steps, radii and levels.
            #expect(best >= arrays, "\(approximation)")
        }
    }

    @Test("passes the GPU does not run (extras tracking) fall back to the CPU")
    func fallbacks() throws {
        let cpu = try Self.render(Self.location("e50"), width: 24, height: 14, backend: .cpu, extras: true)
        let gpu = try Self.render(Self.location("e50"), width: 24, height: 14, backend: .emulated, extras: true)
        #expect(gpu.field == cpu.field)
        #expect(gpu.field.extras != nil)
    }

    /// `KernelSource.text` is written at build time by the EmbedKernels plugin (Documentation/GPU.md):
    /// this fails if the build did not rerun it after a header changed, or if the tool's Swift
    /// literal does not read back as the headers' text (the last newline is dropped, as it always was).
    @Test("the kernel source NVRTC compiles is the one the emulation compiles: the ABI header, then the kernels")
    func embeddedSourceIsCurrent() throws {
        let abi = try String(
            contentsOf: repositoryFile("Sources/CFathomGPU/include/FathomKernelABI.h"), encoding: .utf8)
        let kernels = try String(contentsOf: repositoryFile("Sources/CFathomGPU/FathomKernels.h"), encoding: .utf8)
        let orbit = try String(contentsOf: repositoryFile("Sources/CFathomGPU/FathomOrbit.h"), encoding: .utf8)
        #expect(abi.hasSuffix("\n") && kernels.hasSuffix("\n") && orbit.hasSuffix("\n"))
        let expected = String((abi + kernels + orbit).dropLast())
        let embedded = Array(ComputeBackend.kernelSource.utf8), headers = Array(expected.utf8)
        let same = embedded == headers  // bytes: the kernel cache hashes them
        let first =
            zip(embedded, headers).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(embedded.count, headers.count)
        #expect(
            same,
            "the EmbedKernels plugin's output is stale or altered: \(embedded.count) bytes, the headers \(headers.count), first difference at byte \(first)"
        )
    }

    /// Whether a CUDA driver is there. Only `GPUError.noDriver` means "no": any other
    /// failure to open the device enables the CUDA tests, which then fail with it.
    static let cudaDriverPresent: Bool = {
        do {
            _ = try ComputeBackend.cuda.prepare(exact: true)
            return true
        } catch GPUError.noDriver {
            return false
        } catch {
            return true
        }
    }()

    // Skipped (reported as such by the test runner) on machines without a CUDA driver.
    @Test(
        "on a CUDA device, exact mode gives the CPU's iteration field, byte for byte",
        .enabled(if: GPUTests.cudaDriverPresent, "no CUDA driver on this machine"))
    func cudaEqualsCPU() throws {
        let device = try ComputeBackend.cuda.prepare(exact: true)
        for (name, w, h, glitches, delta, estimate, approximation) in Self.cases {
            let cpu = try Self.render(
                Self.location(name), width: w, height: h, backend: .cpu, glitches: glitches, delta: delta,
                estimate: estimate, approximation: approximation)
            let gpu = try Self.render(
                Self.location(name), width: w, height: h, backend: .cuda, glitches: glitches, delta: delta,
                estimate: estimate, approximation: approximation)
            #expect(gpu.report.device == device)
            // IterationField's == compares n2, nBig and the bit patterns of smooth.
            #expect(gpu.field == cpu.field, "\(name) on \(device)")
            #expect(gpu.report.gpuPasses > 0)
        }
    }

    @Test("--backend: a bad name is a usage error; auto renders")
    func commandLine() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bad = try FathomProcess.run(
            ["render", "--preset", "mandelbrot", "--size", "32x18", "--backend", "opencl"], in: folder)
        #expect(bad.code == 64)
        #expect(bad.stderr.contains("--backend: 'opencl' is not one of auto, cpu, cuda"))
        let auto = try FathomProcess.run(
            ["render", "--preset", "mandelbrot", "--size", "32x18", "--output", "auto.png"], in: folder)
        #expect(auto.code == 0)
        #expect(FileManager.default.fileExists(atPath: folder + "/auto.png"))
    }

    // Skipped on machines with a CUDA driver, where there is no missing driver to report.
    @Test(
        "--backend cuda without a driver is a one-line error and no image; auto falls back silently",
        .enabled(if: !GPUTests.cudaDriverPresent, "a CUDA driver is present"))
    func commandLineWithoutDriver() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cuda = try FathomProcess.run(
            ["render", "--preset", "mandelbrot", "--size", "32x18", "--backend", "cuda", "--output", "x.png"],
            in: folder)
        // A program the command needs is missing (the driver), as ffmpeg for video: 69.
        #expect(cuda.code == 69)
        #expect(
            cuda.stderr.hasPrefix("fathom: --backend cuda: ") && cuda.stderr.filter { $0 == "\n" }.count == 1,
            "\(cuda.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.png"))
        let auto = try FathomProcess.run(
            ["render", "--preset", "mandelbrot", "--size", "32x18", "--output", "auto.png"], in: folder)
        #expect(auto.code == 0)
        #expect(auto.stderr.isEmpty, "auto without a driver falls back without a warning")
        // FATHOM_LANES naming no width: under auto a warning and the CPU's kernel; under lanes an error.
        var environment = ProcessInfo.processInfo.environment
        environment["FATHOM_LANES"] = "3"
        let e50 = ["render", "--preset", "e50", "--size", "32x18", "--output"]
        let warned = try FathomProcess.run(e50 + ["warned.png"], in: folder, environment: environment)
        #expect(warned.code == 0)
        let warning = "warning: GPU backend: FATHOM_LANES must be 2, 4 or 8, not '3'; rendering on the CPU's kernel\n"
        #expect(warned.stderr == warning)
        #expect(FileManager.default.fileExists(atPath: folder + "/warned.png"))
        let refused = try FathomProcess.run(
            e50 + ["lanes.png", "--backend", "lanes"], in: folder, environment: environment)
        #expect(refused.code != 0 && refused.stderr.contains("FATHOM_LANES must be 2, 4 or 8"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/lanes.png"))
    }
}

/// A lane width the tests run (every width runs on every CPU: narrower vectors where the CPU
/// has no wider ones).
enum LaneWidthCase: Int, CaseIterable, CustomTestStringConvertible, Sendable {
    case two = 2
    case four = 4
    case eight = 8
    var testDescription: String { "\(rawValue) lanes" }
}
