// The fixed benchmark suite (issue 4): each case renders in a child process of its own, so its
// peak RSS is its own; the child prints one JSON line that the parent tabulates.
import Fathom
import Foundation

struct SuiteCase {
    let name: String
    let location: String
    let size: String
    let threads: Int
    /// Pixels checked against direct MPFR iteration (0: none).
    let checkedPixels: Int
    /// The most iterations the MPFR check spends on a pixel: a bounded pixel must not escape
    /// before it, an escaped one that took longer is left unchecked (nil: the view's limit).
    var mpfrCap: Int? = nil

    static let all: [SuiteCase] = [
        SuiteCase(name: "shallow", location: "shallow", size: "640x360", threads: 0, checkedPixels: 0),
        SuiteCase(name: "e50", location: "e50", size: "640x360", threads: 0, checkedPixels: 16),
        SuiteCase(name: "flake", location: "flake", size: "640x360", threads: 0, checkedPixels: 0),
        SuiteCase(name: "flake, 1 thread", location: "flake", size: "640x360", threads: 1, checkedPixels: 0),
        SuiteCase(name: "e318", location: "e318", size: "640x360", threads: 0, checkedPixels: 16),
        SuiteCase(name: "e1000", location: "e1000", size: "640x360", threads: 0, checkedPixels: 0),
        SuiteCase(name: "e1086", location: "e1086", size: "640x360", threads: 0, checkedPixels: 0),
        SuiteCase(name: "e1086 1920x1080", location: "e1086", size: "1920x1080", threads: 0, checkedPixels: 0),
        SuiteCase(name: "glitch_test_6", location: "glitch_test_6", size: "640x360", threads: 0, checkedPixels: 16),
        SuiteCase(name: "e8000", location: "e8000", size: "640x360", threads: 0, checkedPixels: 0),
        SuiteCase(
            name: "deepmini e433", location: "fs_deepmini_e433", size: "800x800", threads: 0, checkedPixels: 16,
            mpfrCap: 2_000_000),
    ]

    /// The peer cases (`fathom-bench peers`): Scripts/peer-bench.sh's views (Benchmarks/Locations,
    /// read from the repository's root) at its size, 800x800, for the nanoseconds a loop step a
    /// core of each pass that issue 45's targets are stated in.
    static let peers: [SuiteCase] = [
        SuiteCase(name: "a shallow", location: "fs_a_shallow", size: "800x800", threads: 0, checkedPixels: 0),
        SuiteCase(name: "b flake e50", location: "fs_b_flake_e50", size: "800x800", threads: 0, checkedPixels: 0),
        SuiteCase(name: "c flake e157", location: "fs_c_flake_e157", size: "800x800", threads: 0, checkedPixels: 0),
        SuiteCase(name: "c2 tlaloc e213", location: "fs_c2_tlaloc_e213", size: "800x800", threads: 0, checkedPixels: 0),
        SuiteCase(
            name: "d deepmini e433", location: "fs_d_deepmini_e433", size: "800x800", threads: 0, checkedPixels: 0),
    ]

    /// The GPU group (`fathom-bench gpu --backend cuda`): the exact-mode views and the two
    /// large renders of issue 6.
    static let gpu: [SuiteCase] = [
        SuiteCase(name: "e50", location: "e50", size: "640x360", threads: 0, checkedPixels: 16),
        SuiteCase(name: "e318", location: "e318", size: "640x360", threads: 0, checkedPixels: 16),
        SuiteCase(name: "e1000", location: "e1000", size: "640x360", threads: 0, checkedPixels: 0),
        SuiteCase(name: "e1000 1920x1080", location: "e1000", size: "1920x1080", threads: 0, checkedPixels: 0),
        SuiteCase(name: "e1086 1024x1024", location: "e1086", size: "1024x1024", threads: 0, checkedPixels: 0),
    ]

