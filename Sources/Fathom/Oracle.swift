import Foundation

/// An oracle file (../shared/oracle/README.md): a location, its image size, and exact escape
/// data for sampled pixels, computed by direct MPFR iteration.
public struct OracleFile: Sendable, Decodable {
    public var name: String
    public var family: String
    public var power: Int
    public var juliaC: [String]?
    public var center: [String]
    public var radius: String
    public var width: Int
    public var height: Int
    public var maxIterations: Int
    public var precisionBits: Int
    public var pixels: [Pixel]

    public struct Pixel: Sendable, Decodable {
        public var x: Int
        public var y: Int
        public var n2: Int?
        public var nBig: Int?
        public var logAbsZ: Double?
        public var smooth: Double?
        public var unstable: Bool
        public var smoothUnstable: Bool
    }

    public static func read(path: String) throws(FileError) -> OracleFile {
        let data = try FileError.readData(path)
        do {
            return try JSONDecoder().decode(OracleFile.self, from: data)
        } catch {
            throw .malformed(path: path, reason: FileError.describe(error))
        }
    }

    public var locationFile: LocationFile {
        var f = LocationFile(
            location: Location(centerRe: center[0], centerIm: center[1], radius: radius, maxIterations: maxIterations))
        f.name = name
        f.family = family
        f.power = power
        f.juliaC = juliaC
        f.width = width
        f.height = height
        return f
    }
}

/// The outcome of checking a render against an oracle file.
public struct VerifyReport: Sendable {
    public enum Outcome: Sendable, Equatable {
        case passed
        case failed
        /// Not rendered: the reason (a view that needs perturbation, say).
        case unsupported(String)
    }

    public struct Row: Sendable {
        public var pixel: OracleFile.Pixel
        public var got: PixelResult
        public var countsMatch: Bool
        /// nil when the oracle has no smooth value or marks it unstable.
        public var smoothError: Double?
        public var smoothMatches: Bool
    }

    public var name: String
    public var outcome: Outcome
    public var path: ArithmeticPath?
    public var seconds: Double
    public var rows: [Row]
    public var perturbation: PerturbationReport?
    /// Where the kernels ran ("cpu" or the GPU device), and any warning of the render.
    public var backend = "cpu"
    public var warnings: [String] = []

    public var checked: Int { rows.filter { !$0.pixel.unstable }.count }
    public var countMismatches: Int { rows.filter { !$0.pixel.unstable && !$0.countsMatch }.count }
    public var smoothMismatches: Int { rows.filter { !$0.pixel.unstable && !$0.smoothMatches }.count }
    public var maxSmoothError: Double { rows.compactMap(\.smoothError).max() ?? 0 }
}

/// Checks the renderer against oracle data: renders the whole location through the normal
/// render path and compares the sampled pixels (n2, nBig exactly on stable pixels; smooth
/// within `smoothTolerance` where the oracle does not mark it unstable).
public enum Verifier {
    /// The oracle's smooth values are good to ~1e-14; 1e-6 leaves room for the renderer's
    /// own rounding of z(nBig) in Double or double-double.
    public static let smoothTolerance = 1e-6

    /// `sampledOnly` renders just the sampled pixels (still through `Renderer.render`), for
    /// deep locations whose whole image would take minutes.
    public static func verify(
        _ oracle: OracleFile, threads: Int = 0, guardBits: Int = RenderSettings.defaultGuardBits,
        perturbation: PerturbationSettings = PerturbationSettings(), sampledOnly: Bool = false,
        backend: ComputeBackend = .cpu, gpuExact: Bool = false
    ) throws -> VerifyReport {
        let location = try oracle.locationFile.location()
        var settings = RenderSettings(
            width: oracle.width, height: oracle.height, threads: threads, guardBits: guardBits,
            perturbation: perturbation)
        settings.backend = backend
        settings.gpuExact = gpuExact
        if sampledOnly { settings.onlyPixels = oracle.pixels.map { $0.y * oracle.width + $0.x } }
        let result: RenderResult
        do {
            result = try Renderer.render(location: location, settings: settings)
        } catch let error as RenderError {
            return VerifyReport(name: oracle.name, outcome: .unsupported("\(error)"), path: nil, seconds: 0, rows: [])
        }
        var rows: [VerifyReport.Row] = []
        for pixel in oracle.pixels {
            let got = result.field[pixel.x, pixel.y]
            let countsMatch = Int(got.n2) == (pixel.n2 ?? 0) && Int(got.nBig) == (pixel.nBig ?? 0)
            var smoothError: Double?
            if let expected = pixel.smooth, !pixel.smoothUnstable, !pixel.unstable {
                smoothError = got.smooth.isNaN ? .infinity : Swift.abs(got.smooth - expected)
            }
            rows.append(
                VerifyReport.Row(
                    pixel: pixel, got: got, countsMatch: countsMatch, smoothError: smoothError,
                    smoothMatches: (smoothError ?? 0) <= smoothTolerance))
        }
        var report = VerifyReport(
            name: oracle.name, outcome: .passed, path: result.report.path, seconds: result.report.seconds, rows: rows)
        report.perturbation = result.report.perturbation
        report.backend = result.report.backend
        report.warnings = result.report.warnings
        if report.countMismatches > 0 || report.smoothMismatches > 0 { report.outcome = .failed }
        return report
    }
}

