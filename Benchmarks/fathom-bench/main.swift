// fathom-bench: fixed cases, measured by wall time (never by timed tests).
// Usage: fathom-bench [direct] [reference] [perturbation] [glitch] [suite] [sequence] [gpu]
//                     [extreme] [device-orbit] [--runs N] [--json] [--filter TEXT]
//                     [--locations DIR] [...]: `fathom-bench --help` lists every option.
import Fathom
import Foundation
import FractalNumerics

/// Keeps a value alive so the optimiser cannot drop the work that produced it.
@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

struct Options {
    var groups: Set<String> = []
    var runs = 3
    var json = false
    var filter: String?
    var locations = "../shared/locations"
    var backend = ComputeBackend.cpu
    var gpuExact = false
    /// The suite's approximation (nil: the engine's default).
    var approximation: ApproximationMethod?
    /// The reference group's team size (nil: every core).
    var team: Int?
    /// The device-orbit group's device ("cuda" or "emulated"; nil: CUDA where a driver opens)
    /// and its location cases' steps.
    var orbitDevice: String?
    var orbitSteps = 10000
    /// The kernel settles tiny values and the escape test itself (`CUDAOrbitDevice.settles`;
    /// `--host-settle`: the host's MPFR does).
    var orbitSettle = true
    var globalScratch = false
}

/// The value of `option` spelled `text` (its raw value), else a one-line usage error, exit 64.
func value<T: CaseIterable & RawRepresentable>(_: T.Type, of option: String, _ text: String?) -> T
where T.RawValue == String {
    if let text, let v = T(rawValue: text) { return v }
    let names = T.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("fathom-bench: \(option) '\(text ?? "")' is not one of \(names)\n".utf8))
    exit(64)
}

func parseOptions() -> Options {
    var o = Options()
    var it = CommandLine.arguments.dropFirst().makeIterator()
    while let a = it.next() {
        switch a {
        case "--runs": o.runs = max(1, Int(it.next() ?? "") ?? 3)
        case "--json": o.json = true
        case "--filter": o.filter = it.next()
        case "--locations": o.locations = it.next() ?? o.locations
        case "direct", "reference", "perturbation", "glitch", "suite", "sequence", "gpu", "device-orbit", "extreme",
            "peers":
            o.groups.insert(a)
        case "--device": o.orbitDevice = it.next()
        case "--steps": o.orbitSteps = max(1, Int(it.next() ?? "") ?? 10000)
        case "--host-settle": o.orbitSettle = false
        case "--global-scratch": o.globalScratch = true
        case "--team": o.team = max(2, Int(it.next() ?? "") ?? 2)
        case "--backend":
            let name = it.next()
            guard let backend = name.flatMap(ComputeBackend.init(named:)) else {
                let names = ComputeBackend.all.map(\.name).joined(separator: ", ")
                FileHandle.standardError.write(
                    Data("fathom-bench: --backend '\(name ?? "")' is not one of \(names)\n".utf8))
                exit(64)
            }
            o.backend = backend
        case "--gpu-exact": o.gpuExact = true
        case "--approximation": o.approximation = value(ApproximationMethod.self, of: a, it.next())
        case "suite-case":
            // Internal: one suite case in this (child) process; prints one JSON line.
            let name = it.next() ?? "", size = it.next() ?? "", threads = Int(it.next() ?? "") ?? 0
            let locations = it.next() ?? o.locations
            let backend = ComputeBackend(named: it.next() ?? "cpu") ?? .cpu
            let exact = it.next() == "exact"
            let approximation = it.next().flatMap(ApproximationMethod.init(rawValue:))
            SuiteCase.runChild(
                name: name, size: size, threads: threads, locations: locations, backend: backend, exact: exact,
                approximation: approximation)
            exit(0)
        case "mpfr-pixels":
            // mpfr-pixels NAME WxH INDEX...: each pixel (y * width + x) by direct MPFR iteration
            // at the oracle's precision; NAME a preset or a location file in --locations.
            let name = it.next() ?? "", size = it.next() ?? ""
            var indices: [Int] = []
            while let i = it.next().flatMap({ Int($0) }) { indices.append(i) }
            MPFRPixels.run(name: name, size: size, indices: indices, locations: o.locations)
            exit(0)
        case "--help", "-h":
            print(
                "usage: fathom-bench [direct] [reference] [perturbation] [glitch] [suite] [sequence] [gpu] [extreme] [peers] [device-orbit] [--runs N] [--json] [--filter TEXT] [--locations DIR] [--backend cpu|cuda|auto] [--gpu-exact] [--approximation bla|la|both] [--team N] [--device cuda|emulated] [--steps N] [--host-settle] [--global-scratch]"
            )
            print(
                "device-orbit: reference orbits on the GPU (or --device emulated) against MPFR on every core, bit for bit: the rabbit at 4k-380k bits, then e1086, e8000, e52465 and fshark30_e114514's centers over --steps steps (default 10000)"
            )
            print(
                "gpu: the suite's GPU cases (e50, e318, e1000 at 640x360; e1000 1920x1080; e1086 1024x1024) on --backend"
            )
            print(
                "extreme: fshark30_e114514 at 1920x1080 and 640x360, e52465 at 640x360 (reference, pixels, RSS, the whole child process), on --backend"
            )
            print(
                "peers: Scripts/peer-bench.sh's cases a, b, c, c2, d at 800x800 (Benchmarks/Locations, run from the repository's root); every suite group prints each case's perturbation passes: seconds, loop steps, nanoseconds a loop step a core, lane width"
            )
            print(
                "--filter TEXT: the cases whose name contains TEXT (suite, gpu and extreme: 'name size', e.g. 'fshark30 640x360')"
            )
            print(
                "groups default to direct and reference; perturbation, glitch and suite read DIR (default ../shared/locations)"
            )
            exit(0)
        default:
            FileHandle.standardError.write(Data("fathom-bench: unknown argument '\(a)'\n".utf8))
            exit(64)
        }
    }
    if o.groups.isEmpty { o.groups = ["direct", "reference"] }
    return o
}