    /// The extreme-depth group (`fathom-bench extreme`, `--backend cuda` on a GPU machine): the
    /// two deepest published views, where the reference orbit is the cost (steps on the GPU
    /// from 60,000 bits), and fshark30 at 640x360 for a CPU-only machine (`--filter` matches a
    /// case's name and size: `--filter "fshark30 640x360"`). No MPFR check of pixels: a pixel
    /// at 380,000 bits would take hours.
    static let extreme: [SuiteCase] = [
        SuiteCase(name: "fshark30", location: "fshark30_e114514", size: "1920x1080", threads: 0, checkedPixels: 0),
        SuiteCase(name: "e52465", location: "e52465", size: "640x360", threads: 0, checkedPixels: 0),
        SuiteCase(name: "fshark30", location: "fshark30_e114514", size: "640x360", threads: 0, checkedPixels: 0),
    ]

    /// The shallow case: Seahorse valley at a radius the Double path carries (640x360).
    static let shallow = Location(
        name: "shallow", centerRe: "-0.7453", centerIm: "0.1127", radius: "0.05", maxIterations: 2000)

    /// One line of JSON with the case's figures.
    struct Figures: Codable {
        var wallSeconds: Double
        var referenceSeconds: Double
        var approximationSeconds: Double
        var pixelSeconds: Double
        var effectiveIterationsPerSecond: Double
        var blaStepsPerPixel: Double
        var loopStepsPerPixel: Double
        var peakRSSMiB: Double
        var path: String
        var deltas: String
        var mpfrChecked: Int
        var mpfrExact: Int
        var mpfrMaxSmoothError: Double
        /// Grid pixels the MPFR check left (escaped after more than its cap).
        var mpfrSkipped: Int = 0
        var interiorPixels: Int = 0
        /// Where the kernels ran, the seconds it took to open the GPU backend (before the
        /// render, not in its wall time) and the render's seconds in GPU passes.
        var backend: String = "cpu"
        var backendStartSeconds: Double = 0
        var gpuSeconds: Double = 0
        /// The primary reference's steps and the pixels left unsettled (reported, not shown as exact).
        var referenceSteps: Int = 0
        var unsettledPixels: Int = 0
        /// Each perturbation pass: its label, pixels, seconds, loop steps, threads, form and
        /// lane width (nanoseconds a loop step a core derive from them).
        var passes: [PassTiming] = []
    }