extension Verifier {
    /// Checks a view of your own against direct MPFR iteration, as `fathom verify` checks the
    /// oracle: renders only `pixels` ((x, y), top row y = 0) of `location` at `settings`
    /// through the normal render path (`RenderSettings.onlyPixels`), then iterates each
    /// directly in MPFR at two precisions, the bits below the pixel spacing plus 64 and twice
    /// that plus 64 (the oracle's rule). A pixel whose two MPFR results differ is marked
    /// unstable and not compared; counts must match exactly, smooth values within
    /// `smoothTolerance`. Each pixel costs its iterations in MPFR: pick few at extreme depth.
    public static func check(
        location: Location, settings: RenderSettings, pixels: [(x: Int, y: Int)], name: String = "view"
    ) throws -> VerifyReport {
        let viewport = try Viewport(location: location, width: settings.width, height: settings.height)
        for (x, y) in pixels where !(0..<settings.width).contains(x) || !(0..<settings.height).contains(y) {
            throw LocationError.outOfRange(
                field: "pixel", text: "\(x),\(y)", limit: "inside the \(settings.width)x\(settings.height) image")
        }
        var only = settings
        only.onlyPixels = pixels.map { $0.y * settings.width + $0.x }
        let result = try Renderer.render(location: location, settings: only)
        let bits = Int(-viewport.log2Spacing.rounded(.down)) + 64
        let fine = MPFREscape(precision: Precision(bits: 2 * bits + 64))
        let coarse = MPFREscape(precision: Precision(bits: bits))
        var rows: [VerifyReport.Row] = []
        for (x, y) in pixels {
            let want = fine.iterate(
                pixelX: x, pixelY: y, viewport: viewport, family: location.family,
                maxIterations: location.maxIterations)
            let other = coarse.iterate(
                pixelX: x, pixelY: y, viewport: viewport, family: location.family,
                maxIterations: location.maxIterations)
            let unstable = want.n2 != other.n2 || want.nBig != other.nBig
            let smoothUnstable = !want.smooth.isNaN && !(Swift.abs(want.smooth - other.smooth) <= 1e-6)
            let pixel = OracleFile.Pixel(
                x: x, y: y, n2: Int(want.n2), nBig: Int(want.nBig), logAbsZ: nil,
                smooth: want.smooth.isNaN ? nil : want.smooth, unstable: unstable, smoothUnstable: smoothUnstable)
            let got = result.field[x, y]
            var smoothError: Double?
            if let expected = pixel.smooth, !unstable, !smoothUnstable {
                smoothError = got.smooth.isNaN ? .infinity : Swift.abs(got.smooth - expected)
            }
            rows.append(
                VerifyReport.Row(
                    pixel: pixel, got: got, countsMatch: got.n2 == want.n2 && got.nBig == want.nBig,
                    smoothError: smoothError, smoothMatches: (smoothError ?? 0) <= smoothTolerance))
        }
        var report = VerifyReport(
            name: name, outcome: .passed, path: result.report.path, seconds: result.report.seconds, rows: rows)
        report.perturbation = result.report.perturbation
        report.backend = result.report.backend
        report.warnings = result.report.warnings
        if report.countMismatches > 0 || report.smoothMismatches > 0 { report.outcome = .failed }
        return report
    }
}