/// One measured case, as printed and as JSON.
struct Measurement: Codable {
    var group: String
    var name: String
    var runs: Int
    var medianSeconds: Double
    var bestSeconds: Double
    /// Case-specific figures (iterations per second, reference time, ratios, ...).
    var figures: [String: Double]
    var notes: [String]
}

let options = parseOptions()
var results: [Measurement] = []

@MainActor func measure(
    _ group: String, _ name: String, runs: Int? = nil, _ body: () throws -> (figures: [String: Double], notes: [String])
) rethrows {
    guard options.filter.map({ name.contains($0) || group.contains($0) }) ?? true else { return }
    var times: [Double] = []
    var last: (figures: [String: Double], notes: [String]) = ([:], [])
    for _ in 0..<(runs ?? options.runs) {
        let start = DispatchTime.now().uptimeNanoseconds
        last = try body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    times.sort()
    let m = Measurement(
        group: group, name: name, runs: times.count, medianSeconds: times[times.count / 2], bestSeconds: times[0],
        figures: last.figures, notes: last.notes)
    results.append(m)
    if !options.json {
        let figures = m.figures.sorted { $0.key < $1.key }.map { String(format: "%@ %.4g", $0.key, $0.value) }.joined(
            separator: ", ")
        print(
            String(
                format: "%-10@ %-58@ median %8.3f s  best %8.3f s  %@", group as NSString, name as NSString,
                m.medianSeconds, m.bestSeconds, figures as NSString))
        for note in m.notes { print("           " + note) }
    }
}

/// `body`'s result and its best time in microseconds over `runs` runs (`--runs`).
func bestOfRuns<T>(_ runs: Int, _ body: () throws -> T) rethrows -> (T, Double) {
    var best = Double.infinity, result: T?
    for _ in 0..<runs {
        let t0 = DispatchTime.now().uptimeNanoseconds
        result = try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e3)
    }
    return (result!, best)
}

@MainActor func location(_ name: String) throws -> Location {
    try LocationFile.read(path: options.locations + "/" + name + ".json").location()
}

// MARK: - direct

if options.groups.contains("direct") {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let fullView = Location(name: "full", centerRe: "-0.5", centerIm: "0", radius: "1.5", maxIterations: 1000)
    for path in [ArithmeticPath.double, .doubleDouble] {
        for threads in Array(Set([1, cores])).sorted() {
            try measure("direct", "\(path.rawValue), -2..1 x -1.5..1.5, 1000x1000, \(threads) thread(s)") {
                let r = try Renderer.render(
                    location: fullView,
                    settings: RenderSettings(width: 1000, height: 1000, threads: threads, path: path))
                blackHole(r)
                return (["M iter/s": Double(r.field.iterationsRepresented) / r.report.seconds / 1e6], [])
            }
        }
    }
}

if options.groups.contains("device-orbit") {
    do { try deviceOrbitGroup() } catch {
        FileHandle.standardError.write(Data("fathom-bench: \(error)\n".utf8))
        exit(69)
    }
}

// MARK: - reference