    static func runChild(
        name: String, size: String, threads: Int, locations: String, backend: ComputeBackend = .cpu,
        exact: Bool = false,
        approximation: ApproximationMethod? = nil
    ) {
        do {
            let opening = DispatchTime.now().uptimeNanoseconds
            _ = try backend.prepare(exact: exact)
            let backendStart = Double(DispatchTime.now().uptimeNanoseconds - opening) / 1e9
            let loc =
                name == "shallow" ? shallow : try LocationFile.read(path: locations + "/" + name + ".json").location()
            let parts = size.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw CocoaError(.formatting) }
            let suiteCase = SuiteCase.all.first { $0.location == name }
            let checked = suiteCase?.checkedPixels ?? 0
            var settings = RenderSettings(width: parts[0], height: parts[1], threads: threads)
            settings.backend = backend
            settings.gpuExact = exact
            if let approximation { settings.perturbation.approximation = approximation }
            let r = try Renderer.render(location: loc, settings: settings)
            let p = r.report.perturbation
            let pixels = Double(r.field.pixelCount)
            // Pixels on a 4 x 4 grid against direct MPFR iteration at the oracle's precision.
            var exactPixels = 0, tried = 0, skipped = 0, maxSmooth = 0.0
            if checked > 0 {
                let viewport = try Viewport(location: loc, width: parts[0], height: parts[1])
                let mpfr = MPFREscape(precision: viewport.precision)
                let cap = min(suiteCase?.mpfrCap ?? loc.maxIterations, loc.maxIterations)
                for j in 0..<4 {
                    for i in 0..<4 {
                        let x = (parts[0] - 1) * (2 * i + 1) / 8, y = (parts[1] - 1) * (2 * j + 1) / 8
                        let k = y * parts[0] + x
                        guard Int(r.field.nBig[k]) <= cap else {
                            skipped += 1
                            continue
                        }
                        // A bounded pixel: it must not escape within the cap (an escaped one took
                        // at most the cap, so MPFR needs no more unless the render is wrong).
                        let limit = cap
                        let want = mpfr.iterate(
                            pixelX: x, pixelY: y, viewport: viewport, family: loc.family, maxIterations: limit)
                        tried += 1
                        if r.field.nBig[k] == 0 {
                            if want.nBig == 0 { exactPixels += 1 }
                        } else {
                            if want.n2 == r.field.n2[k] && want.nBig == r.field.nBig[k] { exactPixels += 1 }
                            if want.nBig != 0 {
                                maxSmooth = max(maxSmooth, abs(want.smooth - Double(r.field.smooth[k])))
                            }
                        }
                    }
                }
            }
            var usage = rusage()
            #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let rssKiB = Double(usage.ru_maxrss)
            #else
            getrusage(RUSAGE_SELF, &usage)
            let rssKiB = Double(usage.ru_maxrss) / 1024  // bytes on macOS
            #endif
            let reference = p?.referenceSeconds ?? 0, bla = p?.approximationSeconds ?? 0
            let f = Figures(
                wallSeconds: r.report.seconds, referenceSeconds: reference, approximationSeconds: bla,
                pixelSeconds: r.report.seconds - reference - bla,
                effectiveIterationsPerSecond: Double(r.field.iterationsRepresented) / r.report.seconds,
                blaStepsPerPixel: Double(p?.approximationSteps ?? 0) / pixels,
                loopStepsPerPixel: Double(p?.loopSteps ?? 0) / pixels,
                peakRSSMiB: rssKiB / 1024, path: r.report.path.rawValue, deltas: p?.deltaType.rawValue ?? "-",
                mpfrChecked: tried, mpfrExact: exactPixels, mpfrMaxSmoothError: maxSmooth, mpfrSkipped: skipped,
                interiorPixels: p?.interiorPixels ?? 0,
                backend: r.report.device, backendStartSeconds: backendStart, gpuSeconds: r.report.gpuSeconds,
                referenceSteps: max(0, (p?.referenceLength ?? 1) - 1), unsettledPixels: p?.unsettledPixels ?? 0,
                passes: p?.passes ?? [])
            print(String(decoding: try JSONEncoder().encode(f), as: UTF8.self))
        } catch {
            FileHandle.standardError.write(Data("suite-case \(name): \(error)\n".utf8))
            exit(1)
        }
    }
}

/// `text` padded with spaces to `width` (on the left when `right`).
func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return right ? fill + text : text + fill
}