if options.groups.contains("reference") {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    /// The orbit on one thread, on two in lockstep, on a team of every core (or `--team N`), and
    /// as `ReferenceThreading.choose` shares it among every core, against one thread of MPFR
    /// doing the same steps as ../shared/tools/mpfr-step.c (x^2, y^2, 2xy and the adds); the
    /// orbits must agree bit for bit. Each figure is the best of `--runs` runs (this VM's
    /// neighbours make single runs of two spinning threads erratic).
    func orbitCase(_ name: String, c: BigComplex, steps: Int, precision p: Precision) throws {
        try measure("reference", name, runs: 1) {
            func timed(_ threading: ReferenceThreading?) throws -> (ReferenceOrbit, Double) {
                try bestOfRuns(options.runs) {
                    try ReferenceOrbit.compute(
                        point: c, power: 2, juliaC: nil, maxIterations: steps, precision: p, threads: cores,
                        threading: threading)
                }
            }
            let (one, oneTime) = try timed(.serial)
            let (pair, pairTime) = try timed(.pair)
            let (team, teamTime) = try timed(.team(threads: options.team ?? cores))
            let (chosen, chosenTime) = try timed(nil)
            let n = Double(one.count - 1)
            let baseline = (0..<options.runs).map { _ in
                MPFROperations.mpfrStepSteps(c: c, steps: one.count - 1, precision: p)
            }.min()!
            var notes: [String] = []
            for (label, orbit) in [("pair", pair), ("team", team), ("chosen", chosen)]
            where orbit.compressed != one.compressed {
                notes.append("ORBITS DIFFER: \(label) against one thread")
            }
            if one.escaped { notes.append("escaped after \(one.count - 1) steps") }
            let gapExponents = one.escapeGaps.values.map(\.exponent)
            if let low = gapExponents.min(), let high = gapExponents.max() {
                notes.append("escape test near |Z| = 2 at \(one.escapeGaps.count) steps, gaps 2^\(low) to 2^\(high)")
            }
            notes.append(
                "chosen for \(cores) threads: \(ReferenceThreading.choose(bits: p.bits, power: 2, threads: cores))")
            return (
                [
                    "mpfr-step us/step": baseline, "1 thread us/step": oneTime / n, "pair us/step": pairTime / n,
                    "team us/step": teamTime / n, "chosen us/step": chosenTime / n,
                    "chosen vs mpfr-step": baseline / (chosenTime / n), "chosen vs 1 thread": oneTime / chosenTime,
                ], notes
            )
        }
    }
    // A point whose orbit stays bounded (the Douady rabbit's c, inside the set): every step
    // then costs what a deep reference's step costs at the same precision.
    for (bits, steps) in [(1000, 100_000), (4000, 20000), (10000, 5000), (50000, 400), (175_000, 60), (380_000, 20)] {
        let p = Precision(bits: bits)
        try orbitCase(
            "rabbit orbit at \(bits) bits, \(steps) steps", c: BigComplex(parsingRe: "-0.12", im: "0.75", precision: p),
            steps: steps, precision: p)
    }
    // The deep presets' own centers at their orbits' precision (a 640x360 view's).
    // e52465's orbit sits at |Z| = 2 for most of its steps: each needs the exact escape test.
    for (name, steps) in [("e1086", 100_000), ("e8000", 10000), ("e52465", 1000)] {
        let loc = try location(name)
        let view = try Viewport(location: loc, width: 640, height: 360)
        let p = view.orbitPrecision
        try orbitCase(
            "\(name) orbit at \(p.bits) bits, \(steps) steps", c: view.center.rounded(to: p), steps: steps, precision: p
        )
        // The same orbit with its low words (as renders keep it), held compressed without
        // loss: its size, and decoding it for the kernels (Double, FloatExp, double-double).
        try measure("reference", "\(name) orbit compressed (\(steps) steps, low words)", runs: 1) {
            let orbit = try ReferenceOrbit.compute(
                point: view.center.rounded(to: p), power: 2, juliaC: nil, maxIterations: steps, precision: p,
                lowWords: true, threads: cores)
            let t0 = DispatchTime.now().uptimeNanoseconds
            let plain = orbit.values(as: Double.self)
            let t1 = DispatchTime.now().uptimeNanoseconds
            let wide = orbit.values(as: FloatExp.self)
            let t2 = DispatchTime.now().uptimeNanoseconds
            let fine = orbit.values(as: DoubleDouble.self)
            let t3 = DispatchTime.now().uptimeNanoseconds
            let n = Double(orbit.count)
            // Decoded, the orbit compresses back to the same bytes.
            let back = orbit.compressed.decoded()
            let same =
                plain.count == orbit.count && wide.count == orbit.count && fine.count == orbit.count
                && zip(plain, back.re).allSatisfy { $0.re == $1 } && zip(fine, back.reLow).allSatisfy { $0.re.lo == $1 }
            return (
                [
                    "bytes/step": Double(orbit.byteCount) / n, "plain bytes/step": 32,
                    "Double ns/step": Double(t1 - t0) / n, "FloatExp ns/step": Double(t2 - t1) / n,
                    "double-double ns/step": Double(t3 - t2) / n,
                ], same ? [] : ["DECODED ORBIT DIFFERS"]
            )
        }
    }
}