enum Suite {
    @MainActor
    static func run(options: Options, record: (Measurement) -> Void) throws {
        // This executable, to run each case in a child: Foundation's answer (from /proc/self/exe
        // on Linux, the loader on macOS), else the path it was started by.
        let executable = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
            .resolvingSymlinksInPath().path
        if !options.json {
            print(
                "suite: each case a child process; wall = render (reference + tables + pixels), RSS = the child's peak; interior = pixels proven interior; MPFR check: a 4 x 4 grid (a bounded pixel checked to the case's cap)"
            )
            print(
                pad("case", 16) + pad("size", 10)
                    + ["wall s", "ref s", "BLA s", "pixel s", "eff. it/s", "BLA/px", "steps/px", "interior", "RSS MiB"]
                    .map { pad($0, 10, right: true) }.joined() + "  MPFR check")
        }
        let peers = options.groups.contains("peers")
        let cases =
            peers
            ? SuiteCase.peers
            : options.groups.contains("extreme")
                ? SuiteCase.extreme : options.groups.contains("gpu") ? SuiteCase.gpu : SuiteCase.all
        let folder = peers ? "Benchmarks/Locations" : options.locations
        if (options.groups.contains("gpu") || options.groups.contains("extreme")) && !options.json {
            print(
                "gpu: backend \(options.backend.name)\(options.gpuExact ? " (exact)" : ""); GPU s = the render's GPU passes, open s = opening the backend (before the render)"
            )
        }
        for c in cases where options.filter.map({ "\(c.name) \(c.size)".contains($0) }) ?? true {
            var runs: [SuiteCase.Figures] = []
            var processSeconds: [Double] = []
            for _ in 0..<options.runs {
                let start = DispatchTime.now().uptimeNanoseconds
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments =
                    [
                        "suite-case", c.location, c.size, String(c.threads), folder,
                        options.backend.name, options.gpuExact ? "exact" : "fmad",
                    ] + (options.approximation.map { [$0.rawValue] } ?? [])
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                guard process.terminationStatus == 0,
                    let f = try? JSONDecoder().decode(SuiteCase.Figures.self, from: data)
                else {
                    print("suite: case \(c.name) failed (status \(process.terminationStatus))")
                    continue
                }
                runs.append(f)
                processSeconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            guard !runs.isEmpty else { continue }
            let sorted = runs.sorted { $0.wallSeconds < $1.wallSeconds }
            let processMedian = processSeconds.sorted()[processSeconds.count / 2]
            let f = sorted[sorted.count / 2]
            let check =
                f.mpfrChecked > 0
                ? String(format: "%d/%d exact, smooth err %.1e", f.mpfrExact, f.mpfrChecked, f.mpfrMaxSmoothError)
                    + (f.mpfrSkipped > 0 ? ", \(f.mpfrSkipped) past the cap unchecked" : "") : "-"
            if !options.json {
                let cells = [
                    String(format: "%.2f", f.wallSeconds), String(format: "%.2f", f.referenceSeconds),
                    String(format: "%.2f", f.approximationSeconds),
                    String(format: "%.2f", f.pixelSeconds), String(format: "%.3g", f.effectiveIterationsPerSecond),
                    String(format: "%.1f", f.blaStepsPerPixel), String(format: "%.1f", f.loopStepsPerPixel),
                    String(f.interiorPixels), String(format: "%.0f", f.peakRSSMiB),
                ]
                let gpu =
                    f.backend == "cpu"
                    ? ""
                    : String(format: "  GPU %.3f s, open %.2f s", f.gpuSeconds, f.backendStartSeconds)
                        + " (\(f.backend))"
                let process = String(format: "  process %.1f s, orbit %d steps", processMedian, f.referenceSteps)
                print(
                    pad(c.name, 16) + pad(c.size, 10) + cells.map { pad($0, 10, right: true) }.joined() + "  " + check
                        + gpu + process + (f.unsettledPixels > 0 ? ", \(f.unsettledPixels) unsettled" : ""))
                for pass in f.passes {
                    print(
                        "    pass " + pad(pass.label, 28) + pad("\(pass.deltas)", 16)
                            + String(
                                format: "%9ld px %8.3f s %12ld steps %7.2f ns/step/core", pass.pixels, pass.seconds,
                                pass.loopSteps, pass.nanosecondsPerStepPerCore)
                            + "  lanes \(pass.laneWidth), \(pass.form), \(pass.threads) threads"
                            + (pass.streamed ? ", orbit streamed" : ""))
                }
            }
            record(
                Measurement(
                    group: "suite", name: "\(c.name) \(c.size)", runs: runs.count, medianSeconds: f.wallSeconds,
                    bestSeconds: sorted[0].wallSeconds,
                    figures: [
                        "wall s": f.wallSeconds, "reference s": f.referenceSeconds, "BLA s": f.approximationSeconds,
                        "pixel s": f.pixelSeconds,
                        "effective iter/s": f.effectiveIterationsPerSecond, "BLA steps/pixel": f.blaStepsPerPixel,
                        "loop steps/pixel": f.loopStepsPerPixel, "peak RSS MiB": f.peakRSSMiB,
                        "MPFR checked": Double(f.mpfrChecked), "MPFR exact": Double(f.mpfrExact),
                        "MPFR max smooth error": f.mpfrMaxSmoothError, "interior pixels": Double(f.interiorPixels),
                        "GPU s": f.gpuSeconds, "backend open s": f.backendStartSeconds,
                        "process s": processMedian,
                        "reference steps": Double(f.referenceSteps), "unsettled pixels": Double(f.unsettledPixels),
                    ],
                    notes: ["path \(f.path), deltas \(f.deltas), backend \(f.backend)"]))
        }
    }
}