// MARK: - perturbation

if options.groups.contains("perturbation") {
    for name in ["e50", "e113", "e318", "e1000"] {
        try measure("perturbation", "\(name) at 640x360", runs: 1) {
            let loc = try location(name)
            let r = try Renderer.render(location: loc, settings: RenderSettings(width: 640, height: 360))
            let p = r.report.perturbation
            return (
                [
                    "wall s": r.report.seconds, "reference s": p?.referenceSeconds ?? 0,
                    "effective M iter/s": Double(r.field.iterationsRepresented) / r.report.seconds / 1e6,
                ],
                [
                    "deltas \(p?.deltaType.rawValue ?? "-"), reference \(p?.precisionBits ?? 0) bits, \(p?.referenceLength ?? 0) steps"
                ]
            )
        }
    }
}

// MARK: - glitch

if options.groups.contains("glitch") {
    for k in 1...5 {
        try measure("glitch", "glitch_test_\(k) at 320x180, detect vs rebase", runs: 1) {
            let loc = try location("glitch_test_\(k)")
            var settings = RenderSettings(width: 320, height: 180)
            settings.perturbation.glitchMode = .detect
            let detect = try Renderer.render(location: loc, settings: settings)
            settings.perturbation.glitchMode = .rebase
            let rebase = try Renderer.render(location: loc, settings: settings)
            var differ = 0, maxCountDifference = 0
            var notes: [String] = []
            let viewport = try Viewport(location: loc, width: 320, height: 180)
            let mpfr = MPFREscape(precision: viewport.precision)
            for i in 0..<detect.field.pixelCount
            where detect.field.n2[i] != rebase.field.n2[i] || detect.field.nBig[i] != rebase.field.nBig[i] {
                differ += 1
                maxCountDifference = max(maxCountDifference, abs(Int(detect.field.nBig[i]) - Int(rebase.field.nBig[i])))
                if differ <= 8 {
                    // Which mode is right: direct MPFR iteration of the pixel.
                    let want = mpfr.iterate(
                        pixelX: i % 320, pixelY: i / 320, viewport: viewport, family: loc.family,
                        maxIterations: loc.maxIterations)
                    notes.append(
                        "pixel \(i % 320),\(i / 320): n2/nBig MPFR \(want.n2)/\(want.nBig), detect \(detect.field.n2[i])/\(detect.field.nBig[i]), rebase \(rebase.field.n2[i])/\(rebase.field.nBig[i])"
                    )
                }
            }
            let p = detect.report.perturbation!
            return (
                [
                    "detect s": detect.report.seconds, "rebase s": rebase.report.seconds,
                    "glitched": Double(p.glitchedPixels),
                    "references": Double(p.references.count), "uncorrected": Double(p.uncorrectedPixels),
                    "pixels differing": Double(differ), "max nBig difference": Double(maxCountDifference),
                ], notes
            )
        }
    }
}

// MARK: - sequence

/// A zoom-out sequence of e1086 (radius x1, x10, x100, x1000 at 320x180): every frame
/// computing its own reference orbit and BLA table, against one `ReferenceCache` for all.
if options.groups.contains("sequence") {
    let base = try location("e1086")
    let frames = (0..<4).map { k -> Location in
        var l = base
        l.radius = "\(2 * Math.pow(10, Double(k)))e-1086"
        return l
    }
    for cached in [false, true] {
        try measure(
            "sequence", "e1086 zoom-out, 4 frames at 320x180, \(cached ? "one reference cache" : "no cache")", runs: 1
        ) {
            var settings = RenderSettings(width: 320, height: 180)
            let cache = ReferenceCache()
            if cached { settings.perturbation.cache = cache }
            var referenceSeconds = 0.0
            for frame in frames {
                let r = try Renderer.render(location: frame, settings: settings)
                referenceSeconds += r.report.perturbation?.referenceSeconds ?? 0
            }
            return (["reference s": referenceSeconds, "orbits reused": Double(cache.orbitHits)], [])
        }
    }
}

// MARK: - suite

if options.groups.contains("suite") || options.groups.contains("gpu") || options.groups.contains("extreme")
    || options.groups.contains("peers")
{
    try Suite.run(options: options) { results.append($0) }
}

if options.json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(results), as: UTF8.self))
}
